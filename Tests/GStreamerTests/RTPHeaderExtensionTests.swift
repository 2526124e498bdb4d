import Foundation
import Synchronization
import XCTest
@testable import GStreamer

/// The RTP header extension binding (`attach`, `detachAll`) and a blocking probe that holds
/// a stream and lets it go: the two paths a room answerer uses to move a send branch to the
/// offer's payload parameters.
final class RTPHeaderExtensionTests: XCTestCase {
    /// Runs `videotestsrc num-buffers=5 ! vp8enc ! rtpvp8pay ! identity ! fakesink` with the MID
    /// extension attached (and, with `detach`, removed again) and returns, per RTP packet,
    /// whether its header has the extension bit (RFC 3550 X).
    private func extensionBits(detach: Bool) async throws -> [Bool] {
        let pipeline = Pipeline(name: "ext")
        let src = try Element.make("videotestsrc"), enc = try Element.make("vp8enc"), pay = try Element.make("rtpvp8pay")
        // identity splits the payloader's buffer lists into buffers the probe sees.
        let split = try Element.make("identity"), sink = try Element.make("fakesink")
        try src.set("num-buffers", 5)
        try enc.set("deadline", fromString: "1")
        try pipeline.add([src, enc, pay, split, sink])
        try src.link(enc, filter: try Caps("video/x-raw,width=64,height=48"))
        try Element.link([enc, pay, split, sink])
        let ext = try XCTUnwrap(RTPHeaderExtensions.make(uri: "urn:ietf:params:rtp-hdrext:sdes:mid", id: 9))
        try ext.set("mid", "video")
        try RTPHeaderExtensions.attach(ext, to: pay)
        if detach { try RTPHeaderExtensions.detachAll(from: pay) }
        let bits = Mutex<[Bool]>([])
        sink.staticPad("sink")!.addProbe { (info: borrowing Pad.ProbeInfo) in
            if let x = info.buffer?.withBytes({ $0.first.map { $0 & 0x10 != 0 } }) ?? nil { bits.withLock { $0.append(x) } }
            return .ok
        }
        XCTAssertNotEqual(pipeline.setState(.playing), .failure)
        try await waitForEOS(pipeline)
        pipeline.setState(.null)
        return bits.withLock { $0 }
    }

    func testAttachedExtensionIsWrittenAndDetachAllRemovesIt() async throws {
        let with = try await extensionBits(detach: false)
        XCTAssertGreaterThanOrEqual(with.count, 5)
        XCTAssertTrue(with.allSatisfy { $0 }, "every packet carries the MID extension: \(with)")
        let without = try await extensionBits(detach: true)
        XCTAssertGreaterThanOrEqual(without.count, 5)
        XCTAssertTrue(without.allSatisfy { !$0 }, "after detachAll no packet carries it: \(without)")
        XCTAssertThrowsError(try RTPHeaderExtensions.detachAll(from: try Element.make("fakesink")), "not a payloader")
    }

    /// A blocking probe on data and downstream events holds everything, caps included, until
    /// it is removed; then all of it flows.
    func testBlockingProbeHoldsCapsAndDataUntilRemoved() async throws {
        let pipeline = Pipeline(name: "hold")
        let src = try Element.make("videotestsrc"), sink = try Element.make("fakesink")
        try src.set("num-buffers", 3)
        try sink.set("async", false)
        try pipeline.add([src, sink])
        try src.link(sink, filter: try Caps("video/x-raw,width=64,height=48"))
        let pad = try XCTUnwrap(sink.staticPad("sink"))
        let blocked = Atomic<Bool>(false)
        let probe = pad.addProbe([.block, .buffer, .eventDownstream]) { _ in
            blocked.store(true, ordering: .relaxed)
            return .ok
        }
        let seen = Atomic<Int>(0)
        pad.addProbe { (_: borrowing Pad.ProbeInfo) in
            seen.add(1, ordering: .relaxed); return .ok
        }
        XCTAssertNotEqual(pipeline.setState(.playing), .failure)
        let until = ContinuousClock.now + .seconds(5)
        while !blocked.load(ordering: .relaxed), ContinuousClock.now < until { try await Task.sleep(for: .milliseconds(10)) }
        XCTAssertTrue(blocked.load(ordering: .relaxed))
        XCTAssertNil(pad.currentCaps, "the caps wait too")
        XCTAssertEqual(seen.load(ordering: .relaxed), 0)
        pad.removeProbe(probe)
        try await waitForEOS(pipeline)
        XCTAssertEqual(seen.load(ordering: .relaxed), 3)
        pipeline.setState(.null)
    }

    private func waitForEOS(_ pipeline: Pipeline) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        for await message in pipeline.bus.messages() {
            if message.kind == .eos { return }
            if message.kind == .error { return XCTFail("\(message.parsedError!)") }
            if ContinuousClock.now > deadline { break }
        }
        XCTFail("no EOS within 10 s")
    }
}
