import CGStreamer
import Foundation
import Synchronization
import XCTest
@testable import GStreamer

/// `Pad.isolate` (a failing tee branch cannot stop the others) and
/// `Bus.handleSynchronously` (nothing queues on a long-lived pipeline's bus).
final class IsolationAndBusTests: XCTestCase {
    /// videotestsrc (50 buffers) → tee → [good: fakesink] and [bad: identity error-after=5].
    /// Returns the buffers the good branch got, the bad branch's first failure, and EOS.
    func run(isolated: Bool) async throws -> (good: Int, failure: FlowReturn?, eos: Bool) {
        let pipeline = Pipeline(name: "iso")
        let src = try Element.make("videotestsrc"), tee = try Element.make("tee")
        try src.set("num-buffers", 50)
        let goodQueue = try Element.make("queue"), good = try Element.make("fakesink")
        let bad = try Element.make("identity"), badSink = try Element.make("fakesink")
        try bad.set("error-after", 5)
        try pipeline.add([src, tee, goodQueue, good, bad, badSink])
        try src.link(tee, filter: try Caps("video/x-raw,width=32,height=24"))
        try Element.link([goodQueue, good])
        try bad.link(badSink)
        let goodPad = try XCTUnwrap(tee.requestPad("src_%u")), badPad = try XCTUnwrap(tee.requestPad("src_%u"))
        try goodPad.link(goodQueue.staticPad("sink")!)
        try badPad.link(bad.staticPad("sink")!)
        let failure = Mutex<FlowReturn?>(nil)
        if isolated { badPad.isolate(into: bad.staticPad("sink")!) { f in failure.withLock { $0 = f } } }
        let count = Atomic<Int>(0)
        good.staticPad("sink")!.addProbe { (info: borrowing Pad.ProbeInfo) in
            if info.buffer != nil { count.add(1, ordering: .relaxed) }
            return .ok
        }
        XCTAssertNotEqual(pipeline.setState(.playing), .failure)
        var eos = false
        let deadline = ContinuousClock.now + .seconds(10)
        for await m in pipeline.bus.messages() {
            if m.kind == .eos { eos = true; break }
            // Without isolation the tee's error stops the source: no EOS will come.
            if m.kind == .error, m.sourceName == "videotestsrc0" || !isolated { break }
            if ContinuousClock.now > deadline { break }
        }
        pipeline.setState(.null)
        return (count.load(ordering: .relaxed), failure.withLock { $0 }, eos)
    }

    func testAFailingBranchStopsTheWholeTeeWithoutIsolation() async throws {
        let r = try await run(isolated: false)
        XCTAssertLessThan(r.good, 50, "the control: a plain tee passes the error upstream")
    }

    func testAnIsolatedBranchFailsAloneAndTheOthersGetEverything() async throws {
        let r = try await run(isolated: true)
        XCTAssertEqual(r.good, 50)
        XCTAssertTrue(r.eos)
        XCTAssertEqual(r.failure?.raw, -5, "GST_FLOW_ERROR")
        XCTAssertEqual(r.failure?.description, "error")
    }

    /// A branch that joins a running tee and refuses the stream's caps (an appsink that
    /// takes audio only) fails when the tee pushes it the sticky events with the next buffer.
    /// Isolated (before linking, as Sluice does), that is its failure alone, not-negotiated,
    /// and the tee goes on pushing to the other branch to the end of the stream.
    func testAnIsolatedBranchThatRefusesTheCapsFailsAlone() async throws {
        let pipeline = Pipeline(name: "iso-caps")
        let src = try Element.make("videotestsrc"), tee = try Element.make("tee"), good = try Element.make("fakesink")
        try good.set("sync", false)
        try src.set("num-buffers", 100)
        try src.set("is-live", true)
        let bad = try Element.make("appsink")
        try bad.set("caps", fromString: "audio/x-raw")
        try bad.set("sync", false)
        try bad.set("async", false) // unlinked at first: it must not hold the pipeline's preroll
        try pipeline.add([src, tee, good, bad])
        try src.link(tee, filter: try Caps("video/x-raw,width=32,height=24,framerate=100/1"))
        try XCTUnwrap(tee.requestPad("src_%u")).link(good.staticPad("sink")!)
        let count = Atomic<Int>(0)
        good.staticPad("sink")!.addProbe { (info: borrowing Pad.ProbeInfo) in
            if info.buffer != nil { count.add(1, ordering: .relaxed) }
            return .ok
        }
        XCTAssertNotEqual(pipeline.setState(.playing), .failure)
        let deadline = ContinuousClock.now + .seconds(10)
        while count.load(ordering: .relaxed) < 10, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        XCTAssertGreaterThanOrEqual(count.load(ordering: .relaxed), 10, "the stream flows before the bad branch joins")
        let failure = Mutex<FlowReturn?>(nil)
        let badPad = try XCTUnwrap(tee.requestPad("src_%u"))
        badPad.dropReconfigure()
        badPad.isolate(into: bad.staticPad("sink")!) { f in failure.withLock { $0 = f } }
        // Linked without the caps check a plain link makes (it would refuse to link at all).
        let linked = gst_pad_link_full(
            badPad.pointer.assumingMemoryBound(to: GstPad.self), bad.staticPad("sink")!.pointer.assumingMemoryBound(to: GstPad.self),
            GST_PAD_LINK_CHECK_NOTHING)
        XCTAssertEqual(linked, GST_PAD_LINK_OK)
        var eos = false
        for await m in pipeline.bus.messages() {
            if m.kind == .eos { eos = true; break }
            if m.kind == .error || ContinuousClock.now > deadline { break }
        }
        pipeline.setState(.null)
        XCTAssertTrue(eos, "the stream reached its end")
        XCTAssertEqual(count.load(ordering: .relaxed), 100, "the other branch got every buffer")
        XCTAssertEqual(failure.withLock { $0 }?.description, "not-negotiated")
    }

