import GStreamer
import Synchronization
import XCTest
@testable import SluiceRun

/// `SourceHold` in process: a file-like source (videotestsrc, not live) behind a pacer whose
/// entrance is held sends nothing on while held, and plays from its first frame once released.
final class SourceHoldTests: XCTestCase {
    func testAHeldSourceStartsFromItsFirstFrameWhenReleased() async throws {
        Gst.initialize()
        let pipeline = Pipeline(name: "source-hold")
        let source = try Element.make("videotestsrc")
        try source.set("num-buffers", 60)
        let filter = try Element.make("capsfilter")
        try filter.set("caps", fromString: "video/x-raw,width=64,height=48,framerate=30/1")
        let pacer = try Element.make("clocksync")
        try pacer.set("sync-to-first", true)
        let sink = try Element.make("fakesink")
        try pipeline.add([source, filter, pacer, sink])
        try Element.link([source, filter, pacer, sink])
        let hold = SourceHold()
        hold.hold(try XCTUnwrap(pacer.staticPad("sink")))
        let pushed = Atomic<Int>(0), passed = Atomic<Int>(0), firstPTS = Atomic<Int>(-1)
        try XCTUnwrap(filter.staticPad("src")).addProbe(.buffer) { _ in
            pushed.add(1, ordering: .relaxed)
            return .ok
        }
        try XCTUnwrap(sink.staticPad("sink")).addProbe(.buffer) { (info: borrowing Pad.ProbeInfo) in
            if passed.add(1, ordering: .relaxed).newValue == 1 { firstPTS.store(Int(info.buffer?.pts ?? 0), ordering: .relaxed) }
            return .ok
        }
        XCTAssertNotEqual(pipeline.setState(.playing), .failure)
        defer { pipeline.setState(.null) }
        try await waitUntil("the source pushes its first frame") { pushed.load(ordering: .relaxed) >= 1 }
        try await Task.sleep(for: .milliseconds(300)) // a window in which nothing may pass
        XCTAssertEqual(passed.load(ordering: .relaxed), 0, "nothing passes the held pacer")
        XCTAssertEqual(pushed.load(ordering: .relaxed), 1, "the source waits at its first frame")
        hold.release()
        XCTAssertTrue(hold.isReleased)
        try await waitUntil("frames pass once released") { passed.load(ordering: .relaxed) >= 10 }
        XCTAssertEqual(firstPTS.load(ordering: .relaxed), 0, "the first frame passes first")
        hold.hold(try XCTUnwrap(sink.staticPad("sink")))
        try await waitUntil("a hold after the release passes at once") { passed.load(ordering: .relaxed) >= 20 }
    }

    /// Waits, bounded (10 s), until `condition` holds.
    private func waitUntil(_ what: String, _ condition: @Sendable () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while !condition() {
            guard ContinuousClock.now < deadline else { return XCTFail("timed out waiting until \(what)") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
