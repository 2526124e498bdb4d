import Synchronization

/// The bitrate of one encoder that several served viewers share (`sluice serve`, a stream
/// with `encode.bitrate: {min, start, max}`): each viewer's own estimate (its
/// `CongestionControl`) is a vote, and the encoder follows the lowest, within the limits.
/// So every viewer gets a stream its link carries; the price is that the narrowest link sets
/// the rate for all. With no viewers the encoder goes back to the start rate.
///
/// A new viewer's estimate starts at the current rate (what it is being sent), not at the
/// start rate, so a viewer joining does not pull the others down by itself.
package final class SharedEncoderRate: Sendable {
    package let limits: BitrateLimits
    private let apply: @Sendable (Int) -> Void
    private struct State { var votes: [String: Int] = [:]; var applied: Int }
    private let state: Mutex<State>

    /// `apply` sets the encoder's bitrate (bit/s); it is called with the lock held, so calls
    /// never reorder.
    package init(limits: BitrateLimits, apply: @escaping @Sendable (Int) -> Void) {
        self.limits = limits; self.apply = apply
        state = Mutex(State(applied: limits.start))
    }

    /// The rate the encoder was last set to, bit/s.
    package var current: Int { state.withLock { $0.applied } }

    /// The limits a new viewer's estimator starts from: the stream's, starting at the
    /// current rate.
    package var limitsForNewViewer: BitrateLimits {
        BitrateLimits(min: limits.min, start: limits.clamp(Double(current)), max: limits.max)
    }

    /// A viewer's estimate changed.
    package func vote(_ viewer: String, bitsPerSecond: Int) {
        state.withLock { s in
            s.votes[viewer] = limits.clamp(Double(bitsPerSecond))
            settle(&s)
        }
    }

    /// A viewer left: its vote no longer counts.
    package func withdraw(_ viewer: String) {
        state.withLock { s in
            guard s.votes.removeValue(forKey: viewer) != nil else { return }
            settle(&s)
        }
    }

    /// Sets the encoder to the lowest vote (the start rate without votes) when that differs
    /// from what it was set to by more than 3%, or reaches a limit.
    private func settle(_ s: inout State) {
        let target = s.votes.values.min() ?? limits.start
        guard target != s.applied else { return }
        if abs(target - s.applied) * 100 > s.applied * 3 || target == limits.min || target == limits.max {
            s.applied = target
            apply(target)
        }
    }
}
