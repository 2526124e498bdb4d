import Foundation
import GStreamer
import Synchronization

/// Bounds on served viewers.
public struct ViewerLimits: Sendable {
    /// A viewer whose ICE has not connected this long after its answer is removed.
    public var connectTimeout: Double = 8
    /// A connected viewer that sends no RTCP for this long is gone (it vanished without
    /// DELETE). Browsers, aiortc, Pion and webrtcbin report at least every few seconds.
    public var silenceTimeout: Double = 6
    /// How often viewers are checked.
    public var checkInterval: Double = 1
    /// Most viewers per stream.
    public var maxViewers: Int = 500
    /// How often each viewer's webrtcbin statistics are read for `/metrics` (packets sent and
    /// lost, RTT, jitter, NACK/PLI/FIR, retransmissions); 0 turns the reading off. Each
    /// second would cost about 1% of a core with 32 viewers (Benchmarks/viewer-stats-cost.sh);
    /// every 5 s is a fifth of that, and still three readings per default Prometheus scrape.
    public var statsInterval: Double = 5
    /// How many threads push a stream's buffers to its viewers (`FanoutLanes`); 0 gives each
    /// viewer a thread of its own, as before lanes. A ladder's viewers and those that get the
    /// stream encoded again always have their own.
    public var lanes: Int = FanoutLanes.perCore * ProcessInfo.processInfo.activeProcessorCount
    /// The default limits: 8 s to connect, 6 s of RTCP silence, checks every second, 500 viewers, statistics every 5 s, four lanes per core.
    public init() {}
}

/// What is known about a viewer's liveness, updated from GStreamer threads.
package final class ViewerHealth: Sendable {
    package let created = ContinuousClock.now
    private let lastHeard = Mutex<ContinuousClock.Instant?>(nil)
    private let connectedAt = Mutex<ContinuousClock.Instant?>(nil)
    private let failure = Mutex<String?>(nil)

    /// The last time RTCP (or RTP) arrived from the viewer.
    package var lastHeardFrom: ContinuousClock.Instant? { lastHeard.withLock { $0 } }
    /// Why the viewer's branch failed, if it did.
    package var failed: String? { failure.withLock { $0 } }

    private let mediaSeen = Atomic<Int>(0)

    package func fail(_ why: String) { failure.withLock { if $0 == nil { $0 = why } } }
    package func heard() { lastHeard.withLock { $0 = .now } }
    /// Counts media arriving as a sign of life, as good as RTCP: `count` is a running total
    /// of what arrived; any change since the last call counts as heard.
    package func heard(mediaCount count: Int) {
        if mediaSeen.exchange(count, ordering: .relaxed) != count { heard() }
    }

    /// When ICE was first seen connected (nil before).
    package func connected(_ isConnected: Bool, now: ContinuousClock.Instant) -> ContinuousClock.Instant? {
        connectedAt.withLock { at in
            if at == nil, isConnected { at = now }
            return at
        }
    }

    /// Notes each RTCP report (and RTP) from the remote side: rtpbin's `on-ssrc-active`
    /// fires for the sender of every report block it processes.
    package func watchRTCP(of webrtcbin: Element) {
        guard let rtpbin = webrtcbin.cast(to: Bin.self)?.child(named: "rtpbin") else { return }
        // Captures only this object, not the webrtcbin.
        rtpbin.connect("on-ssrc-active") { [weak self] (_: borrowing SignalArguments) in self?.heard() }
    }
}

/// Decides whether a viewer is dead (RFC 7675's idea — consent expires without traffic from
/// the peer — applied to RTCP, since webrtcbin 1.22's libnice agent is made without consent
/// freshness and cannot be told otherwise).
package enum ViewerReaper {
    /// The reason to remove the viewer, or nil if it looks alive.
    package static func verdict(
        health: ViewerHealth, states: PeerStates, now: ContinuousClock.Instant,
        limits: ViewerLimits
    ) -> String? {
        if health.failed != nil { return "failed" }
        if states.iceFailed || states.iceConnection == "closed" { return "ice-failed" }
        guard let connected = health.connected(states.iceConnected, now: now) else {
            return (now - health.created).seconds > limits.connectTimeout ? "never-connected" : nil
        }
        let heard = max(health.lastHeardFrom ?? connected, connected)
        return (now - heard).seconds > limits.silenceTimeout ? "silent" : nil
    }
}
