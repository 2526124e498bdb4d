import GStreamer
import Synchronization
import XCTest
@testable import SluiceRun

/// H.264 sent on payload type 41, which GStreamer 1.22's rtph264pay cannot write: behind the
/// branch, a capsfilter that takes `payload=41` only stands in for webrtcbin with codec
/// preferences for an offer's 41 (both answer caps queries with it, and both refuse 96).
final class PayloadTypeRewriteTests: XCTestCase {
    /// Without the rewrite the branch cannot negotiate at all; with it, every packet and the
    /// caps say 41, and the packets are still the payloader's H.264 (the NAL type bytes).
    func testAPayloadTypeBelow96ReachesThePacketsAndTheCaps() throws {
        XCTAssertNotNil(try run(rewrite: false).error, "96–127 only: the payloader cannot make 41")
        let seen = try run(rewrite: true)
        XCTAssertNil(seen.error)
        XCTAssertGreaterThanOrEqual(seen.payloadTypes.count, 30, "a packet or more per frame")
        XCTAssertEqual(Set(seen.payloadTypes), [41])
        XCTAssertEqual(seen.capsPayload, 41, "the caps webrtcbin keeps say 41 too")
        XCTAssertTrue(seen.nalTypes.contains(28) || seen.nalTypes.contains(5) || seen.nalTypes.contains(24), "H.264 NAL units: \(seen.nalTypes)")
    }

    private final class Seen: Sendable {
        let payloadTypes = Mutex<[Int]>([])
        let nalTypes = Mutex<Set<Int>>([])
        let capsPayload = Mutex<Int?>(nil)
    }

    private func run(rewrite: Bool) throws -> (payloadTypes: [Int], nalTypes: Set<Int>, capsPayload: Int?, error: String?) {
        Gst.initialize()
        let p = RTPSendParameters(codec: .h264, payloadType: 41, ssrc: 4321)
        XCTAssertEqual(p.payloaderPayloadType, 96)
        let pipeline = Pipeline(name: "pt-rewrite")
        let src = try Element.make("videotestsrc")
        try src.set("num-buffers", Int32(30))
        let raw = try Element.make("capsfilter")
        try raw.set("caps", fromString: "video/x-raw,width=160,height=120,framerate=30/1")
        let enc = try Element.make("x264enc")
        for (k, v) in [("tune", "zerolatency"), ("speed-preset", "ultrafast")] { try enc.set(k, fromString: v) }
        let pay = try Element.make("rtph264pay")
        try p.configure(pay)
        let branchCaps = try Element.make("capsfilter")
        try branchCaps.set("caps", fromString: p.payloaderCaps)
        let peer = try Element.make("capsfilter")
        try peer.set("caps", fromString: p.caps)
        let sink = try Element.make("fakesink")
        try pipeline.add([src, raw, enc, pay, branchCaps, peer, sink])
        try Element.link([src, raw, enc, pay, branchCaps])
        try Element.link([peer, sink])
        // By pads, as a branch links into webrtcbin (linking elements would compare their caps).
        let input = try XCTUnwrap(peer.staticPad("sink"))
        if rewrite { XCTAssertNotNil(try PayloadTypeRewrite.install(on: input, p)) }
        do { try XCTUnwrap(branchCaps.staticPad("src")).link(input) } catch { return ([], [], nil, "\(error)") }
        let seen = Seen()
        try XCTUnwrap(sink.staticPad("sink")).addProbe([.buffer, .bufferList, .eventDownstream]) { info in
            if let caps = info.eventCaps { seen.capsPayload.withLock { $0 = caps.structure(at: 0)?.get("payload", as: Int32.self).map(Int.init) } }
            info.forEachBuffer { buffer in
                guard let header = buffer.withBytes({ Array($0.prefix(13)) }), header.count == 13 else { return }
                seen.payloadTypes.withLock { $0.append(Int(header[1] & 0x7f)) }
                seen.nalTypes.withLock { _ = $0.insert(Int(header[12] & 0x1f)) }
            }
            return .ok
        }
        pipeline.setState(.playing)
        defer { pipeline.setState(.null) }
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            guard let m = pipeline.bus.pop(timeout: 100_000_000) else { continue }
            if m.kind == .eos { break }
            if m.kind == .error {
                return ([], [], nil, m.parsedError?.message ?? "error")
            }
        }
        return (seen.payloadTypes.withLock { $0 }, seen.nalTypes.withLock { $0 }, seen.capsPayload.withLock { $0 }, nil)
    }
}
