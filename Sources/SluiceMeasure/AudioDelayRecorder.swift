import Foundation
import Synchronization

/// Collects the stamps `audiostamp-read` reads: sequence number, capture time and
/// mouth-to-ear delay, and when they arrived. Safe to feed from GStreamer's threads.
public final class AudioDelayRecorder: Sendable {
    /// One audio stamp read back.
    public struct Sample: Sendable, Equatable {
        /// The stamp's sequence number (modulo 16).
        public var sequence: Int
        /// Capture time on the monotonic clock, ms.
        public var capturedMilliseconds: Double
        /// Capture to read, ms.
        public var delayMilliseconds: Double
        /// Seconds since the recorder was made.
        public var at: Double
    }

    private let start = ContinuousClock.now
    private let samples = Mutex<[Sample]>([])
    private let unreadable = Atomic<Int>(0)

    /// An empty recorder; its clock (`at`) starts now.
    public init() {}

    /// Feeds a filter event (`audiostamp` with `sequence`, `captured_ms`, `delay_ms`, or
    /// `audiostamp-unreadable`); other events are ignored.
    public func take(event: String, fields: [String: Double]) {
        switch event {
        case "audiostamp":
            guard let s = fields["sequence"], let c = fields["captured_ms"], let d = fields["delay_ms"], d.isFinite, c.isFinite else { return }
            let at = (ContinuousClock.now - start).seconds
            samples.withLock { $0.append(Sample(sequence: Int(s), capturedMilliseconds: c, delayMilliseconds: d, at: at)) }
        case "audiostamp-unreadable":
            unreadable.add(1, ordering: .relaxed)
        default:
            break
        }
    }

    /// Every stamp read so far, in the order they arrived.
    public var all: [Sample] { samples.withLock { $0 } }
    /// Stamps read so far.
    public var count: Int { samples.withLock { $0.count } }
    /// Stamps that arrived at or after `t` seconds (for the live line's last second).
    public func since(_ t: Double) -> [Sample] { samples.withLock { s in s.filter { $0.at >= t } } }
    /// Stamps heard whose digits did not check.
    public var unreadableCount: Int { unreadable.load(ordering: .relaxed) }
}
