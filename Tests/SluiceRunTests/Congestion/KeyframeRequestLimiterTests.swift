import GStreamer
import Synchronization
import XCTest
@testable import SluiceRun

/// Keyframe requests at an encoder: a burst of ten (as ten viewers' PLIs after one loss)
/// makes one keyframe at once and one more half a second later, not ten.
final class KeyframeRequestLimiterTests: XCTestCase {
    func testABurstOfRequestsBecomesTwoKeyframes() throws {
        Gst.initialize()
        let pipeline = Pipeline(name: "keyframes")
        let src = try Element.make("videotestsrc")
        try src.set("is-live", true)
        let caps = try Element.make("capsfilter")
        try caps.set("caps", fromString: "video/x-raw,width=160,height=120,framerate=30/1")
        let enc = try Element.make("x264enc")
        for (k, v) in [("tune", "zerolatency"), ("speed-preset", "ultrafast"), ("key-int-max", "1000")] { try enc.set(k, fromString: v) }
        let sink = try Element.make("fakesink")
        try sink.set("sync", false)
        try pipeline.add([src, caps, enc, sink])
        try Element.link([src, caps, enc, sink])
        let output = try XCTUnwrap(enc.staticPad("src"))
        let limiter = KeyframeRequestLimiter(watching: output)
        // Keyframes after the first, with when they came.
        let keyframes = Mutex<[ContinuousClock.Instant]>([])
        let first = expectation(description: "the stream's first keyframe")
        let once = OnceFlag()
        output.addProbe { info in
            guard let b = info.buffer, !b.isDeltaUnit else { return .ok }
            if once.set() { first.fulfill() } else { keyframes.withLock { $0.append(.now) } }
            return .ok
        }
        pipeline.setState(.playing)
        defer { pipeline.setState(.null) }
        wait(for: [first], timeout: 10)
        let sinkPad = try XCTUnwrap(sink.staticPad("sink"))
        let burst = ContinuousClock.now
        for _ in 0..<10 { sinkPad.pushEvent(.forceKeyUnit()) }
        XCTAssertEqual(limiter.counts.passed, 1)
        XCTAssertEqual(limiter.counts.coalesced, 9)
        // Wait (bounded) for the coalesced request's keyframe, then make sure no third comes.
        let deadline = ContinuousClock.now + .seconds(5)
        while keyframes.withLock({ $0.count }) < 2 && ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.02) }
        let seen = keyframes.withLock { $0 }
        XCTAssertEqual(seen.count, 2, "one keyframe at once, one for the rest")
        if seen.count == 2 {
            XCTAssertLessThan(seen[0] - burst, .milliseconds(300), "the first request passes at once")
            XCTAssertGreaterThanOrEqual(seen[1] - burst, .milliseconds(450), "the rest wait for the interval")
        }
        XCTAssertEqual(limiter.counts.passed, 2)
        Thread.sleep(forTimeInterval: 0.6) // a window for a wrong extra keyframe to show, not synchronisation
        XCTAssertEqual(keyframes.withLock { $0.count }, 2)
    }

    /// Sluice's own requests (a viewer starting, the control API) pass at once, even right
    /// after a peer's; a peer's right after them is folded.
    func testSluicesOwnRequestsAreNotHeldBack() throws {
        Gst.initialize()
        let pipeline = Pipeline(name: "own-keyframes")
        let src = try Element.make("fakesrc")
        let sink = try Element.make("fakesink")
        try pipeline.add([src, sink])
        try Element.link([src, sink])
        let limiter = KeyframeRequestLimiter(watching: try XCTUnwrap(src.staticPad("src")))
        let sinkPad = try XCTUnwrap(sink.staticPad("sink"))
        // Pads pass events only once active.
        XCTAssertNotEqual(pipeline.setState(.paused), .failure)
        defer { pipeline.setState(.null) }
        sinkPad.pushEvent(.forceKeyUnit()) // a peer's PLI
        sinkPad.pushEvent(.forceKeyUnit(origin: KeyframeRequestLimiter.ownOrigin))
        sinkPad.pushEvent(.forceKeyUnit(origin: KeyframeRequestLimiter.ownOrigin))
        XCTAssertEqual(limiter.counts.passed, 3)
        sinkPad.pushEvent(.forceKeyUnit())
        XCTAssertEqual(limiter.counts.passed, 3)
        XCTAssertEqual(limiter.counts.coalesced, 1)
    }
}
