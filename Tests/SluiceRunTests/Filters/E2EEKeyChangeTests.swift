import Foundation
import GStreamer
import SluiceFilterKit
import SluiceTestSupport
import XCTest
@testable import SluiceRun

/// `e2ee`'s keys: checked at validation (`FILE:LINE:COL`), read from files, and changed while
/// the pipeline runs through `PipelineControl` (what the control API's
/// `PATCH …/encoded_filters/{index}` calls): a ratchet step and a new passphrase, with the
/// picture still decoded after each.
final class E2EEKeyChangeTests: XCTestCase {
    override func setUp() { _ = TestFilters.registered }

    private func spec(_ yaml: String) throws -> PipelineSpec {
        try PipelineLoader(environment: [:], catalog: GStreamerCatalog(), filters: FilterRegistry.shared)
            .load(yaml: yaml, file: "a.yaml")
    }

    private func diagnostic(_ keys: String, file: StaticString = #filePath, line: UInt = #line) -> String {
        let yaml = """
            send:
              video:
                capture: { kind: test }
                encode: { codec: vp8 }
                encoded_filters:
                  - filter: e2ee
            \(keys.split(separator: "\n").map { "        " + $0 }.joined(separator: "\n"))
            """
        do {
            _ = try spec(yaml)
            XCTFail("expected an error for \(keys)", file: file, line: line)
            return ""
        } catch {
            return "\(error)"
        }
    }

    func testKeySettingsAreCheckedAtValidationWhereTheyAreWritten() {
        let none = diagnostic("key_index: 1")
        XCTAssertTrue(none.contains("a.yaml:6:") && none.contains("give exactly one of `passphrase`"), none)
        let two = diagnostic("passphrase: a\nkey: 00112233445566778899aabbccddeeff")
        XCTAssertTrue(two.contains("a.yaml:8:") && two.contains("this one gives passphrase and key"), two)
        let file = diagnostic("key_file: /nonexistent/e2ee.key")
        XCTAssertTrue(file.contains("a.yaml:7:") && file.contains("cannot read `key_file` /nonexistent/e2ee.key"), file)
        let hex = diagnostic("key: 0011zz")
        XCTAssertTrue(hex.contains("a.yaml:7:") && hex.contains("16 to 64 bytes written in hex"), hex)
        XCTAssertFalse(two.contains("00112233"), "the key is never echoed: \(two)")
    }

    /// A sender keyed from a passphrase file and a receiver keyed from the same passphrase
    /// written in the file: the painted picture comes back.
    func testAPassphraseFileKeysLikeThePassphrase() async throws {
        try requireLoopbackOnlyNetwork()
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("e2ee-\(UUID().uuidString).txt").path
        try "  sesame\n".write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let summary = try await PipelineRun(spec: spec(pipeline(send: "passphrase_file: \(path)", receive: "passphrase: sesame")))
            .run(options: RunOptions(duration: 3))
        XCTAssertGreaterThan(summary.receive.video?.frames ?? 0, 45)
        XCTAssertEqual(try XCTUnwrap(LumaProbe.lastMean), 70, accuracy: 4, "the decoded picture is the painted one")
    }

    private func pipeline(send: String, receive: String) -> String {
        """
        transport: { ice: { addresses: [127.0.0.1] } }
        send:
          video:
            capture: { kind: test, pattern: snow, width: 320, height: 240, fps: 30 }
            filters:
              - filter: test-paint
                luma: 70
            encode: { codec: vp8, bitrate: 800 }
            encoded_filters:
              - filter: e2ee
                \(send)
        receive:
          video:
            codecs: [vp8]
            encoded_filters:
              - filter: e2ee
                \(receive)
            filters:
              - filter: test-luma-probe
        """
    }

    /// While running: the sender ratchets one step (the receiver follows through its ratchet
    /// window); then the receiver takes a new passphrase first, still opening the sender's
    /// frames with the key it had, and the sender follows. After each change the picture is
    /// still decoded, and hardly a frame fails.
    func testRatchetAndNewPassphraseWhileRunning() async throws {
        try requireLoopbackOnlyNetwork()
        let run = PipelineRun(spec: try spec(pipeline(send: "passphrase: one", receive: "passphrase: one")))
        let stop = StopFlag()
        let task = Task { try await run.run(options: RunOptions(), stop: stop) }
        defer { stop.set() }
        try await waitForDecodedFrames(run, moreThan: 30)
        let control = try XCTUnwrap(run.control)

        try control.setEncodedFilterParameters(side: .send, media: .video, index: 0, ["ratchet": "1"])
        try await waitForDecodedFrames(run, moreThan: decoded(run) + 30)

        try control.setEncodedFilterParameters(side: .receive, media: .video, index: 0, ["passphrase": "two"])
        try await waitForDecodedFrames(run, moreThan: decoded(run) + 30)
        try control.setEncodedFilterParameters(side: .send, media: .video, index: 0, ["passphrase": "two", "ratchet": "0"])
        try await waitForDecodedFrames(run, moreThan: decoded(run) + 30)

        let failed = run.filterStatistics.filter { $0.filter == "e2ee" }.map { $0.events["decrypt-failed"] ?? 0 }.reduce(0, +)
        let refused = run.filterStatistics.filter { $0.filter == "e2ee" }.map { $0.events["settings-refused"] ?? 0 }.reduce(0, +)
        XCTAssertEqual(refused, 0)
        XCTAssertLessThanOrEqual(failed, 2, "at most a frame or two between a sender's two settings")
        XCTAssertEqual(try XCTUnwrap(LumaProbe.lastMean), 70, accuracy: 4, "still the painted picture")
        XCTAssertThrowsError(try control.setEncodedFilterParameters(side: .send, media: .video, index: 3, ["ratchet": "1"]))
        XCTAssertThrowsError(try control.setEncodedFilterParameters(side: .send, media: .video, index: 0, ["ratchet": "65"]))
        stop.set()
        _ = try await task.value
    }

    private func decoded(_ run: PipelineRun) -> Int {
        run.filterStatistics.first { $0.filter == "test-luma-probe" }?.frames.load(ordering: .relaxed) ?? 0
    }

    private func waitForDecodedFrames(_ run: PipelineRun, moreThan count: Int, timeout: Double = 10) async throws {
        let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
        while ContinuousClock.now < deadline {
            if decoded(run) > count { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        XCTFail(
            "the picture stopped: \(decoded(run)) frames decoded, waited for more than \(count); \(run.filterStatistics.map { "\($0.filter): \($0.events)" })")
        throw CancellationError()
    }
}
