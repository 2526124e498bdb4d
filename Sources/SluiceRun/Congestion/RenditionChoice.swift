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
    }

    /// How many rungs the ladder has.
    package let count: Int
    package private(set) var current: Int
    private var lastMoveNs: UInt64?
    private var probeStartNs: UInt64?
    private var probeFrom: Int?
    private var steadyUntilNs: UInt64?
    package private(set) var probeWaitNs: UInt64 = Self.minProbeWaitNs

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

    package init(count: Int, start: Int) {
        self.count = max(1, count)
        current = min(max(0, start), self.count - 1)
    }

    /// Takes one reading: the estimate (bit/s), each rung's rate now (bit/s, best first; as
    /// many as `count`), what the viewer received lately (bit/s, if known), whether the
    /// estimator is in its increasing state, and the time (monotonic ns).
    package mutating func update(estimate: Int, rates: [Int], received: Double?, increasing: Bool, nowNs: UInt64) -> Move {
        guard rates.count == count, count > 1, estimate > 0 else { return .stay }
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
        // Try the next rung.
        let arriving = received ?? Double(rates[current])
        if increasing, probeStartNs == nil, since >= probeWaitNs, e >= Self.probeHeadroom * arriving {
            probeStartNs = nowNs
            probeFrom = current
            return move(to: current - 1, probing: true, nowNs: nowNs)
        }
        return .stay
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
    }
}
