import GStreamer
import SluiceTestSupport
import XCTest
@testable import SluiceRun

/// Runtime negotiation outcomes that validation cannot see (a remote peer's codecs are
/// only known from its answer). Runs in-process, so it needs the loopback-only namespace.
final class NegotiationTests: XCTestCase {
    private func loopbackSpec() throws -> PipelineSpec {
        let yaml = """
            transport:
              ice: { addresses: [127.0.0.1], connect_timeout: 5 }
            send:
              video:
                capture: { kind: test, width: 320, height: 240, fps: 30 }
                encode: { codec: vp8, bitrate: 500 }
            receive:
              video: { sink: stats }
            """
        return try PipelineLoader(environment: [:], catalog: GStreamerCatalog()).load(yaml: yaml, file: "test.yaml")
    }

    func testAnswerRejectingTheMediaLineIsAnErrorNamingCodecs() async throws {
        try requireLoopbackOnlyNetwork()
        var spec = try loopbackSpec()
        spec.receive?.video?.codecs = [.h264] // what a remote H.264-only peer would accept
        do {
            _ = try await PipelineRun(spec: spec).run(options: RunOptions(duration: 2))
            XCTFail("negotiation should have failed")
        } catch {
            XCTAssertTrue(error.message.contains("video media line"), error.message)
            XCTAssertTrue(error.message.contains("no common codec"), error.message)
            XCTAssertTrue(error.message.contains("VP8"), error.message)
            XCTAssertTrue(error.message.contains("H264"), error.message)
        }
    }

    func testLoopbackRunReportsWhatItDelivered() async throws {
        try requireLoopbackOnlyNetwork()
        let lines = LineCounter()
        let summary = try await PipelineRun(spec: try loopbackSpec())
            .run(options: RunOptions(duration: 3, statsInterval: 1)) { _ in lines.add() }
        XCTAssertGreaterThanOrEqual(lines.count, 1, "live statistics must tick while running")
        let sent = try XCTUnwrap(summary.send.video?.frames)
        let received = try XCTUnwrap(summary.receive.video?.frames)
        XCTAssertGreaterThan(sent, 45)
        XCTAssertGreaterThanOrEqual(Double(received), 0.9 * Double(sent))
        XCTAssertEqual(summary.receive.video?.width, 320)
        XCTAssertGreaterThan(summary.network.bytes_sent, 0)
        XCTAssertNotNil(summary.time_to_first_frame_ms)
    }
}

final class LineCounter: @unchecked Sendable { // guarded by lock
    private let lock = NSLock()
    private var n = 0
    func add() { lock.lock(); n += 1; lock.unlock() }
    var count: Int { lock.lock(); defer { lock.unlock() }; return n }
}
