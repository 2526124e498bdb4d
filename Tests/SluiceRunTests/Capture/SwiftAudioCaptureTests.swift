import Foundation
import SluiceFilterKit
import SluiceTestSupport
import XCTest
@testable import SluiceRun

/// `capture: {kind: swift, name: tone}` in an audio branch: an `AudioSource` written in Swift,
/// checked in the file and heard after Opus.
final class SwiftAudioCaptureTests: XCTestCase {
    override func setUp() { _ = TestFilters.registered }

    private let loader = PipelineLoader(environment: [:], filters: FilterRegistry.shared)

    private func diagnostic(_ yaml: String) -> String {
        do {
            _ = try loader.load(yaml: yaml, file: "t.yaml")
            return "no error"
        } catch {
            return "\(error)"
        }
    }

    func testAnAudioSourceIsRefusedInTheVideoBranchAndAVideoSourceInTheAudioBranch() {
        XCTAssertEqual(
            diagnostic("send:\n  video:\n    capture: {kind: swift, name: tone}\n"),
            "t.yaml:3:34: 'tone' is an audio source and this is the video branch; video sources: scene")
        XCTAssertTrue(
            diagnostic("send:\n  audio:\n    capture: {kind: swift, name: scene}\n")
                .hasPrefix("t.yaml:3:34: 'scene' is a video source and this is the audio branch; audio sources: tone"),
            diagnostic("send:\n  audio:\n    capture: {kind: swift, name: scene}\n"))
        XCTAssertTrue(diagnostic("send:\n  audio:\n    capture: {kind: swift, name: tone, wave: noise}\n").contains("one of sine, sweep, dtmf"))
        XCTAssertEqual(diagnostic("send:\n  audio:\n    capture: {kind: swift, name: tone, rate: 16000, channels: 1, wave: dtmf}\n"), "no error")
    }

    /// DTMF digits that are no key are refused when the file is read, at the setting.
    func testDTMFDigitsAreCheckedAtTheirPlace() {
        XCTAssertEqual(
            diagnostic("send:\n  audio:\n    capture: {kind: swift, name: tone, wave: dtmf, digits: '12X5'}\n"),
            "t.yaml:3:52: source 'tone': 'X' is not a DTMF digit; use 0-9, *, #, A, B, C or D")
        XCTAssertEqual(
            diagnostic("send:\n  audio:\n    capture: {kind: swift, name: tone, wave: dtmf, digits: ''}\n"),
            "t.yaml:3:52: source 'tone': 'digits' is empty; give at least one of 0-9, *, #, A, B, C or D")
        XCTAssertEqual(
            diagnostic("send:\n  audio:\n    capture: {kind: swift, name: tone, wave: dtmf, digits: '*#abcd09'}\n"), "no error",
            "lower-case letters are keys too")
        XCTAssertEqual(
            diagnostic("send:\n  audio:\n    capture: {kind: swift, name: tone, wave: sine, digits: 'X'}\n"), "no error",
            "digits only matter to a dtmf wave")
    }

    /// A 1 kHz tone peaking at −6 dBFS (RMS −9) is measured before Opus and after decoding.
    func testTheToneIsHeardAtItsLevelAfterOpus() async throws {
        try requireLoopbackOnlyNetwork()
        let spec = try loader.load(
            yaml: """
                transport: { ice: { addresses: [127.0.0.1] } }
                send:
                  audio:
                    capture: { kind: swift, name: tone, frequency: 1000, level_db: -6 }
                    filters:
                      - filter: level
                    encode: { codec: opus, bitrate: 64 }
                receive:
                  audio:
                    filters:
                      - filter: level
                        interval_ms: 500
                """, file: "tone.yaml")
        let summary = try await PipelineRun(spec: spec).run(options: RunOptions(duration: 3))
        let meters = summary.filters.filter { $0.filter == "level" }
        XCTAssertEqual(meters.count, 2, "\(summary.filters)")
        for meter in meters {
            let rms = try XCTUnwrap(meter.last_event_fields?["level"]?["rms_db"], "\(meter)")
            let peak = try XCTUnwrap(meter.last_event_fields?["level"]?["peak_db"], "\(meter)")
            XCTAssertEqual(rms, -9.03, accuracy: 1.5, meter.element)
            XCTAssertEqual(peak, -6, accuracy: 1.5, meter.element)
        }
    }
}
