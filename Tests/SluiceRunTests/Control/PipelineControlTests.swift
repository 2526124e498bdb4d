import Foundation
import SluiceTestSupport
import GStreamer
import SluiceFilterKit
import XCTest
@testable import SluiceRun

/// `PipelineControl` on a running in-process loopback: what the control API calls, with
/// what arrives at the receiving webrtcbin as the judge.
final class PipelineControlTests: XCTestCase {
    override func setUp() { _ = TestFilters.registered }

    private func spec() throws -> PipelineSpec {
        try PipelineLoader(environment: [:], catalog: GStreamerCatalog(), filters: FilterRegistry.shared).load(
            yaml: """
                transport: { ice: { addresses: [127.0.0.1] } }
                send:
                  video:
                    capture: { kind: test, pattern: white, width: 320, height: 240, fps: 30 }
                    filters:
                      - filter: pixelate
                        block: 4
                    encode: { codec: vp8, bitrate: 500 }
                  audio:
                    capture: { kind: test }
                    encode: { codec: opus }
                receive:
                  video:
                    filters:
                      - filter: test-luma-probe
                  audio:
                    sink: stats
                """, file: "control.yaml")
    }

    private func waitUntil(_ what: String, timeout: Double = 10, _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
        while ContinuousClock.now < deadline {
            if condition() { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        XCTFail("\(what) did not happen within \(timeout) s")
    }

    func testTheControlsChangeWhatTheOtherSideReceives() async throws {
        try requireLoopbackOnlyNetwork()
        let run = PipelineRun(spec: try spec())
        let stop = StopFlag()
        let events = run.events.subscribe()
        let collector = Task { // read as they come: the luma probe posts an event per frame
            var types: [String] = []
            for await e in events { types.append(e.type) }
            return types
        }
        let task = Task { try await run.run(options: RunOptions(), stop: stop) }
        try await waitUntil("the first frames") { (run.counters?.receiveVideoFrames.load(ordering: .relaxed) ?? 0) > 10 }
        let control = try XCTUnwrap(run.control)

        // What it reports.
        let send = try XCTUnwrap(control.branches.first { $0.side == .send && $0.media == .video })
        XCTAssertEqual(send.encoder, "vp8enc")
        XCTAssertEqual(send.bitrate, 500_000)
        XCTAssertEqual(send.enabled, true)
        XCTAssertEqual(send.filters.map(\.name), ["pixelate"])
        XCTAssertEqual(send.filters.first?.parameters["block"], "4")

        // White arrives white; disabled, black; enabled again, white.
        try await waitUntil("a white picture") { (LumaProbe.lastMean ?? 0) > 200 }
        try control.setTrack(media: .video, enabled: false, volume: nil)
        try await waitUntil("a black picture") { (LumaProbe.lastMean ?? 255) < 24 }
        try control.setTrack(media: .video, enabled: true, volume: nil)
        try await waitUntil("white again") { (LumaProbe.lastMean ?? 0) > 200 }

        // Parameters: set, refused whole when one is wrong.
        try control.setFilterParameters(side: .send, media: .video, index: 0, ["block": "16"])
        XCTAssertEqual(control.branches.first { $0.side == .send && $0.media == .video }?.filters.first?.parameters["block"], "16")
        XCTAssertThrowsError(try control.setFilterParameters(side: .send, media: .video, index: 0, ["block": "8", "size": "3"])) {
            XCTAssertEqual(($0 as? ControlError)?.kind, .invalid)
        }
        XCTAssertThrowsError(try control.setFilterParameters(side: .send, media: .video, index: 0, ["block": "1"])) {
            XCTAssertTrue("\($0)".contains("outside the range"), "\($0)")
        }
        XCTAssertEqual(
            control.branches.first { $0.side == .send && $0.media == .video }?.filters.first?.parameters["block"], "16",
            "nothing of a refused change was applied")
        XCTAssertThrowsError(try control.setFilterParameters(side: .send, media: .video, index: 5, ["block": "8"])) {
            XCTAssertEqual(($0 as? ControlError)?.kind, .notFound)
        }

        // Bitrate, keyframe, volume, a data channel that does not exist.
        try control.setBitrate(media: .video, bitsPerSecond: 200_000)
        XCTAssertEqual(control.branches.first { $0.side == .send && $0.media == .video }?.bitrate, 200_000)
        let n = try await control.requestKeyframe()
        XCTAssertTrue((1...2).contains(try XCTUnwrap(n)), "keyframe was frame \(n ?? -1) after the request")
        try control.setTrack(media: .audio, enabled: nil, volume: 0.25)
        XCTAssertEqual(control.branches.first { $0.media == .audio && $0.side == .send }?.volume, 0.25)
        XCTAssertThrowsError(try control.setTrack(media: .video, enabled: nil, volume: 0.5))
        XCTAssertThrowsError(try control.send("x", onChannel: "none")) { XCTAssertEqual(($0 as? ControlError)?.kind, .notFound) }

        // A filter list from text; an invalid one changes nothing.
        try await control.replaceFilters(side: .send, media: .video, yaml: "- filter: invert\n")
        XCTAssertEqual(control.branches.first { $0.side == .send && $0.media == .video }?.filters.map(\.name), ["invert"])
        do {
            try await control.replaceFilters(side: .send, media: .video, yaml: "- filter: nosuch\n")
            XCTFail("an unknown filter was accepted")
        } catch {
            XCTAssertEqual(error.kind, .invalid)
            XCTAssertTrue(error.diagnostics.first?.hasPrefix("request body:1:") ?? false, "\(error.diagnostics)")
        }
        try await waitUntil("the inverted picture (black)") { (LumaProbe.lastMean ?? 255) < 40 }

        control.stop()
        let summary = try await task.value
        XCTAssertGreaterThan(summary.receive.video?.frames ?? 0, 10)
        let types = await collector.value
        for t in ["state", "track", "filter-parameters", "bitrate", "keyframe", "filters-replaced"] {
            XCTAssertTrue(types.contains(t), "no \(t) event in \(types)")
        }
        XCTAssertEqual(types.last, "state", "the log ends with the stop")
    }
}
