import GStreamer
import Synchronization
import XCTest
@testable import SluiceRun

/// A served viewer's traffic figures: leaky-queue drops counted as they happen, totals that
/// add up, and the spread of round trips.
final class ViewerTrafficTests: XCTestCase {
    /// A viewer branch's queue whose output is stuck (a blocking probe, as a viewer that
    /// stopped reading): of 40 frames, 1 is held at the blocked pad, 5 fill the queue, and
    /// each of the other 34 makes it drop its oldest. The count is exact.
    func testLeakyQueueDropsAreCountedOnePerOverrun() throws {
        Gst.initialize()
        let pipeline = Pipeline(name: "overruns")
        let src = try Element.make("videotestsrc")
        try src.set("num-buffers", Int32(40))
        let queue = try Element.make("queue")
        try queue.set("leaky", fromString: "downstream")
        try queue.set("max-size-buffers", UInt32(5))
        try queue.set("max-size-bytes", UInt32(0))
        try queue.set("max-size-time", UInt64(0))
        let sink = try Element.make("fakesink")
        try pipeline.add([src, queue, sink])
        try Element.link([src, queue, sink])
        let traffic = ViewerTraffic()
        traffic.countOverruns(of: queue)
        let blocked = try XCTUnwrap(queue.staticPad("src"))
        let probe = blocked.addProbe([.block, .buffer]) { _ in .ok }
        // The source has pushed everything once its EOS passes its own pad.
        let ended = expectation(description: "the source pushed all 40 frames")
        let once = OnceFlag()
        try XCTUnwrap(src.staticPad("src")).addProbe(.eventDownstream) { info in
            if info.event == .eos, once.set() { ended.fulfill() }
            return .ok
        }
        pipeline.setState(.playing)
        wait(for: [ended], timeout: 10)
        XCTAssertEqual(traffic.totals.queueOverruns, 34)
        blocked.removeProbe(probe)
        pipeline.setState(.null)
    }

    func testTotalsAddUpAndSpreadsAreMedianAndMax() {
        let a = TrafficTotals(packetsSent: 10, bytesSent: 1000, packetsLost: 1, nacks: 2, plis: 1, firs: 0, rtxPackets: 2, queueOverruns: 3)
        let b = TrafficTotals(packetsSent: 5, bytesSent: 500, packetsLost: 0, nacks: 1, plis: 0, firs: 1, rtxPackets: 1, queueOverruns: 0)
        XCTAssertEqual(
            a + b,
            TrafficTotals(
                packetsSent: 15, bytesSent: 1500, packetsLost: 1, nacks: 3, plis: 1, firs: 1,
                rtxPackets: 3, queueOverruns: 3))
        XCTAssertNil(ViewerTrafficReport.medianAndMax([]))
        XCTAssertEqual(ViewerTrafficReport.medianAndMax([0.3, 0.1, 0.2])?.median, 0.2)
        XCTAssertEqual(ViewerTrafficReport.medianAndMax([0.4, 0.1, 0.2, 0.3])?.median ?? 0, 0.25, accuracy: 1e-12)
        XCTAssertEqual(ViewerTrafficReport.medianAndMax([0.4, 0.1])?.max, 0.4)
    }
}

/// True the first time only (shared by the tests of this module).
final class OnceFlag: Sendable {
    private let done = Atomic<Bool>(false)
    func set() -> Bool { !done.exchange(true, ordering: .relaxed) }
}
