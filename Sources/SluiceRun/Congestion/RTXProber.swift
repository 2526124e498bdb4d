import GStreamer
import Synchronization

/// Probes one viewer's path with retransmissions: asked to, it has the viewer's `rtprtxsend`
/// send again, on the RTX stream, packets the viewer has just had, so that the congestion
/// feedback shows whether the path carries more than the viewer's rung sends
/// (`RenditionChoice`'s probes; libwebrtc pads with old packets on RTX the same way).
///
/// Padding packets on the media stream itself, the first design, harmed GStreamer receivers:
/// a lost one is a gap their jitter buffer declares lost, and `rtpvp8depay` with
/// `request-keyframe` asks for a keyframe at every such gap, on the path being probed. A
/// retransmission nobody asked for is dropped by the receiver (`rtpjitterbuffer`, libwebrtc),
/// lost or not, and it is counted by the transport-wide feedback like any packet.
///
/// Sits on the payloader's output (the pad `CongestionControl` watches) and reads what leaves
/// without changing it; the requests follow a frame's last packet (a burst of at most
/// `maxBurst` packets between frames), newest packets first. A viewer that negotiated no RTX
/// has no `rtprtxsend`: it is never probed (`canProbe`).
package final class RTXProber: Sendable {
    private struct State {
        /// The packets sent lately, oldest first (at most `kept`).
        var recent: [RTPPacketSummary] = []
        /// The rate to probe at, bit/s (0: none).
        var bitsPerSecond = 0
        /// Probing owed, in bits: grows with time while probing, spent a packet at a time.
        var creditBits = 0.0
        var lastNs: UInt64?
        /// Probing stops by itself then, whatever the feedback says.
        var untilNs: UInt64?
        /// The probe's rate rises from 0 at `startNs` to `bitsPerSecond` over `rampNs`.
        var startNs: UInt64 = 0
        var rampNs: UInt64 = 0
        var requested = 0
    }
    private let state = Mutex(State())
    /// The viewer's retransmission sender's source pad (found once it exists).
    private let sender = Mutex<Pad?>(nil)
    private let webrtcbin: Element

    /// At most this many retransmissions between two frames.
    package static let maxBurst = 8
    /// Packets kept to ask for again.
    package static let kept = 24

    /// Starts watching `pad` (a payloader's source pad) of a branch into `webrtcbin`; probes
    /// nothing until `probe(at:)`. Whoever makes it keeps it: the pad's probe holds it weakly
    /// (it holds `webrtcbin`, which may hold the pad: memcheck's leaks tracer saw that cycle).
    package init(on pad: Pad, webrtcbin: Element) {
        self.webrtcbin = webrtcbin
        pad.addProbe([.buffer, .bufferList]) { [weak self] (info: borrowing Pad.ProbeInfo) in
            guard let self else { return .remove }
            handle(info.rtpPackets)
            return .ok
        }
    }

    /// Probes at `bitsPerSecond` from now on (0 stops), reached in a straight line over
    /// `rampNs`, for at most `forNs`: a path the probe overfills can lose the packets a
    /// receiver sends its feedback after (GStreamer's rtpsession reports at a frame's last
    /// packet), and without feedback nothing would stop it. The ramp keeps what a path that
    /// cannot carry the probe queues before the feedback says so small: at once, the full
    /// rate on a 400 kbit/s link queued ~160 ms in the first 100 ms.
    package func probe(
        at bitsPerSecond: Int, forNs: UInt64 = 2_000_000_000, rampNs: UInt64 = 0, nowNs: UInt64 = StageTimer.now()
    ) {
        state.withLock { s in
            s.bitsPerSecond = max(0, bitsPerSecond)
            s.untilNs = bitsPerSecond > 0 ? nowNs &+ forNs : nil
            s.creditBits = 0
            s.lastNs = nowNs
            s.startNs = nowNs
            s.rampNs = rampNs
        }
    }

    /// The rate probed at `nowNs`, bit/s: on the ramp, or the whole rate after it.
    private static func rate(_ s: State, nowNs: UInt64) -> Double {
        let into = nowNs >= s.startNs ? nowNs - s.startNs : 0
        guard s.rampNs > 0, into < s.rampNs else { return Double(s.bitsPerSecond) }
        return Double(s.bitsPerSecond) * Double(into) / Double(s.rampNs)
    }

    /// Retransmissions asked for so far.
    package var requestsSent: Int { state.withLock { $0.requested } }

    /// Whether the viewer has a retransmission sender to probe with (it negotiated RTX).
    package var canProbe: Bool { retransmissionSender(for: state.withLock { $0.recent.last?.ssrc }) != nil }

    private func handle(_ packets: [RTPPacketSummary]) {
        guard let last = packets.last else { return }
        let due = state.withLock { s -> [RTPPacketSummary] in
            // The packets passing now are not in rtprtxsend's history yet: asked for after.
            defer {
                s.recent.append(contentsOf: packets)
                if s.recent.count > Self.kept { s.recent.removeFirst(s.recent.count - Self.kept) }
            }
            guard s.bitsPerSecond > 0, last.marker else { return [] }
            let now = StageTimer.now()
            if let until = s.untilNs, now >= until {
                s.bitsPerSecond = 0
                return []
            }
            s.creditBits += Self.rate(s, nowNs: now) * Double(now &- (s.lastNs ?? now)) / 1e9
            s.lastNs = now
            return Self.spend(&s)
        }
        guard !due.isEmpty, let sender = retransmissionSender(for: last.ssrc) else { return }
        for packet in due { _ = sender.sendEvent(.retransmissionRequest(ssrc: packet.ssrc, sequence: packet.sequence)) }
    }

    /// The packets to ask for again now, newest first, each once, while the credit pays for them.
    private static func spend(_ s: inout State) -> [RTPPacketSummary] {
        var due: [RTPPacketSummary] = []
        while due.count < min(maxBurst, s.recent.count) {
            let packet = s.recent[s.recent.count - 1 - due.count]
            let bits = Double(packet.size * 8)
            guard s.creditBits >= bits else { break }
            s.creditBits -= bits
            due.append(packet)
        }
        // A late frame does not save up a burst.
        s.creditBits = min(s.creditBits, Double(maxBurst * 1_200 * 8))
        s.requested += due.count
        return due
    }

    /// The source pad of the `rtprtxsend` inside the viewer's webrtcbin that retransmits
    /// `ssrc` (it appears when the session is negotiated with RTX; with one session per medium
    /// there may be one per session), or the only one when `ssrc` is not known yet.
    private func retransmissionSender(for ssrc: UInt32? = nil) -> Pad? {
        if let pad = sender.withLock({ $0 }) { return pad }
        guard let bin = webrtcbin.cast(to: Bin.self) else { return nil }
        let senders = bin.descendants.filter { $0.factoryName == "rtprtxsend" }
        let chosen =
            senders.count == 1
            ? senders.first
            : senders.first { rtx in ssrc.map { rtx.structureProperty("ssrc-map")?.fieldNames.contains(String($0)) ?? false } ?? false }
        guard let pad = chosen?.staticPad("src") else { return nil }
        sender.withLock { $0 = pad }
        return pad
    }
}
