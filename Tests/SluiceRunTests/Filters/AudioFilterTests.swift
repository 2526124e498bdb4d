import Foundation
import SluiceFilterKit
import SluiceTestSupport
import XCTest
@testable import SluiceRun

/// Swift audio filters in pipeline files (typed settings, FILE:LINE:COL errors, the right
/// branch) and in real pipelines over WebRTC loopback.
final class AudioFilterTests: XCTestCase {
    override func setUp() { _ = TestFilters.registered }

    private let loader = PipelineLoader(environment: [:], filters: FilterRegistry.shared)

    private func load(_ yaml: String) throws -> PipelineSpec { try loader.load(yaml: yaml, file: "a.yaml") }

    private func diagnostic(_ yaml: String, file: StaticString = #filePath, line: UInt = #line) -> String {
        do {
            _ = try load(yaml)
            XCTFail("expected an error", file: file, line: line)
            return ""
        } catch {
            return "\(error)"
        }
    }

    func testAudioFiltersTakeTypedSettingsInTheAudioBranches() throws {
        let spec = try load(
            """
            send:
              audio:
                capture: { kind: test }
                filters:
                  - filter: gain
                    db: -6
                  - filter: level
            receive:
              audio:
                filters:
                  - filter: level
                    interval_ms: 250
            """)
        let sent = try XCTUnwrap(spec.send?.audio?.filters)
        guard case .swift(let name, let settings, _) = sent[0].kind else { return XCTFail("\(sent)") }
        XCTAssertEqual(name, "gain")
        XCTAssertEqual(settings.first { $0.name == "db" }?.value, .number(-6))
        XCTAssertEqual(spec.receive?.audio?.filters.count, 1)
        XCTAssertEqual(FilterRegistry.shared.filterMedia("gain"), .audio)
        XCTAssertEqual(FilterRegistry.shared.filterMedia("pixelate"), .video)
    }

    func testAFilterInTheWrongBranchIsRefusedAtItsName() {
        let audioInVideo = diagnostic("send:\n  video:\n    capture: {kind: test}\n    filters:\n      - filter: gain\n")
        XCTAssertTrue(audioInVideo.hasPrefix("a.yaml:5:17: 'gain' is an audio filter and this is the video branch; video filters: "), audioInVideo)
        XCTAssertTrue(audioInVideo.contains("pixelate"), audioInVideo)
        let videoInAudio = diagnostic("send:\n  audio:\n    capture: {kind: test}\n    filters:\n      - filter: pixelate\n")
        XCTAssertTrue(
            videoInAudio.hasPrefix(
                "a.yaml:5:17: 'pixelate' is a video filter and this is the audio branch; audio filters: audiostamp, audiostamp-read, gain, level"), videoInAudio
        )
    }

    func testBadAudioFilterSettingsSayWhereAndWhat() {
        let range = diagnostic("send:\n  audio:\n    capture: {kind: test}\n    filters:\n      - filter: gain\n        db: 40\n")
        XCTAssertTrue(range.hasPrefix("a.yaml:6:13:"), range)
        XCTAssertTrue(range.contains("24"), "names the allowed range: \(range)")
        let typo = diagnostic("send:\n  audio:\n    capture: {kind: test}\n    filters:\n      - filter: gian\n")
        XCTAssertTrue(typo.contains("did you mean 'gain'?"), typo)
    }

