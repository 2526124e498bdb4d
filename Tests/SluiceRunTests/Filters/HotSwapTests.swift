import Foundation
import SluiceTestSupport
import GStreamer
import SluiceFilterKit
import XCTest
@testable import SluiceRun

/// Replacing a running pipeline's filter chain: no stop, no renegotiation, no lost frames.
final class HotSwapTests: XCTestCase {
    override func setUp() { _ = TestFilters.registered }

    private func spec() throws -> PipelineSpec {
        try PipelineLoader(environment: [:], catalog: GStreamerCatalog(), filters: FilterRegistry.shared).load(
            yaml: """
                transport: { ice: { addresses: [127.0.0.1] } }
                send:
                  video:
                    capture: { kind: test, pattern: ball, width: 320, height: 240, fps: 30 }
                    filters:
                      - filter: grayscale
                    encode: { codec: vp8, bitrate: 500 }
                receive:
                  video:
                    filters:
                      - filter: test-luma-probe
                """, file: "swap.yaml")
    }

    private func filter(_ name: String, _ settings: [String: FilterValue] = [:]) -> FilterSpec {
        FilterSpec(kind: .swift(name: name, settings: settings.map { FilterSetting(name: $0.key, value: $0.value) }, onError: .pass))
    }

    /// Waits (bounded) until the running pipeline has passed `frames` more frames.
    private func waitForFrames(_ run: PipelineRun, atLeast frames: Int, timeout: Double = 10) async throws {
        let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
        while ContinuousClock.now < deadline {
            if let c = run.counters, c.receiveVideoFrames.load(ordering: .relaxed) >= frames { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        XCTFail("fewer than \(frames) frames arrived within \(timeout) s")
    }

    func testFilterChainIsReplacedWhileFramesFlow() async throws {
        try requireLoopbackOnlyNetwork()
        let run = PipelineRun(spec: try spec())
        let stop = StopFlag()
        let task = Task { try await run.run(options: RunOptions(), stop: stop) }

        try await waitForFrames(run, atLeast: 15)
        let negotiationsBefore = run.negotiationRequests
        XCTAssertEqual(run.offersMade, 1)

        // insert, reorder, reconfigure, remove all, then put one back; frames flow between.
        let steps: [[FilterSpec]] = [
            [filter("grayscale"), filter("invert")],
            [filter("invert"), filter("grayscale")],
            [filter("invert"), filter("pixelate", ["block": .integer(8)])],
            [filter("invert"), filter("pixelate", ["block": .integer(32)])],
            [],
            [filter("test-paint", ["luma": .integer(40)])]
        ]
        var received = run.counters?.receiveVideoFrames.load(ordering: .relaxed) ?? 0
        for filters in steps {
            try await run.replaceFilters(.send, .video, with: filters)
            received += 8
            try await waitForFrames(run, atLeast: received)
        }
        // The last chain's effect arrives: painted luma 40.
        try await waitForFrames(run, atLeast: received + 10)
        XCTAssertEqual(try XCTUnwrap(LumaProbe.lastMean), 40, accuracy: 5)

        // Swap the receive side too.
        try await run.replaceFilters(.receive, .video, with: [filter("invert"), filter("test-luma-probe")])
        try await waitForFrames(run, atLeast: received + 25)
        XCTAssertEqual(try XCTUnwrap(LumaProbe.lastMean), 215, accuracy: 5, "inverted on the receive side")

        XCTAssertEqual(run.offersMade, 1, "no new offer: the WebRTC session was not renegotiated")
        XCTAssertEqual(run.negotiationRequests, negotiationsBefore, "webrtcbin never asked to renegotiate")
        let counters = try XCTUnwrap(run.counters)
        let captured = counters.captureVideoFrames.load(ordering: .relaxed)
        let filtered = counters.filteredVideoFrames.load(ordering: .relaxed)
        XCTAssertLessThanOrEqual(captured - filtered, 1, "at most the frame in flight: captured \(captured), filtered \(filtered)")

        stop.set()
        let summary = try await task.value
        XCTAssertEqual(summary.receive.video?.width, 320, "the format never changed")
        let sent = try XCTUnwrap(summary.send.video?.frames), got = try XCTUnwrap(summary.receive.video?.frames)
        XCTAssertGreaterThanOrEqual(Double(got), 0.97 * Double(sent))
        XCTAssertGreaterThanOrEqual(summary.filters.count, 10, "every swapped-in filter is reported")
    }

    func testSwapToAnUnknownFilterFailsAndKeepsTheChain() async throws {
        try requireLoopbackOnlyNetwork()
        let run = PipelineRun(spec: try spec())
        let stop = StopFlag()
        let task = Task { try await run.run(options: RunOptions(), stop: stop) }
        try await waitForFrames(run, atLeast: 10)
        do {
            try await run.replaceFilters(.send, .video, with: [filter("no-such-filter")])
            XCTFail("an unknown filter must be refused")
        } catch {
            XCTAssertTrue(error.message.contains("no-such-filter"), error.message)
        }
        let before = run.counters?.receiveVideoFrames.load(ordering: .relaxed) ?? 0
        try await waitForFrames(run, atLeast: before + 15)
        stop.set()
        let summary = try await task.value
        XCTAssertEqual(summary.filters.first?.filter, "grayscale", "the original chain kept running")
    }
}
