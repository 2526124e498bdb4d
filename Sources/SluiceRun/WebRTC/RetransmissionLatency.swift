import GStreamer
import Logging

/// Gives a receiving jitter buffer the time a retransmission needs.
///
/// A lost packet is NACKed about a packet interval after the gap shows; its retransmission
/// arrives a round trip later, and a retransmission that is itself lost is asked for again
/// after another. A jitter buffer whose latency is shorter than that declares the packet
/// lost while its repair is on the way. Measured (`sluice measure Pipelines/adaptive.yaml
/// --processes 2 --netem "delay 40ms loss 5%"`): the file's 50 ms read back 50% of the
/// frames, 120 ms 95%, 200 ms 100%.
///
/// The file's `transport.latency` stays the floor: in-order packets leave the jitter buffer
/// at once whatever its latency, so waiting longer costs only when a packet is missing.
/// When the jitter buffer asks for a retransmission, or declares a packet lost although
/// retransmission was requested for it, and it knows the round trip of earlier repairs
/// (rtpjitterbuffer measures its own requests, late answers included), the buffer's latency
/// rises to `needed(…)`: room for the request, the repair, one more try and a margin. Never above `ceilingMs`; never lowered during a session. The pipeline then
/// recalculates its latency (the runner answers the jitter buffer's `latency` message).
public enum RetransmissionLatency {
    /// The most a jitter buffer is raised to: past this, a keyframe request repairs sooner.
    public static let ceilingMs: UInt32 = 300

    /// The latency in ms that leaves room for a NACK, a retransmission and one more try, given
    /// the measured retransmission round trip and the current latency: `3 × rtt + 30`, rounded
    /// up to 10 ms, at most `ceilingMs`, never below `currentMs`. Without a measured round
    /// trip (nil, zero, not finite): `currentMs` — no retransmission has come back, so
    /// waiting longer would repair nothing.
    public static func needed(rtxRoundTripMs: Double?, currentMs: UInt32) -> UInt32 {
        guard let rtt = rtxRoundTripMs, rtt > 0, rtt.isFinite else { return currentMs }
        let want = 3 * rtt + 30
        let rounded = UInt32(min(Double(ceilingMs), (want / 10).rounded(.up) * 10))
        return max(currentMs, rounded)
    }

    /// Watches every jitter buffer `webrtcbin`'s rtpbin makes (`new-jitterbuffer`).
    package static func attach(to rtpbin: Element) {
        // The jitter buffer is the signal's argument: the handler captures nothing.
        rtpbin.connect("new-jitterbuffer") { (args: borrowing SignalArguments) -> Void in
            guard let jitterBuffer = args.object(1, as: Element.self), let src = jitterBuffer.staticPad("src"),
                let sink = jitterBuffer.staticPad("sink")
            else { return }
            // Start on the first packets instead of holding the first one for the whole
            // latency. 1.22's `faststart-min-packets` alone does not do it: the stream-start,
            // caps and segment events queue ahead of the first packet, the fast-start check
            // sees an event at the head and fails, and the output thread sleeps until the
            // first packet's deadline (measured: the file's 50 ms on every loopback start).
            // So the buffer starts with a short latency and gets the file's back as soon as
            // its first buffer leaves (from a task: the property takes the buffer's lock).
            if jitterBuffer.hasProperty("faststart-min-packets") { try? jitterBuffer.set("faststart-min-packets", fastStartPackets) }
            // NACK only packets a later one shows missing. rtpjitterbuffer's default also NACKs
            // "the next packet" when it is later than the packet spacing predicts: behind a
            // queue every packet is, each NACK brought a retransmission of a packet still
            // queued, and that load grew the queue (behind 1 Mbit/s: latency p95 after 5 s
            // 237–350 ms in 4 of 5 runs once RTX worked for H.264, against 73 ms without RTX).
            if jitterBuffer.hasProperty("rtx-next-seqnum") { try? jitterBuffer.set("rtx-next-seqnum", false) }
            if let latency = jitterBuffer.get("latency", as: UInt32.self), latency > startLatencyMs {
                try? jitterBuffer.set("latency", startLatencyMs)
                src.addProbe(.buffer) { (info: borrowing Pad.ProbeInfo) in
                    if let element = info.padReference.parentElement {
                        Task.detached {
                            // Unless repairs have raised it meanwhile.
                            if (element.get("latency", as: UInt32.self) ?? 0) < latency { try? element.set("latency", latency) }
                        }
                    }
                    return .remove
                }
            }
            // Each retransmission request: once a round trip has been measured, make room for
            // it before anything is lost. The jitter buffer sends requests holding its own
            // lock, which reading its properties takes too: the work runs on a task of its
            // own, which holds the element only until it is done.
            sink.addProbe(.eventUpstream) { (info: borrowing Pad.ProbeInfo) in
                guard info.eventName == "GstRTPRetransmissionRequest", let element = info.padReference.parentElement else { return .ok }
                Task.detached { raise(element) }
                return .ok
            }
            // A packet given up although retransmission was asked for: the latency was too short.
            src.addProbe(.eventDownstream) { (info: borrowing Pad.ProbeInfo) in
                guard info.eventName == "GstRTPPacketLost", let lost = info.eventStructure,
                    (lost.get("retry", as: UInt32.self) ?? 0) > 0,
                    let element = info.padReference.parentElement
                else { return .ok }
                Task.detached { raise(element) }
                return .ok
            }
        }
    }

    /// Consecutive packets that start a jitter buffer at once (`faststart-min-packets`).
    public static let fastStartPackets: UInt32 = 2
    /// A jitter buffer's latency until its first buffer leaves (then the file's): the first
    /// packet waits this long for any that overtook it. 2 ms: a keyframe's packets leave the
    /// sender within 1–2 ms of each other on loopback (5 ms held every first frame 3 ms longer).
    public static let startLatencyMs: UInt32 = 2

    private static let logger = Logger(label: "sluice.jitterbuffer")

    private static func raise(_ jitterBuffer: Element) {
        guard let current = jitterBuffer.get("latency", as: UInt32.self), current < ceilingMs else { return }
        // Without a measured round trip no retransmission has come back at all (not even
        // late): waiting longer would not repair anything, only delay every frame with a hole.
        // Measured behind a 1 Mbit/s link whose queue drops: doubling without one took the
        // buffer to 400 ms and the latency p95 from 64–129 ms to 178–324 ms, 0 packets repaired.
        guard let ns = jitterBuffer.structureProperty("stats")?.get("rtx-rtt", as: UInt64.self), ns > 0 else { return }
        let rtt = Double(ns) / 1e6
        let target = needed(rtxRoundTripMs: rtt, currentMs: current)
        guard target > current else { return }
        try? jitterBuffer.set("latency", target)
        logger.debug("jitter buffer latency \(current) → \(target) ms (retransmission round trip \(String(format: "%.0f ms", rtt)))")
    }
}