    /// docs/filters.md's audio example, run: a 440 Hz sine (audiotestsrc's default volume 0.8:
    /// RMS −4.95 dBFS) goes through gain −12 dB and a level meter before Opus, and through a
    /// level meter after decoding. Both meters read about −17 dBFS, so what the receiver
    /// hears is the filtered sound.
    func testTheDocsAudioExampleIsHeardAfterOpusAtItsGain() async throws {
        try requireLoopbackOnlyNetwork()
        let doc = try String(contentsOf: Repository.root.appendingPathComponent("docs/filters.md"), encoding: .utf8)
        let yaml = try XCTUnwrap(
            doc.components(separatedBy: "```yaml\n").dropFirst().map { $0.components(separatedBy: "```")[0] }
                .first { $0.contains("filter: gain") }, "docs/filters.md has a yaml block with `filter: gain`")
        let spec = try loader.load(yaml: yaml, file: "docs/filters.md")
        let summary = try await PipelineRun(spec: spec).run(options: RunOptions(duration: 3))
        let reports = summary.filters.filter { $0.filter == "level" }
        XCTAssertEqual(reports.count, 2, "\(summary.filters)")
        let expected = 20 * log10(0.8 / 2.0.squareRoot()) - 12
        for report in reports {
            XCTAssertGreaterThan(report.events["level"] ?? 0, 3, "\(report)")
            let rms = try XCTUnwrap(report.last_event_fields?["level"]?["rms_db"], "\(report)")
            XCTAssertEqual(rms, expected, accuracy: 1.5, "\(report.element)")
        }
        XCTAssertGreaterThan(summary.filters.first { $0.filter == "gain" }?.frames ?? 0, 50)
        XCTAssertTrue(summary.text.contains("level events (last: peak_db"), summary.text)
    }

    /// The receive-side meter's last RMS, once it has measured more than `after` intervals.
    private func receivedRMS(_ run: PipelineRun, after: Int) -> Double? {
        guard let meter = run.filterStatistics.last(where: { $0.filter == "level" }),
            (meter.events["level"] ?? 0) > after
        else { return nil }
        return meter.lastEventFields["level"]?["rms_db"]
    }

    /// Waits (bounded) for a received level past `after` intervals that satisfies `ok`.
    private func waitForLevel(_ run: PipelineRun, after: Int, timeout: Double = 10, _ ok: (Double) -> Bool) async throws -> Double {
        let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
        while ContinuousClock.now < deadline {
            if let rms = receivedRMS(run, after: after), ok(rms) { return rms }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw TimeoutError(last: receivedRMS(run, after: 0))
    }

    private struct TimeoutError: Error, CustomStringConvertible {
        let last: Double?
        var description: String { "the received level did not get there within the timeout (last: \(last.map { "\($0)" } ?? "none"))" }
    }

    /// Changing the gain while the pipeline runs sets it on the running element (no new
    /// element, no renegotiation): the receiver hears −17 dBFS, then about −5 once the gain is 0.
    func testChangingTheGainWhileRunningIsHeardWithoutRenegotiating() async throws {
        try requireLoopbackOnlyNetwork()
        let spec = try load(
            """
            transport: { ice: { addresses: [127.0.0.1] } }
            send:
              audio:
                capture: { kind: test, wave: sine, frequency: 440 }
                filters:
                  - filter: gain
                    db: -12
                encode: { codec: opus, bitrate: 64 }
            receive:
              audio:
                filters:
                  - filter: level
                    interval_ms: 100
            """)
        let run = PipelineRun(spec: spec)
        let stop = StopFlag()
        let task = Task { try await run.run(options: RunOptions(), stop: stop) }
        defer { stop.set() }
        let quiet = try await waitForLevel(run, after: 3) { _ in true }
        XCTAssertEqual(quiet, -16.95, accuracy: 1.5)
        let gainElement = run.filterStatistics.first { $0.filter == "gain" }?.element
        let offers = run.offersMade
        try await run.replaceFilters(
            .send, .audio, with: [FilterSpec(kind: .swift(name: "gain", settings: [FilterSetting(name: "db", value: .number(0))], onError: .pass))])
        let intervals = run.filterStatistics.last { $0.filter == "level" }?.events["level"] ?? 0
        let loud = try await waitForLevel(run, after: intervals + 5) { $0 > -8 }
        XCTAssertEqual(loud, -4.95, accuracy: 1.5)
        XCTAssertEqual(run.filterStatistics.first { $0.filter == "gain" }?.element, gainElement, "the same element runs on")
        XCTAssertEqual(run.offersMade, offers, "no renegotiation")
        stop.set()
        _ = try await task.value
    }
}
