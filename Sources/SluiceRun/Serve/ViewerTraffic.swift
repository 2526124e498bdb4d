import GStreamer
import Synchronization

/// What went to one served viewer, as its webrtcbin and its leaky queues report it: read
/// by the stream's poll (`ViewerLimits.statsInterval`) and counted by the queues' `overrun`
/// signal. The stream's `/metrics` sums these over its viewers.
package final class ViewerTraffic: Sendable {
    /// The last `get-stats` reply, summed (outbound RTP, the viewer's receiver reports).
    private let latest = Mutex<WebRTCStats>(WebRTCStats())
    private let rtxPackets = Atomic<Int>(0)
    private let overruns = Atomic<Int>(0)
    /// A lane the viewer is on, and its queue's drops when the viewer joined it.
    private struct LaneDrops {
        var lane: FanoutLanes.Lane
        var atJoin: Int
        var since: Int { lane.overruns - atJoin }
    }
    private let lanes = Mutex<[LaneDrops]>([])
    /// Counts each time one of the viewer's leaky queues was full and dropped its oldest
    /// buffer to take a new one (GstQueue emits `overrun` once per buffer that finds it full).
    package func countOverruns(of queue: Element) {
        queue.connect("overrun") { [weak self] (_: borrowing SignalArguments) in
            self?.overruns.add(1, ordering: .relaxed)
        }
    }

    /// Counts the drops of a lane's queue from now on as the viewer's: each was a buffer it
    /// did not get.
    package func countOverruns(of lane: FanoutLanes.Lane) {
        let now = lane.overruns
        lanes.withLock { joined in
            // A viewer that takes a rung again sits on one of its lanes again: counted once.
            guard !joined.contains(where: { $0.lane === lane }) else { return }
            joined.append(LaneDrops(lane: lane, atJoin: now))
        }
    }

    /// Closed when the viewer is removed: its teardown waits for a read under way.
    package let gate = StatsGate()

    /// Reads the viewer's statistics now, unless it is being removed. A webrtcbin that does
    /// not answer keeps the last figures (`WebRTCPeer.stats` gives up after 5 s).
    package func poll(peer: WebRTCPeer, webrtcbin: Element) async {
        guard gate.enter() else { return }
        defer { gate.leave() }
        if let reply = await peer.stats() {
            let stats = WebRTCStats(reply)
            latest.withLock { $0 = stats }
        }
        rtxPackets.store(WebRTCStats.retransmittedPackets(in: webrtcbin), ordering: .relaxed)
    }

    /// The running totals (they only grow while the viewer lasts).
    package var totals: TrafficTotals {
        let s = latest.withLock { $0 }
        return TrafficTotals(
            packetsSent: s.packetsSent, bytesSent: s.bytesSent, packetsLost: s.packetsLost,
            nacks: s.nackCount, plis: s.pliCount, firs: s.firCount,
            rtxPackets: rtxPackets.load(ordering: .relaxed),
            queueOverruns: overruns.load(ordering: .relaxed) + lanes.withLock { $0.reduce(0) { $0 + $1.since } })
    }

    /// Round trip and the jitter the viewer reports, in milliseconds, once its first receiver
    /// report arrived.
    package var lastReport: (roundTripMs: Double?, jitterMs: Double?) {
        latest.withLock { ($0.roundTripMs, $0.remoteJitterMs) }
    }
}

/// Counters summed over viewers: what the stream sent, what its viewers reported lost and
/// asked to repair (NACK → retransmissions, PLI/FIR → keyframes), and what their leaky
/// queues dropped.
public struct TrafficTotals: Sendable, Equatable {
    /// RTP packets sent to the viewers.
    public var packetsSent = 0
    /// RTP bytes sent to the viewers.
    public var bytesSent = 0
    /// Packets the viewers reported lost (RTCP receiver reports).
    public var packetsLost = 0
    /// NACKs (retransmission requests) the viewers sent.
    public var nacks = 0
    /// Picture loss indications (PLI, keyframe requests) the viewers sent.
    public var plis = 0
    /// Full intra requests (FIR, keyframe requests) the viewers sent.
    public var firs = 0
    /// Packets retransmitted (RTX) in answer to NACKs.
    public var rtxPackets = 0
    /// Times a viewer's leaky queue dropped a buffer because the viewer was behind.
    public var queueOverruns = 0

    /// Totals from the given counts (all zero by default).
    public init(
        packetsSent: Int = 0, bytesSent: Int = 0, packetsLost: Int = 0, nacks: Int = 0, plis: Int = 0,
        firs: Int = 0, rtxPackets: Int = 0, queueOverruns: Int = 0
    ) {
        self.packetsSent = packetsSent; self.bytesSent = bytesSent; self.packetsLost = packetsLost
        self.nacks = nacks; self.plis = plis; self.firs = firs; self.rtxPackets = rtxPackets
        self.queueOverruns = queueOverruns
    }

    /// The two totals added counter by counter.
    public static func + (a: TrafficTotals, b: TrafficTotals) -> TrafficTotals {
        TrafficTotals(
            packetsSent: a.packetsSent + b.packetsSent, bytesSent: a.bytesSent + b.bytesSent,
            packetsLost: a.packetsLost + b.packetsLost, nacks: a.nacks + b.nacks, plis: a.plis + b.plis,
            firs: a.firs + b.firs, rtxPackets: a.rtxPackets + b.rtxPackets,
            queueOverruns: a.queueOverruns + b.queueOverruns)
    }
}

/// A stream's viewers' traffic at one moment: totals since the stream started (viewers that
/// left included) and each current viewer's last round trip and jitter.
public struct ViewerTrafficReport: Sendable, Equatable {
    /// Counters since the stream started, viewers that left included.
    public var totals = TrafficTotals()
    /// Seconds, one per current viewer that has reported.
    public var roundTrips: [Double] = []
    /// Seconds, one per current viewer that has reported: the interarrival jitter it reports.
    public var jitters: [Double] = []

    /// An empty report.
    public init() {}

    /// The median and the largest of `values` (nil when empty).
    public static func medianAndMax(_ values: [Double]) -> (median: Double, max: Double)? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let mid = sorted.count / 2
        let median = sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
        return (median, sorted[sorted.count - 1])
    }
}
