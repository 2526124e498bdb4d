import GStreamer
import Synchronization
import XCTest
@testable import SluiceRun

/// `FanoutLanes`: a stream's viewers spread over a few threads. Each viewer gets every
/// buffer; lanes are built for their first viewer and removed after their last; a viewer that
/// stalls holds up only its own lane, whose drops are counted for each of its viewers; a
/// viewer that fails stops only itself.
final class FanoutLanesTests: XCTestCase {
    private struct Stream {
        let pipeline: Pipeline
        let tee: Element
    }

    /// A viewer in the test: a fakesink on a pad of its lane's tee, counting what reaches it.
    private final class Viewer: Sendable {
        let seat: FanoutLanes.Seat
        let elements: [Element]
        let pad: Pad
        private let count = Atomic<Int>(0)
        private let failed = Tally()
        private let goal = Mutex<(count: Int, reached: XCTestExpectation)?>(nil)

        /// With `started` false its sink stays stopped (flushing), as a viewer's branch being
        /// torn down: every push into it fails.
        init(on lanes: FanoutLanes, in pipeline: Pipeline, isolated: Bool = false, started: Bool = true) throws {
            seat = try lanes.join()
            let sink = try Element.make("fakesink")
            try sink.set("sync", false)
            // Not async: a sink that prerolls makes the pipeline finish a state change later,
            // from another thread, which could restart a lane's queue while it is being removed
            // (as a viewer's webrtcbin, whose sink is not async, never does).
            try sink.set("async", false)
            elements = [sink]
            try pipeline.add(elements)
            if started { sink.syncStateWithParent() }
            pad = try XCTUnwrap(seat.tee.requestPad("src_%u"))
            let entrance = try XCTUnwrap(elements[0].staticPad("sink"))
            if isolated { pad.isolate(into: entrance) { [failed] _ in failed.n.add(1, ordering: .relaxed) } }
            try pad.link(entrance)
            // Weak: the probe lives as long as the sink, which this viewer holds.
            try XCTUnwrap(sink.staticPad("sink")).addProbe(.buffer) { [weak self] _ in
                guard let self else { return .ok }
                let n = count.add(1, ordering: .relaxed).newValue
                goal.withLock { g in
                    if let wanted = g, n >= wanted.count {
                        wanted.reached.fulfill()
                        g = nil
                    }
                }
                return .ok
            }
        }

        var received: Int { count.load(ordering: .relaxed) }
        var failures: Int { failed.n.load(ordering: .relaxed) }

        /// Fulfilled once `more` buffers beyond those it has now have reached it.
        func expect(_ more: Int, _ test: XCTestCase, _ what: String) -> XCTestExpectation {
            let e = test.expectation(description: what)
            goal.withLock { $0 = (received + more, e) }
            return e
        }

        func leave(_ stream: Stream) {
            stream.pipeline.removeBranch(elements, teePads: [(seat.tee, pad)])
            seat.leave()
        }
    }

    private final class Tally: Sendable {
        let n = Atomic<Int>(0)
    }

    /// A live test pattern at 100 frames a second into the stream's tee.
    private func runningStream() throws -> Stream {
        Gst.initialize()
        let pipeline = Pipeline(name: "lanes")
        let source = try Element.make("videotestsrc"), caps = try Element.make("capsfilter"), tee = try Element.make("tee")
        try source.set("is-live", true)
        try caps.set("caps", fromString: "video/x-raw,width=64,height=48,framerate=100/1")
        try tee.set("allow-not-linked", true)
        try pipeline.add([source, caps, tee])
        try Element.link([source, caps, tee])
        XCTAssertNotEqual(pipeline.setState(.playing), .failure)
        return Stream(pipeline: pipeline, tee: tee)
    }

