import Foundation
import Synchronization

/// Whether a shared network source is delivering media, and its outages: when media stopped
/// (an error, the end of its stream, or nothing for a while), why, and how long it was away.
/// Buffers are counted lock-free on the streaming thread; the rest is rare and locked.
package final class SourceHealth: Sendable {
    /// One time the source went away.
    package struct Outage: Sendable, Equatable {
        /// When media stopped.
        package var start: ContinuousClock.Instant
        /// When media came back (nil: still away).
        package var end: ContinuousClock.Instant?
        /// Why it stopped, in the source's words.
        package var reason: String
        /// Reconnect attempts made so far.
        package var attempts: Int
    }

    /// The source as the user knows it (its URL without the password).
    package let label: String
    private let origin = ContinuousClock.now
    /// Nanoseconds from `origin` to the latest buffer (0: none yet).
    private let lastBuffer = Atomic<Int>(0)
    /// Nanoseconds from `origin` to the latest reconnect (0: none).
    private let lastRestart = Atomic<Int>(0)
    /// Whether an outage is open (the one case where a buffer takes the lock).
    private let away = Atomic<Bool>(false)
    private let outages = Mutex<[Outage]>([])

    package init(label: String) { self.label = label }

    /// A buffer came from the source. Returns the outage this buffer ended, if any.
    @discardableResult
    package func delivered(at now: ContinuousClock.Instant = .now) -> Outage? {
        lastBuffer.store(max(1, Int((now - origin).nanoseconds)), ordering: .relaxed)
        guard away.load(ordering: .relaxed) else { return nil }
        return outages.withLock { list -> Outage? in
            guard away.load(ordering: .relaxed), var last = list.last, last.end == nil else { return nil }
            last.end = now
            list[list.count - 1] = last
            away.store(false, ordering: .relaxed)
            return last
        }
    }

    /// Whether the source has ever delivered a buffer.
    package var hasDelivered: Bool { lastBuffer.load(ordering: .relaxed) > 0 }

    /// Media stopped for `reason`. Returns the reconnect attempt to make next (1 for a new
    /// outage, then 2, 3, …), or nil if the source never delivered: a source that never
    /// came up is a mistake to report, not an outage to wait out.
    package func lost(_ reason: String, at now: ContinuousClock.Instant = .now) -> Int? {
        guard hasDelivered else { return nil }
        return outages.withLock { list -> Int in
            if away.load(ordering: .relaxed), var last = list.last, last.end == nil {
                last.attempts += 1
                list[list.count - 1] = last
                return last.attempts
            }
            list.append(Outage(start: now, end: nil, reason: reason, attempts: 1))
            away.store(true, ordering: .relaxed)
            return 1
        }
    }

    /// The source was made again (a reconnect attempt).
    package func restarted(at now: ContinuousClock.Instant = .now) {
        lastRestart.store(Int((now - origin).nanoseconds), ordering: .relaxed)
    }

    /// How long since the latest buffer or reconnect, whichever came last (nil before the
    /// first buffer): a source silent this long after a reconnect needs another.
    package func silence(at now: ContinuousClock.Instant = .now) -> Duration? {
        let last = lastBuffer.load(ordering: .relaxed)
        guard last > 0 else { return nil }
        return (now - origin) - .nanoseconds(max(last, lastRestart.load(ordering: .relaxed)))
    }

    /// Every outage so far (the last may still be open).
    package var history: [Outage] { outages.withLock { $0 } }

    /// The wait before reconnect attempt `attempt`: 1 s doubling to 30 s, then 30 s, each
    /// moved by up to ±20% (`jitter` in -1...1) so many sources do not retry in step.
    package static func backoff(attempt: Int, jitter: Double) -> Duration {
        let base = min(30.0, pow(2.0, Double(max(0, attempt - 1))))
        return .milliseconds(Int(base * (1 + 0.2 * max(-1, min(1, jitter))) * 1000))
    }
}

extension Duration {
    /// The duration in whole nanoseconds (saturating).
    package var nanoseconds: Int64 {
        let (s, atto) = components
        return s.multipliedReportingOverflow(by: 1_000_000_000).partialValue + atto / 1_000_000_000
    }
}
