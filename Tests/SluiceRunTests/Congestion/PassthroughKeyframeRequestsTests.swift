import GStreamer
import Synchronization
import XCTest
@testable import SluiceRun

/// A passed-through stream's keyframe requests: kept from travelling upstream and counted,
/// except while something upstream can answer them (a fallback slate on air).
final class PassthroughKeyframeRequestsTests: XCTestCase {
    func testRequestsPassUpstreamOnlyWhileTheSlateIsOnAir() throws {
        Gst.initialize()
        let pipeline = Pipeline(name: "passthrough-requests")
        // Pads pass events only once active: a source that sends nothing, in PAUSED.
        let source = try Element.make("appsrc"), queue = try Element.make("identity")
        try pipeline.add([source, queue])
        try source.link(queue)
        XCTAssertNotEqual(pipeline.setState(.paused), .failure)
        defer { pipeline.setState(.null) }
        let reachedSource = Atomic<Int>(0)
        try XCTUnwrap(source.staticPad("src")).addProbe(.eventUpstream) { (info: borrowing Pad.ProbeInfo) in
            if info.eventName == "GstForceKeyUnit" { reachedSource.add(1, ordering: .relaxed) }
            return .drop
        }
        let output = try XCTUnwrap(queue.staticPad("src"))
        let requests = PassthroughKeyframeRequests(watching: output, source: "test")
        output.sendEvent(Event.forceKeyUnit())
        XCTAssertEqual(requests.count, 1, "counted as unanswered")
        XCTAssertEqual(reachedSource.load(ordering: .relaxed), 0, "kept from the source")

        let onAir = Atomic<Bool>(true)
        requests.letThrough { onAir.load(ordering: .relaxed) }
        output.sendEvent(Event.forceKeyUnit())
        XCTAssertEqual(reachedSource.load(ordering: .relaxed), 1, "the slate's encoder gets it")
        XCTAssertEqual(requests.count, 1, "not counted as unanswered")

        onAir.store(false, ordering: .relaxed)
        output.sendEvent(Event.forceKeyUnit())
        XCTAssertEqual(reachedSource.load(ordering: .relaxed), 1, "the source is back: kept again")
        XCTAssertEqual(requests.count, 2)
        output.sendEvent(Event.forceKeyUnit(origin: KeyframeRequestLimiter.ownOrigin))
        XCTAssertEqual(reachedSource.load(ordering: .relaxed), 2, "Sluice's own requests always pass")
    }
}
