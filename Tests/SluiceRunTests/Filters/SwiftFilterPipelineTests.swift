import Foundation
import SluiceTestSupport
import GStreamer
import SluiceFilterKit
import XCTest
@testable import SluiceRun

/// Swift filters inside real pipelines over WebRTC loopback (in-process; the suite runs
/// in a loopback-only namespace).
final class SwiftFilterPipelineTests: XCTestCase {
    override func setUp() { _ = TestFilters.registered }

    private func spec(_ yaml: String) throws -> PipelineSpec {
        try PipelineLoader(environment: [:], catalog: GStreamerCatalog(), filters: FilterRegistry.shared)
            .load(yaml: yaml, file: "test.yaml")
    }

    private func events(_ summary: RunSummary, filter: String, event: String) -> Int {
        summary.filters.filter { $0.filter == filter }.map { $0.events[event] ?? 0 }.reduce(0, +)
    }

    /// paint(200) → invert → grayscale on the send side; the receiver measures mean luma of
    /// the decoded frames: 255 - 200 = 55 (grayscale leaves YUV luma alone), within codec error.
    func testChainOfThreeSwiftFiltersShowsItsEffectAfterDecoding() async throws {
        try requireLoopbackOnlyNetwork()
        let s = try spec(
            """
            transport: { ice: { addresses: [127.0.0.1] } }
            send:
              video:
                capture: { kind: test, pattern: snow, width: 320, height: 240, fps: 30 }
                filters:
                  - filter: test-paint
                    luma: 200
                  - filter: invert
                  - filter: grayscale
                encode: { codec: vp8, bitrate: 800 }
            receive:
              video:
                filters:
                  - filter: test-luma-probe
            """)
        let summary = try await PipelineRun(spec: s).run(options: RunOptions(duration: 3))
        XCTAssertGreaterThan(summary.receive.video?.frames ?? 0, 45)
        let reads = events(summary, filter: "test-luma-probe", event: "luma")
        XCTAssertGreaterThan(reads, 45, "the receive-side filter ran on decoded frames")
        // The probe's events carry the mean; read the last values from the bus-free stats path.
        let frames = summary.filters.first { $0.filter == "test-paint" }?.frames ?? 0
        XCTAssertGreaterThan(frames, 45)
        XCTAssertEqual(summary.filters.map(\.filter), ["test-paint", "invert", "grayscale", "test-luma-probe"])
        let mean = try XCTUnwrap(LumaProbe.lastMean)
        XCTAssertEqual(mean, 55, accuracy: 4, "decoded luma should be 255 - 200")
    }

    func testThrowingFilterUnderEachPolicy() async throws {
        try requireLoopbackOnlyNetwork()
        func run(_ policy: String) async throws -> RunSummary {
            try await PipelineRun(
                spec: spec(
                    """
                    transport: { ice: { addresses: [127.0.0.1] } }
                    send:
                      video:
                        capture: { kind: test, width: 160, height: 120, fps: 30 }
                        filters:
                          - filter: test-throwing
                            every: 3
                            on_error: \(policy)
                        encode: { codec: vp8, bitrate: 300 }
                    """)
            ).run(options: RunOptions(duration: 2))
        }
        // pass: every frame goes on, errors are counted.
        let pass = try await run("pass")
        let passStats = try XCTUnwrap(pass.filters.first)
        XCTAssertGreaterThan(passStats.errors, 10)
        XCTAssertEqual(passStats.dropped, 0)
        XCTAssertEqual(pass.send.video?.filtered, pass.send.video?.captured, "pass keeps every frame")
        XCTAssertTrue(passStats.last_error?.contains("boom") ?? false)

        // drop: the failing frames (one in three) are dropped.
        let drop = try await run("drop")
        let dropStats = try XCTUnwrap(drop.filters.first)
        XCTAssertGreaterThan(dropStats.errors, 10)
        XCTAssertEqual(dropStats.dropped, dropStats.errors)
        let captured = try XCTUnwrap(drop.send.video?.captured), filtered = try XCTUnwrap(drop.send.video?.filtered)
        XCTAssertEqual(Double(filtered), Double(captured) * 2 / 3, accuracy: 2)

        // fail: the run stops with the filter's error, and the runner survives to report it.
        do {
            _ = try await run("fail")
            XCTFail("on_error: fail must stop the run")
        } catch let error as RunError {
            XCTAssertTrue(error.message.contains("boom"), error.message)
            XCTAssertTrue(error.message.contains("test-throwing"), error.message)
        }
    }

    func testSwiftFilterWorksByNameInsideAGstFragment() async throws {
        try requireLoopbackOnlyNetwork()
        let summary = try await PipelineRun(
            spec: spec(
                """
                transport: { ice: { addresses: [127.0.0.1] } }
                send:
                  video:
                    capture: { kind: test, width: 160, height: 120, fps: 30 }
                    filters:
                      - gst: "sluice-invert ! sluice-pixelate block=8 region=<0,0,80,60>"
                    encode: { codec: vp8, bitrate: 300 }
                """)
        ).run(options: RunOptions(duration: 2))
        XCTAssertGreaterThan(summary.receive.video?.frames ?? 0, 30)
        // Fragments make their own elements (not tracked as pipeline-file filters), so check
        // the frames flowed through the filter stage.
        XCTAssertEqual(summary.send.video?.filtered, summary.send.video?.captured)
    }

    func testSwiftSourceDrawsTheSceneOverWebRTC() async throws {
        try requireLoopbackOnlyNetwork()
        let summary = try await PipelineRun(
            spec: spec(
                """
                transport: { ice: { addresses: [127.0.0.1] } }
                send:
                  video:
                    capture: { kind: swift, name: scene, width: 320, height: 240, fps: 30, speed: 8 }
                    filters:
                      - filter: motion
                        threshold: 0.001
                    encode: { codec: vp8, bitrate: 500 }
                """)
        ).run(options: RunOptions(duration: 3))
        let received = try XCTUnwrap(summary.receive.video?.frames)
        XCTAssertGreaterThan(received, 60, "paced live at about 30 fps")
        XCTAssertLessThanOrEqual(summary.send.video?.captured ?? 0, 3 * 30 + 10, "not faster than its fps")
        XCTAssertEqual(summary.receive.video?.width, 320)
        XCTAssertGreaterThan(events(summary, filter: "motion", event: "motion"), 30, "a moving scene moves")
    }

    /// framestamp → VP8/H.264 at 720p and 2 Mbit/s → decode → framestamp-read: at least 99%
    /// of decoded frames give back their number.
    func testFramestampSurvivesEncodingAt720p() async throws {
        try requireLoopbackOnlyNetwork()
        for codec in ["vp8", "h264"] {
            let summary = try await PipelineRun(
                spec: spec(
                    """
                    transport: { ice: { addresses: [127.0.0.1] } }
                    send:
                      video:
                        capture: { kind: test, pattern: ball, width: 1280, height: 720, fps: 30 }
                        filters:
                          - filter: framestamp
                        encode: { codec: \(codec), bitrate: 2000 }
                    receive:
                      video:
                        filters:
                          - filter: framestamp-read
                    """)
            ).run(options: RunOptions(duration: 4))
            let decoded = try XCTUnwrap(summary.receive.video?.frames)
            let read = events(summary, filter: "framestamp-read", event: "framestamp")
            XCTAssertGreaterThan(decoded, 60, codec)
            XCTAssertGreaterThanOrEqual(Double(read), 0.99 * Double(decoded), "\(codec): read \(read) of \(decoded)")
        }
    }
}