    /// Linking a new branch to a running tee sends RECONFIGURE upstream, which makes the
    /// elements before the tee negotiate again across every branch; `dropReconfigure` on the
    /// new tee pad keeps it there, and the new branch still gets the stream.
    func testDropReconfigureKeepsAJoiningBranchFromRenegotiatingUpstream() async throws {
        for dropping in [false, true] {
            let pipeline = Pipeline(name: "reconfigure-\(dropping)")
            let src = try Element.make("videotestsrc"), tee = try Element.make("tee"), first = try Element.make("fakesink")
            try src.set("is-live", true)
            try first.set("async", false)
            try pipeline.add([src, tee, first])
            try src.link(tee, filter: try Caps("video/x-raw,width=32,height=24,framerate=30/1"))
            try XCTUnwrap(tee.requestPad("src_%u")).link(try XCTUnwrap(first.staticPad("sink")))
            let reconfigures = Atomic<Int>(0)
            try XCTUnwrap(tee.staticPad("sink")).addProbe(.eventUpstream) { (info: borrowing Pad.ProbeInfo) in
                if info.event == .reconfigure { reconfigures.add(1, ordering: .relaxed) }
                return .ok
            }
            XCTAssertNotEqual(pipeline.setState(.playing), .failure)
            try await waitUntil(seconds: 5) { first.staticPad("sink")?.currentCaps != nil }
            let before = reconfigures.load(ordering: .relaxed)

            let joining = try Element.make("fakesink")
            try joining.set("async", false)
            try pipeline.add([joining])
            joining.syncStateWithParent()
            let got = Atomic<Int>(0)
            let sink = try XCTUnwrap(joining.staticPad("sink"))
            sink.addProbe { (info: borrowing Pad.ProbeInfo) in
                if info.buffer != nil { got.add(1, ordering: .relaxed) }
                return .ok
            }
            let pad = try XCTUnwrap(tee.requestPad("src_%u"))
            if dropping { pad.dropReconfigure() }
            try pad.link(sink)
            let reached = reconfigures.load(ordering: .relaxed) - before
            try await waitUntil(seconds: 5) { got.load(ordering: .relaxed) >= 3 }
            pipeline.setState(.null)
            if dropping {
                XCTAssertEqual(reached, 0, "the joining branch's RECONFIGURE stopped at its tee pad")
            } else {
                XCTAssertGreaterThan(reached, 0, "the control: linking sends RECONFIGURE through the tee")
            }
        }
    }

    private func waitUntil(seconds: Double, _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while !condition() {
            guard ContinuousClock.now < deadline else { return XCTFail("not within \(seconds) s") }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Every message reaches the handler and none stays queued (a queued message would hold
    /// the element that posted it; the memcheck's leaks tracer checks the objects).
    func testSynchronousHandlingLeavesNothingOnTheBus() async throws {
        let seen = Mutex<[Message.Kind]>([])
        do {
            let pipeline = Pipeline(name: "bus")
            pipeline.bus.handleSynchronously { m in seen.withLock { $0.append(m.kind) } }
            let src = try Element.make("fakesrc"), sink = try Element.make("fakesink")
            try src.set("num-buffers", 3)
            try pipeline.add([src, sink])
            try src.link(sink)
            pipeline.setState(.playing)
            let deadline = ContinuousClock.now + .seconds(5)
            while !seen.withLock({ $0.contains(.eos) }), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
            XCTAssertNil(pipeline.bus.pop(timeout: 0), "nothing is queued")
            pipeline.setState(.null)
        }
        XCTAssertTrue(seen.withLock { $0.contains(.eos) && $0.contains(.stateChanged) })
    }

    /// `messages(of:)` gives only the kinds asked for, in order; the state changes, stream
    /// starts and the rest that a playing pipeline posts first never reach the consumer.
    func testMessagesOfSomeKindsSkipTheOthers() async throws {
        let pipeline = Pipeline(name: "filtered")
        let src = try Element.make("fakesrc"), sink = try Element.make("fakesink")
        try src.set("num-buffers", 3)
        try pipeline.add([src, sink])
        try src.link(sink)
        // Posted first: EOS may come as soon as the pipeline plays.
        XCTAssertTrue(Message.postApplication(from: src, try Structure("sluice-test, n=(int)1")))
        pipeline.setState(.playing)
        defer { pipeline.setState(.null) }
        var kinds: [Message.Kind] = []
        let deadline = ContinuousClock.now + .seconds(5)
        for await m in pipeline.bus.messages(of: [.application, .eos]) {
            kinds.append(m.kind)
            if m.kind == .eos || ContinuousClock.now > deadline { break }
        }
        XCTAssertEqual(kinds, [.application, .eos], "state changes, stream-start and new-clock were posted before EOS, and skipped")
        XCTAssertNil(pipeline.bus.pop(timeout: 0, of: [.stateChanged]), "the skipped messages are gone from the bus, not left behind")
    }
}
