/// Which rung of a served ladder one viewer gets, from its own bandwidth estimate
/// (`BandwidthEstimator`, fed by the viewer's congestion control feedback).
///
/// Rungs are compared by what they actually send (`rates`, measured: a still picture
/// encodes below its nominal bitrate), best first.
/// - **Down** at once when the estimate falls below 80% of the current rung's rate: to the
///   best rung that fits the estimate. (Not 90%: a rung that fills most of a link sees GCC
///   cut the estimate to 85% of what arrived at each overuse, and would leave a rung the
///   link carries.)
/// - **Up** when a better rung fits with room (its rate at most 90% of the estimate), at
///   most once a second.
/// - **Probe up.** The estimate cannot show much more than the path has carried (the
///   estimator keeps it within 1.5× what arrived), so a viewer on a low rung may never see
///   the next one fit. When the estimate has stayed clearly above what arrives (≥ 1.2×,
///   while rising) for `probeWait`, the viewer tries the next rung; the estimator is told
///   to expect its rate (`BandwidthEstimator.expect`). If the path cannot carry it, the
///   estimate falls within a second or so and the viewer goes back to the rung it came from
///   (a failed probe says nothing against that one), where for 2 s only a deep fall (below
///   half its rate) moves it further down: the estimate dips while the probe's queue drains.
///   The next try waits twice as long (4 s, doubling to 64 s). One that holds for 4 s resets
///   the wait.
/// - **Probe first** (`probesFirst`: a served viewer, whose path an `RTXProber` can probe
///   with retransmissions). The try is made without moving: retransmissions the viewer
///   drops fill its stream up to a little over the next rung's rate (`.probe`), reached
///   over `probeRampNs`. If for `probeProofNs` after that what arrives keeps up with it
///   (≥ 90%) while the queue on the path stays
///   under `probeQueueMs` and nothing is lost, the viewer moves up (`.to`, probing stops);
///   if the queue grows, a packet is lost, or what arrives falls short, probing stops
///   (`.stopProbing`) and the next try waits twice as long (2 s, doubling to 4 s: a failed
///   probe costs a short queue and lost retransmissions, never a picture, so it can be made
///   often enough for a link that came back to be found within seconds). A viewer that
///   cannot be probed (no RTX) is told so once (`cannotProbe`) and tries by moving.
///
/// Pure arithmetic on the readings (no clock of its own, no GStreamer).
package struct RenditionChoice: Sendable, Equatable {
    package enum Move: Sendable, Equatable {
        case stay
        /// To rung `index`; `probing`: a try the estimate has not shown fits yet.
        case to(Int, probing: Bool)
        /// Back to rung `index`, where a failed try started: the estimate should return to
        /// that rung's rate (`BandwidthEstimator.recover`).
        case back(Int)
        /// Probe the viewer's path at this many bit/s on top of its stream: a try of the next
        /// rung (`probesFirst`).
        case probe(Int)
        /// Stop probing: the try failed; the estimate should return to the current rung's
        /// rate (`BandwidthEstimator.recover`).
        case stopProbing
    }

    /// A probe under way: since when, and the rate (stream and probe) it tries.
    private struct ProbedTry: Sendable, Equatable {
        var sinceNs: UInt64
        var bitsPerSecond: Int
        /// The queue at the previous reading of this try, ms.
        var lastQueueMs: Double?
    }

    /// How many rungs the ladder has.
    package let count: Int
    package private(set) var current: Int
    private var lastMoveNs: UInt64?
    private var probeStartNs: UInt64?
    private var probeFrom: Int?
    private var steadyUntilNs: UInt64?
    package private(set) var probeWaitNs: UInt64
    /// Whether tries probe the viewer's path before moving it (a served viewer's ladder), or
    /// move it (a publisher's own layers, `SimulcastLayerSwitch`; a viewer without RTX).
    package private(set) var probesFirst: Bool
    private var probing: ProbedTry?
    private var lastTryEndNs: UInt64?

    package static let downBelow = 0.8
    /// A better rung fits when its rate is at most this share of the estimate.
    package static let upWithin = 0.9
    package static let probeHeadroom = 1.2
    package static let minProbeWaitNs: UInt64 = 4_000_000_000
    package static let maxProbeWaitNs: UInt64 = 64_000_000_000
    /// A probe that has not been undone after this long succeeded.
    package static let probeHoldsNs: UInt64 = 4_000_000_000
    package static let upEveryNs: UInt64 = 1_000_000_000
    /// After a failed probe, how long only a deep fall moves the viewer down.
    package static let settleAfterProbeNs: UInt64 = 2_000_000_000
    package static let deepFall = 0.5
    /// A probe succeeds once what arrives has kept up with it this long (the estimator's
    /// rate window, 0.5 s, full of probed traffic).
    package static let probeProofNs: UInt64 = 600_000_000
    /// A probe's rate rises to its aim over this long (`RTXProber`): what is proved, and
    /// what falls short, counts from its end.
    package static let probeRampNs: UInt64 = 300_000_000
    /// A probe fails once the queue on the path, past this (ms), grows again, or passes twice this.
    /// At 50 ms (and probes 15% over, at once), the failed tries of a viewer behind
    /// 400 kbit/s set its delay's 95th percentile (151 ms) and its freezes (up to 347 ms);
    /// now, with probes 5% over reached in 0.3 s: 55–69 ms, no freeze
    /// (`Benchmarks/simulcast-links.sh`). A bound of 25 ms alone kept a viewer whose next
    /// rung needs 87% of its link from it (`Benchmarks/ladder.sh`, 3 Mbit/s).
    package static let probeQueueMs = 25.0
    /// A probe fails if it has not succeeded after this long.
    package static let probeMaxNs: UInt64 = 1_800_000_000
    /// What a probe aims at: this much over the next rung's rate. (15% over, near links
    /// filled the 25-ms queue bound: `Benchmarks/ladder.sh` had 8 of 10 viewers on the right
    /// rung; 5% over, 9.)
    package static let probeAbove = 1.05
    package static let minProbedWaitNs: UInt64 = 2_000_000_000
    package static let maxProbedWaitNs: UInt64 = 4_000_000_000

    package init(count: Int, start: Int, probesFirst: Bool = false) {
        self.count = max(1, count)
        current = min(max(0, start), self.count - 1)
        self.probesFirst = probesFirst
        probeWaitNs = probesFirst ? Self.minProbedWaitNs : Self.minProbeWaitNs
    }

    /// Whether a probe is under way.
    package var isProbing: Bool { probing != nil }

    /// The viewer cannot be probed (it negotiated no RTX): any probe under way ends, and
    /// tries move the viewer from now on, with their waits.
    package mutating func cannotProbe() {
        probesFirst = false
        probing = nil
        probeWaitNs = Self.minProbeWaitNs
    }

    /// Takes one reading: the estimate (bit/s), each rung's rate now (bit/s, best first; as
    /// many as `count`), what the viewer received lately (bit/s, if known), whether the
    /// estimator is in its increasing state, the queue on the path (ms, if known) and the
    /// time (monotonic ns).
    package mutating func update(
        estimate: Int, rates: [Int], received: Double?, increasing: Bool, queueMs: Double? = nil, lost: Int = 0, nowNs: UInt64
    ) -> Move {
        guard rates.count == count, count > 1, estimate > 0 else { return .stay }
        if let probing { return verdict(on: probing, received: received, queueMs: queueMs, lost: lost, nowNs: nowNs) }
        // A clock that goes back counts as no time passed (never as a wrap-around).
        if lastMoveNs.map({ nowNs < $0 }) ?? true { lastMoveNs = nowNs }
        let since = nowNs - (lastMoveNs ?? nowNs)
        if let started = probeStartNs, nowNs < started { probeStartNs = nowNs }
        if let started = probeStartNs, nowNs - started >= Self.probeHoldsNs {
            probeStartNs = nil
            probeFrom = nil
            probeWaitNs = Self.minProbeWaitNs
        }
        if let until = steadyUntilNs, nowNs >= until || nowNs + Self.settleAfterProbeNs < until { steadyUntilNs = nil }
        let e = Double(estimate)
        if current < count - 1, e < Self.downBelow * Double(rates[current]) {
            // A probe that failed: back where it came from, and let the estimate recover.
            if probeStartNs != nil, let from = probeFrom {
                probeStartNs = nil
                probeFrom = nil
                probeWaitNs = min(probeWaitNs * 2, Self.maxProbeWaitNs)
                steadyUntilNs = nowNs + Self.settleAfterProbeNs
                return move(to: from, probing: false, nowNs: nowNs) == .stay ? .stay : .back(from)
            }
            // Down: the best rung that fits, or the least (soon after a failed probe, only
            // when the estimate fell deep).
            if steadyUntilNs == nil || e < Self.deepFall * Double(rates[current]) {
                let fits = (current + 1..<count).first { Double(rates[$0]) <= e } ?? count - 1
                return move(to: fits, probing: false, nowNs: nowNs)
            }
            return .stay
        }
        guard current > 0 else { return .stay }
        // Up to a rung that fits with room.
        if since >= Self.upEveryNs, let better = (0..<current).first(where: { Double(rates[$0]) <= Self.upWithin * e }) {
            return move(to: better, probing: false, nowNs: nowNs)
        }
        // Try the next rung, once the path carries this one (a viewer whose link cannot
        // carry its rung tried, failed, had its estimate put back to the rung's rate, and
        // never moved down: `RelaySimulcastEndToEndTests`, a 250 kbit/s link on 300).
        let arriving = received ?? Double(rates[current])
        let sinceTry = lastTryEndNs.map { nowNs >= $0 ? nowNs - $0 : 0 } ?? since
        let carried = arriving >= Self.upWithin * Double(rates[current])
        if increasing, carried, probeStartNs == nil, min(since, sinceTry) >= probeWaitNs, e >= Self.probeHeadroom * arriving {
            if probesFirst {
                let aim = Int(Double(rates[current - 1]) * Self.probeAbove)
                probing = ProbedTry(sinceNs: nowNs, bitsPerSecond: aim)
                return .probe(max(0, aim - rates[current]))
            }
            probeStartNs = nowNs
            probeFrom = current
            return move(to: current - 1, probing: true, nowNs: nowNs)
        }
        return .stay
    }

    /// A probe's outcome so far: up once what arrives has kept up with it for
    /// `probeProofNs` after its ramp; over when the queue grows, a packet is lost (a queue that counts
    /// packets overflows before it delays much), what arrives falls short, or it lasts
    /// `probeMaxNs`.
    private mutating func verdict(on t: ProbedTry, received: Double?, queueMs: Double?, lost: Int, nowNs: UInt64) -> Move {
        let elapsed = nowNs >= t.sinceNs ? nowNs - t.sinceNs : 0
        let keptUp = (received ?? 0) >= Self.upWithin * Double(t.bitsPerSecond)
        // A queue past the bound that grows again past it: the path cannot carry the probe.
        // One that stays near it is the bursts of a path nearly full, which carries it (up
        // to twice the bound).
        let queue = queueMs ?? 0, last = t.lastQueueMs ?? 0
        let growing = queue > Self.probeQueueMs && last > Self.probeQueueMs && queue > last
        let queued = growing || queue > 2 * Self.probeQueueMs || lost > 0
        probing?.lastQueueMs = queue
        let proved = elapsed >= Self.probeRampNs + Self.probeProofNs
        if !queued, keptUp, proved, current > 0 {
            probing = nil
            lastTryEndNs = nowNs
            probeWaitNs = Self.minProbedWaitNs
            return move(to: current - 1, probing: false, nowNs: nowNs)
        }
        let shortfall = proved && (received ?? 0) < Self.downBelow * Double(t.bitsPerSecond)
        guard queued || shortfall || elapsed >= Self.probeMaxNs else { return .stay }
        probing = nil
        lastTryEndNs = nowNs
        probeWaitNs = min(probeWaitNs * 2, Self.maxProbedWaitNs)
        steadyUntilNs = nowNs + Self.settleAfterProbeNs
        return .stopProbing
    }

    private mutating func move(to index: Int, probing: Bool, nowNs: UInt64) -> Move {
        guard index != current else { return .stay }
        current = index
        lastMoveNs = nowNs
        return .to(index, probing: probing)
    }

    /// The move to `current` has been made (its keyframe went out) at `nowNs`: a try of it,
    /// and the wait before the next move, count from now, not from when it was decided.
    package mutating func arrived(nowNs: UInt64) {
        lastMoveNs = nowNs
        if probeStartNs != nil { probeStartNs = nowNs }
    }

    /// Starts over on rung `index` (an operator's or test's pin), with no probe running.
    package mutating func reset(to index: Int, nowNs: UInt64) {
        current = min(max(0, index), count - 1)
        lastMoveNs = nowNs
        probeStartNs = nil
        probeFrom = nil
        steadyUntilNs = nil
        probing = nil
    }
}
