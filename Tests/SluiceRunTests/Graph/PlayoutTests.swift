import Foundation
import GStreamer
import SluiceTestSupport
import XCTest
@testable import SluiceRun

/// `receive.playout: lip-sync` in process: a clocksync after each decoder, aligned after each
/// latency recalculation (`GraphBuilder.alignPlayout`). What it plays is measured by
/// `MeasureEndToEndTests.testLipSyncedPlayoutPlaysSoundAndPictureTogether`; here, that picture
/// and sound go through it for the whole run and the run ends cleanly (memcheck runs it).
final class PlayoutTests: XCTestCase {
    func testLipSyncedPictureAndSoundFlowToTheEnd() async throws {
        try requireLoopbackOnlyNetwork()
        let spec = try PipelineLoader(environment: [:], catalog: GStreamerCatalog(), filters: FilterRegistry.shared)
            .load(
                yaml: """
                    transport: { ice: { addresses: [127.0.0.1] } }
                    send:
                      video: { capture: { kind: test, width: 320, height: 240, fps: 30 }, encode: { codec: vp8 } }
                      audio: { capture: { kind: test } }
                    receive:
                      playout: lip-sync
                      video: { sink: stats }
                      audio: { sink: stats }
                    """, file: "test.yaml")
        XCTAssertEqual(spec.receive?.playout, .lipSync)
        let summary = try await PipelineRun(spec: spec).run(options: RunOptions(duration: 3))
        XCTAssertGreaterThan(summary.receive.video?.frames ?? 0, 45, "the picture went through the playout clocksync")
        XCTAssertGreaterThan(summary.receive.audio?.buffers ?? 0, 100, "and the sound")
    }
}
