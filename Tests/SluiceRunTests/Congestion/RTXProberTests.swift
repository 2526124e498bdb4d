import Foundation
import GStreamer
import Synchronization
import XCTest
@testable import SluiceRun

/// `RTXProber` in front of GStreamer's `rtprtxsend` (as in a viewer's webrtcbin): asked to
/// probe, it has recent packets sent again on the RTX stream, between frames, at the rate
/// asked for; the media stream itself is left as it was; probing stops by itself.
final class RTXProberTests: XCTestCase {
    private static let mediaSSRC: UInt32 = 12_345
    private static let rtxSSRC: UInt32 = 54_321

    /// What the test saw leave `rtprtxsend`.
    private struct Seen {
        var lastMedia: UInt16?
        var media = 0, rtx = 0, rtxBits = 0
        var gaps: [String] = []
        /// Media sequence numbers sent so far, and retransmissions of others.
        var sent: Set<UInt16> = []
        var strangers: [UInt16] = []
    }

    private struct Run {
        var seen: Seen
        var seconds: Double
        var requested: Int
    }

    /// 60 live 320x240 VP8 frames → `rtpvp8pay` → the prober → `rtprtxsend`; `start` tells the
    /// prober what to do as the pipeline starts.
    private func run(start: (RTXProber) -> Void) throws -> Run {
        let bin = try Bin.parse(
            "videotestsrc is-live=true num-buffers=60 pattern=ball ! video/x-raw,width=320,height=240,framerate=30/1"
                + " ! vp8enc deadline=1 target-bitrate=300000 ! rtpvp8pay name=pay mtu=600 ssrc=\(Self.mediaSSRC) pt=96"
                + " ! rtprtxsend name=rtx ssrc-map=application/x-rtp-ssrc-map,\(Self.mediaSSRC)=(uint)\(Self.rtxSSRC)"
                + " payload-type-map=application/x-rtp-pt-map,96=(uint)97 ! fakesink name=out sync=false")
        let pipeline = Pipeline(name: "prober")
        try pipeline.add(bin)
        let pay = try XCTUnwrap(bin.children.first { $0.name == "pay" }?.staticPad("src"))
        let prober = RTXProber(on: pay, webrtcbin: bin)
        XCTAssertTrue(prober.canProbe, "the rtprtxsend is found")
        start(prober)
        let seen = Mutex(Seen())
        bin.children.first { $0.name == "out" }?.staticPad("sink")?.addProbe([.buffer, .bufferList]) { (info: borrowing Pad.ProbeInfo) in
            info.forEachBuffer { b in
                guard let packet = b.withBytes({ Self.read($0) }) ?? nil else { return }
                seen.withLock { Self.note(packet, into: &$0) }
            }
            return .ok
        }
        let started = Date()
        pipeline.setState(.playing)
        let end = pipeline.bus.pop(timeout: 20_000_000_000, of: [.eos, .error])
        let seconds = Date().timeIntervalSince(started)
        pipeline.setState(.null)
        XCTAssertEqual(end?.kind, .eos, "\(end.map { "\($0.kind)" } ?? "timeout")")
        return Run(seen: seen.withLock { $0 }, seconds: seconds, requested: prober.requestsSent)
    }

    func testRecentPacketsAreSentAgainOnTheRTXStreamAtTheRateAsked() throws {
        let r = try run { $0.probe(at: 400_000) }
        let s = r.seen
        XCTAssertEqual(s.gaps, [], "the media stream is as the payloader sent it")
        XCTAssertGreaterThan(s.media, 60)
        XCTAssertEqual(s.strangers, [], "only packets already sent are sent again")
        XCTAssertEqual(s.rtx, r.requested, "each request answered")
        let rate = Double(s.rtxBits) / r.seconds
        XCTAssertEqual(rate, 400_000, accuracy: 140_000, "\(s.rtx) retransmissions in \(r.seconds) s")
    }

    func testProbingStopsByItselfWhenItsTimeIsUp() throws {
        let r = try run { $0.probe(at: 400_000, forNs: 500_000_000) }
        XCTAssertEqual(r.seen.gaps, [])
        XCTAssertEqual(Double(r.seen.rtxBits), 200_000, accuracy: 90_000, "half a second at 400 kbit/s: \(r.seen.rtx) packets")
    }

    /// A ramp over the whole half second: the rate rises in a straight line, so half as much
    /// is sent as at the full rate from the start.
    func testAProbeRampsUpToItsRate() throws {
        let r = try run { $0.probe(at: 400_000, forNs: 500_000_000, rampNs: 500_000_000) }
        XCTAssertEqual(r.seen.gaps, [])
        XCTAssertEqual(Double(r.seen.rtxBits), 100_000, accuracy: 55_000, "half of half a second at 400 kbit/s: \(r.seen.rtx) packets")
    }

    func testNothingIsSentAgainUnlessAsked() throws {
        let r = try run { _ in }
        XCTAssertEqual(r.seen.rtx, 0)
        XCTAssertGreaterThan(r.seen.media, 60)
    }

    func testABinWithoutARetransmissionSenderCannotBeProbed() throws {
        let bin = try Bin.parse("videotestsrc num-buffers=1 ! vp8enc ! rtpvp8pay name=pay ! fakesink")
        let pay = try XCTUnwrap(bin.children.first { $0.name == "pay" }?.staticPad("src"))
        XCTAssertFalse(RTXProber(on: pay, webrtcbin: bin).canProbe)
    }

    /// SSRC, sequence number, size, and for a retransmission the original sequence number.
    private static func read(_ b: UnsafeRawBufferPointer) -> (ssrc: UInt32, sequence: UInt16, size: Int, original: UInt16?)? {
        guard b.count >= 12, b[0] >> 6 == 2 else { return nil }
        let be16 = { (i: Int) in UInt16(b[i]) << 8 | UInt16(b[i + 1]) }
        let ssrc = UInt32(be16(8)) << 16 | UInt32(be16(10))
        var header = 12 + Int(b[0] & 0x0F) * 4
        if b[0] & 0x10 != 0, b.count >= header + 4 { header += 4 + Int(be16(header + 2)) * 4 }
        let original = ssrc == rtxSSRC && b.count >= header + 2 ? be16(header) : nil
        return (ssrc, be16(2), b.count, original)
    }

    private static func note(_ p: (ssrc: UInt32, sequence: UInt16, size: Int, original: UInt16?), into s: inout Seen) {
        if p.ssrc == mediaSSRC {
            s.media += 1
            if let last = s.lastMedia, p.sequence != last &+ 1 { s.gaps.append("\(last) → \(p.sequence)") }
            s.lastMedia = p.sequence
            s.sent.insert(p.sequence)
        } else if p.ssrc == rtxSSRC {
            s.rtx += 1
            s.rtxBits += p.size * 8
            if let original = p.original, !s.sent.contains(original) { s.strangers.append(original) }
        }
    }
}