    func testViewersAreSpreadOverTheLanesEachGetsEveryBufferAndTheLastToLeaveRemovesItsLane() throws {
        let stream = try runningStream()
        defer { stream.pipeline.setState(.null) }
        let before = stream.pipeline.children.count
        let lanes = FanoutLanes(tee: stream.tee, in: stream.pipeline, count: 2)
        let viewers = try (0..<3).map { _ in try Viewer(on: lanes, in: stream.pipeline) }
        XCTAssertEqual(lanes.occupancy.sorted(), [1, 2], "each new viewer goes to the emptier lane")
        XCTAssertEqual(stream.tee.pads.filter { $0.direction == .src }.count, 2, "one pad of the stream's tee per lane, not per viewer")
        wait(for: viewers.enumerated().map { i, v in v.expect(30, self, "viewer \(i) gets 30 frames") }, timeout: 10)

        viewers[0].leave(stream)
        viewers[1].leave(stream)
        XCTAssertEqual(lanes.occupancy.reduce(0, +), 1)
        wait(for: [viewers[2].expect(10, self, "the viewer left alone still gets frames")], timeout: 10)
        viewers[2].leave(stream)
        XCTAssertEqual(lanes.occupancy, [0, 0])
        XCTAssertEqual(stream.pipeline.children.count, before, "the lanes' queues and tees left the pipeline with their last viewer")
        XCTAssertEqual(stream.tee.pads.filter { $0.direction == .src }.count, 0, "the lanes gave their pads back")

        let again = try Viewer(on: lanes, in: stream.pipeline)
        wait(for: [again.expect(10, self, "a lane is built again for a new viewer")], timeout: 10)
        again.leave(stream)
    }

    /// Honest about what sharing a thread means: a viewer whose branch stalls holds up the
    /// viewers on its lane (its queue then drops, and each drop counts for each of them),
    /// while the stream and the other lanes go on.
    func testAStalledViewerHoldsUpOnlyItsOwnLaneWhoseDropsAreCounted() throws {
        let stream = try runningStream()
        defer { stream.pipeline.setState(.null) }
        let lanes = FanoutLanes(tee: stream.tee, in: stream.pipeline, count: 2)
        let stalled = try Viewer(on: lanes, in: stream.pipeline)
        let elsewhere = try Viewer(on: lanes, in: stream.pipeline)
        let mate = try Viewer(on: lanes, in: stream.pipeline)
        XCTAssertTrue(mate.seat.lane === stalled.seat.lane && elsewhere.seat.lane !== stalled.seat.lane)
        let traffic = ViewerTraffic()
        traffic.countOverruns(of: mate.seat.lane)
        wait(for: [mate.expect(10, self, "the lane flows")], timeout: 10)

        let block = stalled.pad.addProbe([.block, .buffer]) { _ in .ok }
        wait(for: [elsewhere.expect(80, self, "the other lane goes on")], timeout: 10)
        let held = mate.received
        XCTAssertGreaterThan(traffic.totals.queueOverruns, 20, "the stalled lane's queue (30 buffers) overflowed and counted its drops")
        stalled.pad.removeProbe(block)
        wait(for: [mate.expect(10, self, "the lane resumes once the viewer does")], timeout: 10)
        XCTAssertLessThan(held, mate.received)
        for v in [stalled, elsewhere, mate] { v.leave(stream) }
    }

    func testAViewerThatFailsStopsOnlyItself() throws {
        let stream = try runningStream()
        defer { stream.pipeline.setState(.null) }
        let lanes = FanoutLanes(tee: stream.tee, in: stream.pipeline, count: 1)
        let failing = try Viewer(on: lanes, in: stream.pipeline, isolated: true, started: false)
        let mate = try Viewer(on: lanes, in: stream.pipeline, isolated: true)
        wait(for: [mate.expect(50, self, "its lane mate keeps getting frames")], timeout: 10)
        XCTAssertEqual(failing.received, 0)
        XCTAssertEqual(failing.failures, 1, "its failure was reported once, then its pad dropped")
        for v in [failing, mate] { v.leave(stream) }
    }
}
