import Foundation
import Synchronization
import XCTest
@testable import GStreamer

final class DataFlowTests: XCTestCase {
    /// Runs `videotestsrc num-buffers=N ! fakesink`, counting buffers with a probe, and waits
    /// for EOS on the bus (bounded).
    func testProbeCountsBuffersAndBusDeliversEOS() async throws {
        let pipeline = Pipeline(name: "t")
        let src = try Element.make("videotestsrc")
        try src.set("num-buffers", 7)
        let sink = try Element.make("fakesink")
        try pipeline.add([src, sink])
        try src.link(sink, filter: try Caps("video/x-raw,width=64,height=48"))
        let count = Atomic<Int>(0)
        src.staticPad("src")!.addProbe { (info: borrowing Pad.ProbeInfo) in
            if info.buffer != nil { count.add(1, ordering: .relaxed) }
            return .ok
        }
        XCTAssertNotEqual(pipeline.setState(.playing), .failure)
        var sawEOS = false
        let deadline = ContinuousClock.now + .seconds(10)
        for await message in pipeline.bus.messages() {
            if message.kind == .eos { sawEOS = true; break }
            if message.kind == .error { XCTFail("\(message.parsedError!)"); break }
            if ContinuousClock.now > deadline { break }
        }
        pipeline.setState(.null)
        XCTAssertTrue(sawEOS)
        XCTAssertEqual(count.load(ordering: .relaxed), 7)
    }

    /// A buffer's running time in its pad's segment, read from a probe (`bufferRunningTime`)
    /// and from the pad (`runningTime(of:)`); an offset set on the pad from its first
    /// buffer's probe applies to that very buffer downstream.
    func testRunningTimesAndAPadOffsetSetInAProbe() async throws {
        let pipeline = Pipeline(name: "running-time")
        let src = try Element.make("videotestsrc")
        try src.set("num-buffers", 3)
        let sink = try Element.make("fakesink")
        try pipeline.add([src, sink])
        try src.link(sink, filter: try Caps("video/x-raw,width=64,height=48,framerate=30/1"))
        let output = try XCTUnwrap(src.staticPad("src")), input = try XCTUnwrap(sink.staticPad("sink"))
        XCTAssertNil(output.runningTime(of: 0), "no segment yet")
        let first = Atomic<Bool>(true)
        output.addProbe(.buffer) { (info: borrowing Pad.ProbeInfo) in
            if first.exchange(false, ordering: .relaxed) { info.padReference.offset = 5_000_000_000 }
            return .ok
        }
        let seen = Mutex<[ClockTime]>([])
        input.addProbe(.buffer) { (info: borrowing Pad.ProbeInfo) in
            if let time = info.bufferRunningTime { seen.withLock { $0.append(time) } }
            return .ok
        }
        XCTAssertNotEqual(pipeline.setState(.playing), .failure)
        let deadline = ContinuousClock.now + .seconds(10)
        for await message in pipeline.bus.messages() {
            if message.kind == .eos || message.kind == .error || ContinuousClock.now > deadline { break }
        }
        XCTAssertEqual(input.runningTime(of: 0), 5_000_000_000, "the sink's segment carries the offset")
        pipeline.setState(.null)
        XCTAssertEqual(seen.withLock { $0 }, [5_000_000_000, 5_033_333_333, 5_066_666_666], "every buffer, the first included, shifted by 5 s")
    }

    func testLinkFailureIsAnError() throws {
        let pipeline = Pipeline()
        let a = try Element.make("audiotestsrc"), b = try Element.make("videoconvert")
        try pipeline.add([a, b])
        XCTAssertThrowsError(try a.link(b))
    }

    func testErrorMessageIsParsed() async throws {
        let pipeline = Pipeline()
        let src = try Element.make("filesrc")
        try src.set("location", "/nonexistent/sluice-test")
        let sink = try Element.make("fakesink")
        try pipeline.add([src, sink])
        try src.link(sink)
        pipeline.setState(.playing)
        let message = pipeline.bus.pop(timeout: 5_000_000_000)
        var error: Message? = message
        while let m = error, m.kind != .error { error = pipeline.bus.pop(timeout: 5_000_000_000) }
        pipeline.setState(.null)
        XCTAssertEqual(error?.kind, .error)
        XCTAssertTrue(
            error?.parsedError?.message.contains("nonexistent") ?? false || error?.parsedError?.message.contains("not found") ?? false,
            "\(String(describing: error?.parsedError))")
    }

