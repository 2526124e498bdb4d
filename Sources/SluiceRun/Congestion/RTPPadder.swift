import GStreamer
import Synchronization

/// Padding added to one viewer's RTP stream on request, so that its congestion feedback shows
/// whether the path carries more than the stream sends (a padding probe: `RenditionChoice`
/// tries a better rung this way before moving the viewer to it, as LiveKit's and libwebrtc's
/// senders do). Sits on the payloader's output (the pad `CongestionControl` watches):
/// padding-only packets go out between frames (after a packet with the marker bit, never
/// inside a frame a depayloader is assembling), with the stream's SSRC, payload type and
/// last timestamp; the payloader's sequence numbers are moved on past them, so the viewer
/// sees one stream without gaps. rtpsession gives them transport-wide sequence numbers like
/// any packet, and receivers drop them after counting them.
package final class RTPPadder: Sendable {
    private struct State {
        /// Added to every payloader sequence number (padding packets sent so far, wrapped).
        var offset: UInt16 = 0
        /// The last packet out, as it left (nil before the first).
        var last: RTPHeaderFields?
        /// The rate to pad at, bit/s (0: none).
        var bitsPerSecond = 0
        /// Padding owed, in bits: grows with time while padding, spent a packet at a time.
        var creditBits = 0.0
        var lastNs: UInt64?
        /// Padding stops by itself then, whatever the feedback says (nil: padding is off).
        var untilNs: UInt64?
        var packetsSent = 0
    }
    private let state = Mutex(State())
    /// Set while this padder pushes its own packets (they cross its probe too).
    private let pushing = Atomic<Bool>(false)
    /// Padding bytes per packet: the most one packet can carry.
    package static let paddingBytes = Pad.maxRTPPadding
    /// What one padding packet counts for, bits: its padding, as the congestion feedback
    /// counts it (`CongestionControl.packets(in:)`: rtpsession reports payload sizes, and
    /// rung rates are measured the same way, headers aside).
    package static let packetBits = Double(paddingBytes * 8)
    /// At most this many packets between two frames (a late frame does not make a burst).
    package static let maxBurst = 40

    /// The transport-wide sequence number extension's id (each padding packet carries it).
    private let extensionID: UInt8?

    /// Starts watching `pad` (a payloader's source pad); pads nothing until `pad(at:)`.
    /// `twccExtensionID`: the id the viewer negotiated for transport-wide sequence numbers.
    package init(on pad: Pad, twccExtensionID: Int?) {
        extensionID = twccExtensionID.flatMap { (1...14).contains($0) ? UInt8($0) : nil }
        pad.addProbe([.buffer, .bufferList]) { [self] (info: borrowing Pad.ProbeInfo) in
            handle(info)
        }
    }

    /// Pads the stream at `bitsPerSecond` from now on (0 stops), for at most `forNs`: a path
    /// the padding overfills can lose the marker packets a receiver sends its feedback after
    /// (GStreamer's rtpsession does), and without feedback nothing would stop it.
    package func pad(at bitsPerSecond: Int, forNs: UInt64 = 2_000_000_000, nowNs: UInt64 = StageTimer.now()) {
        state.withLock { s in
            s.bitsPerSecond = max(0, bitsPerSecond)
            s.untilNs = bitsPerSecond > 0 ? nowNs &+ forNs : nil
            s.creditBits = 0
            s.lastNs = nowNs
        }
    }

    /// Padding packets sent so far.
    package var packetsSent: Int { state.withLock { $0.packetsSent } }

    private func handle(_ info: borrowing Pad.ProbeInfo) -> Pad.ProbeReturn {
        if pushing.load(ordering: .acquiring) { return .ok }
        let due = state.withLock { s -> (count: Int, like: RTPHeaderFields)? in
            guard s.bitsPerSecond > 0, let last = s.last, last.marker else { return nil }
            let now = StageTimer.now()
            if let until = s.untilNs, now >= until {
                s.bitsPerSecond = 0
                return nil
            }
            s.creditBits += Double(s.bitsPerSecond) * Double(now &- (s.lastNs ?? now)) / 1e9
            s.lastNs = now
            let count = min(Int(s.creditBits / Self.packetBits), Self.maxBurst)
            guard count > 0 else { return nil }
            s.creditBits = max(0, s.creditBits - Double(count) * Self.packetBits)
            return (count, last)
        }
        if let due {
            pushing.store(true, ordering: .releasing)
            info.padReference.pushRTPPadding(
                count: due.count, padding: Self.paddingBytes, like: due.like, firstSequence: due.like.sequence &+ 1,
                extensionID: extensionID)
            pushing.store(false, ordering: .releasing)
        }
        let offset = state.withLock { s -> UInt16 in
            if let due {
                s.offset &+= UInt16(truncatingIfNeeded: due.count)
                s.packetsSent += due.count
            }
            return s.offset
        }
        if let header = info.shiftRTPSequenceNumbers(by: offset) { state.withLock { $0.last = header } }
        return .ok
    }
}
