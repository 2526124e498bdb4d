import Foundation
import XCTest
@testable import GStreamer

/// The bindings a player needs: waiting for a state, asking position, duration and
/// seekability, and seeking (the Cast receiver's player uses them).
final class PlaybackPositionTests: XCTestCase {
    func testPausedPipelineReportsSeeksAndReportsTheNewPosition() throws {
        let pipeline = Pipeline(name: "player")
        let bin = try Bin.parse(
            "videotestsrc num-buffers=300 ! video/x-raw,width=64,height=48,framerate=30/1 ! fakesink name=out sync=true",
            ghostUnlinkedPads: false)
        try pipeline.add(bin)
        XCTAssertNotEqual(pipeline.setState(.paused), .failure)
        XCTAssertEqual(pipeline.waitForState(timeout: 5), .paused, "prerolled")
        XCTAssertTrue(pipeline.isSeekable(), "videotestsrc seeks in time")
        XCTAssertEqual(pipeline.queryPosition(), 0)
        XCTAssertTrue(pipeline.seek(to: 5_000_000_000))
        XCTAssertEqual(pipeline.waitForState(timeout: 5), .paused)
        let position = try XCTUnwrap(pipeline.queryPosition())
        XCTAssertEqual(Double(position) / 1e9, 5, accuracy: 0.05, "after the seek")
        pipeline.setState(.null)

        // A pipeline that has not started says nothing, rather than 0.
        let idle = Pipeline(name: "idle")
        try idle.add(try Bin.parse("videotestsrc is-live=true ! fakesink", ghostUnlinkedPads: false))
        XCTAssertNil(idle.queryDuration())
        XCTAssertNil(idle.queryPosition())
    }
}