    func testCapsAndStructures() throws {
        let caps = try Caps("video/x-raw,width=(int)640,height=(int)480,format=I420")
        XCTAssertTrue(caps.isFixed)
        let s = try XCTUnwrap(caps.structure(at: 0))
        XCTAssertEqual(s.name, "video/x-raw")
        XCTAssertEqual(s.get("width", as: Int.self), 640)
        XCTAssertEqual(s.get("format", as: String.self), "I420")
        XCTAssertEqual(s.fieldNames, ["width", "height", "format"])
        XCTAssertNil(caps.structure(at: 5))
        XCTAssertThrowsError(try Caps("not caps (((("))
        let owned = Structure(name: "x")
        XCTAssertTrue(owned.set("n", 5))
        XCTAssertFalse(s.set("n", 5), "borrowed structures are read-only")
    }

    func testPromiseReplyFromAnotherThreadIsAwaited() async throws {
        let promise = Promise()
        let reply = Structure(name: "answer")
        reply.set("n", 42)
        Thread.detachNewThread { promise.replyForTesting(reply) }
        guard case .replied(let got?) = await promise.reply() else { return XCTFail("no reply") }
        XCTAssertEqual(got.name, "answer")
        XCTAssertEqual(got.get("n", as: Int.self), 42)
    }

    func testInterruptedPromiseReportsIt() async throws {
        let promise = Promise()
        promise.interrupt()
        guard case .interrupted = await promise.reply() else { return XCTFail("expected interrupted") }
    }

    /// A promise nobody answers gives up after its timeout; one answered in time is read;
    /// a reply after the timeout changes nothing.
    func testPromiseReplyTimeout() async throws {
        let silent = Promise()
        let start = ContinuousClock.now
        guard case .interrupted = await silent.reply(timeout: .milliseconds(200)) else { return XCTFail("expected interrupted") }
        let waited = ContinuousClock.now - start
        XCTAssertGreaterThanOrEqual(waited, .milliseconds(200))
        XCTAssertLessThan(waited, .seconds(5))
        silent.replyForTesting(Structure(name: "late"))
        guard case .interrupted = await silent.reply() else { return XCTFail("a late reply is ignored") }

        let answered = Promise()
        Thread.detachNewThread { answered.replyForTesting(Structure(name: "answer")) }
        guard case .replied(let got?) = await answered.reply(timeout: .seconds(10)) else { return XCTFail("no reply") }
        XCTAssertEqual(got.name, "answer")
    }

    func testWebRTCBinAnswersGetStats() async throws {
        let pipeline = Pipeline()
        let webrtc = try Element.make("webrtcbin")
        try pipeline.add(webrtc)
        pipeline.setState(.ready)
        let promise = Promise()
        try webrtc.emit("get-stats", NullArgument(), promise)
        guard case .replied(let reply?) = await promise.reply() else { return XCTFail("no reply") }
        XCTAssertFalse(reply.has("error"), reply.description)
        pipeline.setState(.null)
    }

    func testEmitChecksArgumentCount() throws {
        let webrtc = try Element.make("webrtcbin")
        XCTAssertThrowsError(try webrtc.emit("create-offer"))
        XCTAssertThrowsError(try webrtc.emit("no-such-signal"))
    }

    func testSessionDescriptionParsesAndRejects() throws {
        let sdp = "v=0\r\no=- 1 0 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\na=rtpmap:96 VP8/90000\r\n"
        let d = try SessionDescription(kind: .offer, sdp: sdp)
        XCTAssertEqual(d.kind, .offer)
        XCTAssertTrue(d.sdp.contains("VP8/90000"))
        XCTAssertThrowsError(try SessionDescription(kind: .offer, sdp: "garbage"))
    }
}
