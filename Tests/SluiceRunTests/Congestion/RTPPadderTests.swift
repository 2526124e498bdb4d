import Foundation
import GStreamer
import Synchronization
import XCTest
@testable import SluiceRun

/// `RTPPadder` on a live VP8 payloader: the padding arrives between frames, in one stream
/// without sequence gaps, at the rate asked for, and GStreamer's depayloader and decoder
/// still get every frame.
final class RTPPadderTests: XCTestCase {
    /// What the test saw of each packet after the padder.
    private struct Seen {
        var last: (sequence: UInt16, marker: Bool, ssrc: UInt32, timestamp: UInt32)?
        var packets = 0, padding = 0, paddingBytes = 0
        var gaps: [String] = []
        var misplaced: [String] = []
    }

    /// What one 2 s run of a live 320×240 VP8 stream saw after the padder.
    private struct Run {
        var seen: Seen
        var seconds: Double
        var decoded: Int
        var sent: Int
    }

    /// Plays 60 live frames through `rtpvp8pay`, an `RTPPadder` told what to do by `start`,
    /// and GStreamer's depayloader and decoder.
    private func run(start: (RTPPadder) -> Void) throws -> Run {
        let pipeline = try Bin.parse(
            "videotestsrc is-live=true num-buffers=60 pattern=ball ! video/x-raw,width=320,height=240,framerate=30/1"
                + " ! vp8enc deadline=1 target-bitrate=300000 ! rtpvp8pay name=pay mtu=600 ! rtpvp8depay name=depay"
                + " ! vp8dec name=dec ! fakesink sync=false")
        let wrapper = Pipeline(name: "padder")
        try wrapper.add(pipeline)
        let pay = try XCTUnwrap(pipeline.children.first { $0.name == "pay" }?.staticPad("src"))
        let padder = RTPPadder(on: pay, twccExtensionID: 3)
        start(padder)
        let seen = Mutex(Seen())
        let depay = try XCTUnwrap(pipeline.children.first { $0.name == "depay" })
        depay.staticPad("sink")?.addProbe([.buffer, .bufferList]) { (info: borrowing Pad.ProbeInfo) in
            info.forEachBuffer { b in
                guard let packet = b.withBytes({ Self.read($0) }) ?? nil else { return }
                seen.withLock { Self.check(packet, into: &$0) }
            }
            return .ok
        }
        let decoded = Atomic<Int>(0)
        pipeline.children.first { $0.name == "dec" }?.staticPad("src")?.addProbe { (_: borrowing Pad.ProbeInfo) in
            decoded.add(1, ordering: .relaxed)
            return .ok
        }
        let started = Date()
        wrapper.setState(.playing)
        let end = wrapper.bus.pop(timeout: 20_000_000_000, of: [.eos, .error])
        let seconds = Date().timeIntervalSince(started)
        wrapper.setState(.null)
        XCTAssertEqual(end?.kind, .eos, "\(end.map { "\($0.kind)" } ?? "timeout")")
        return Run(seen: seen.withLock { $0 }, seconds: seconds, decoded: decoded.load(ordering: .relaxed), sent: padder.packetsSent)
    }

    func testPaddingGoesBetweenFramesAtTheRateAskedWithoutGaps() throws {
        let r = try run { $0.pad(at: 800_000) }
        XCTAssertEqual(r.decoded, 60, "every frame decoded, padding and all")
        let s = r.seen
        XCTAssertEqual(s.gaps, [], "one stream: each sequence number follows the last")
        XCTAssertEqual(s.misplaced, [], "padding only between frames, as the stream it continues")
        XCTAssertEqual(s.padding, r.sent)
        let rate = Double(s.padding) * RTPPadder.packetBits / r.seconds
        XCTAssertEqual(rate, 800_000, accuracy: 240_000, "\(s.padding) padding packets in \(r.seconds) s")
        XCTAssertEqual(s.paddingBytes, s.padding * RTPPadder.paddingBytes)
    }

    /// Padding stops by itself after the time it was asked for, feedback or none.
    func testPaddingStopsByItselfWhenItsTimeIsUp() throws {
        let r = try run { $0.pad(at: 800_000, forNs: 500_000_000) }
        XCTAssertEqual(r.decoded, 60)
        XCTAssertEqual(r.seen.gaps, [])
        let bits = Double(r.seen.padding) * RTPPadder.packetBits
        XCTAssertEqual(bits, 400_000, accuracy: 150_000, "half a second at 800 kbit/s: \(r.seen.padding) packets")
    }

    /// Sequence number, marker, SSRC, timestamp, payload length, padding length, and whether
    /// it has a header extension.
    private static func read(_ b: UnsafeRawBufferPointer) -> (UInt16, Bool, UInt32, UInt32, Int, Int, Bool)? {
        guard b.count >= 12, b[0] >> 6 == 2 else { return nil }
        let be16 = { (i: Int) in UInt16(b[i]) << 8 | UInt16(b[i + 1]) }
        let be32 = { (i: Int) in UInt32(be16(i)) << 16 | UInt32(be16(i + 2)) }
        var header = 12 + Int(b[0] & 0x0F) * 4
        if b[0] & 0x10 != 0, b.count >= header + 4 { header += 4 + Int(be16(header + 2)) * 4 }
        let padding = b[0] & 0x20 != 0 ? Int(b[b.count - 1]) : 0
        return (be16(2), b[1] & 0x80 != 0, be32(8), be32(4), b.count - header - padding, padding, b[0] & 0x10 != 0)
    }

    private static func check(_ p: (UInt16, Bool, UInt32, UInt32, Int, Int, Bool), into s: inout Seen) {
        let (sequence, marker, ssrc, timestamp, payload, padding, extended) = p
        s.packets += 1
        if let last = s.last, sequence != last.sequence &+ 1 { s.gaps.append("\(last.sequence) → \(sequence)") }
        if payload == 0 {
            s.padding += 1
            if !extended { s.misplaced.append("padding \(sequence) without the transport-wide sequence number's slot") }
            s.paddingBytes += padding
            if let last = s.last, !(last.marker || last.timestamp == timestamp) || last.ssrc != ssrc || timestamp != last.timestamp {
                s.misplaced.append("padding \(sequence) after \(last)")
            }
        }
        s.last = (sequence, payload == 0 ? s.last?.marker ?? marker : marker, ssrc, timestamp)
    }
}
