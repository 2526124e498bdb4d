import Foundation
import Synchronization
import SluiceRun

/// Collects the stamps the `framestamp-read` filter reads: frame number, glass-to-glass
/// latency, and when it arrived. Safe to feed from GStreamer's threads.
public final class LatencyRecorder: Sendable {
    /// One frame read back.
    public struct Sample: Sendable, Equatable {
        /// The frame number the stamp carries.
        public var number: UInt32
        /// Capture (stamp written) to decoded frame (stamp read), microseconds.
        public var latencyMicroseconds: Int
        /// Seconds since the recorder was made.
        public var at: Double
        /// When the frame was captured, monotonic µs (to line audio up with video).
        public var capturedMicroseconds: UInt64? = nil
    }

    private let start = ContinuousClock.now
    /// Wall-clock time of `at == 0` (to line up another process's timeline with this one).
    public let originUnix = Date().timeIntervalSince1970
    private let samples = Mutex<[Sample]>([])
    private let unreadable = Atomic<Int>(0)

    /// An empty recorder; its clock (`at`, `elapsed`) starts now.
    public init() {}

    /// Seconds since the recorder was made.
    public var elapsed: Double { (ContinuousClock.now - start).seconds }

    /// Records a frame read back.
    public func record(number: UInt32, latencyMicroseconds: Int, capturedMicroseconds: UInt64? = nil) {
        let at = (ContinuousClock.now - start).seconds
        samples.withLock {
            $0.append(Sample(number: number, latencyMicroseconds: latencyMicroseconds, at: at, capturedMicroseconds: capturedMicroseconds))
        }
    }

    /// Records a frame whose stamp could not be read.
    public func recordUnreadable() { unreadable.add(1, ordering: .relaxed) }

    /// Feeds a filter event from the bus (`framestamp` with `number` and `latency_us`, or
    /// `framestamp-unreadable`); other events are ignored.
    public func take(event: String, fields: [String: Double]) {
        switch event {
        case "framestamp":
            guard let n = fields["number"], let l = fields["latency_us"], n >= 0, n <= Double(UInt32.max), l.isFinite else { return }
            let captured = fields["captured_us"].flatMap { $0 >= 0 && $0.isFinite ? UInt64($0) : nil }
            record(number: UInt32(n), latencyMicroseconds: Int(l), capturedMicroseconds: captured)
        case "framestamp-unreadable":
            recordUnreadable()
        default:
            break
        }
    }

    /// Every frame read back so far, in the order they arrived.
    public var all: [Sample] { samples.withLock { $0 } }
    /// How many frames were read back so far (without copying them).
    public var count: Int { samples.withLock { $0.count } }
    /// Frames whose stamp could not be read so far.
    public var unreadableCount: Int { unreadable.load(ordering: .relaxed) }

    /// Samples that arrived at or after `t` seconds.
    public func since(_ t: Double) -> [Sample] { samples.withLock { s in s.filter { $0.at >= t } } }
}

/// Glass-to-glass figures computed from samples.
public struct LatencyFigures: Sendable, Codable, Equatable {
    /// Frames the figures are computed from.
    public var samples: Int
    /// Median glass-to-glass latency, ms (nil: no samples).
    public var p50_ms: Double?
    /// 95th-percentile glass-to-glass latency, ms (nil: no samples).
    public var p95_ms: Double?
    /// 99th-percentile glass-to-glass latency, ms (nil: no samples).
    public var p99_ms: Double?
    /// Largest glass-to-glass latency, ms (nil: no samples).
    public var max_ms: Double?
    /// Mean glass-to-glass latency, ms (nil: no samples).
    public var mean_ms: Double?
    /// Smallest glass-to-glass latency, ms (nil: no samples).
    public var min_ms: Double?

    /// Figures from `samples` (nearest-rank percentiles); all nil but `samples` when there are none.
    public init(_ samples: [LatencyRecorder.Sample]) {
        self.samples = samples.count
        let sorted = samples.map { Double($0.latencyMicroseconds) / 1000 }.sorted()
        guard !sorted.isEmpty else { return }
        p50_ms = Self.percentile(sorted, 50)
        p95_ms = Self.percentile(sorted, 95)
        p99_ms = Self.percentile(sorted, 99)
        max_ms = sorted.last
        min_ms = sorted.first
        mean_ms = sorted.reduce(0, +) / Double(sorted.count)
    }

    /// Nearest-rank percentile of sorted values.
    public static func percentile(_ sorted: [Double], _ p: Double) -> Double { StageFigures.percentile(sorted, p) }
}

/// Frame accounting from the stamp numbers read back.
public struct FrameAccounting: Sendable, Codable, Equatable {
    /// Frames the writer stamped.
    public var stamped: Int
    /// Stamps read back (duplicates included).
    public var received: Int
    /// Numbers never read, between the first and the newest number read.
    public var lost: Int
    /// Reads of a number already read.
    public var duplicated: Int
    /// Reads of a number lower than one read before it.
    public var out_of_order: Int
    /// Frames with no readable stamp at the reader.
    public var unreadable: Int
    /// Stamped frames whose stamp was never read back, whatever the reason (the headline
    /// loss figure; `lost`, `before_first_frame` and `in_flight_at_stop` tell where).
    public var not_delivered: Int
    /// Stamped frames older than the first one read: sent before the session carried media.
    public var before_first_frame: Int
    /// Stamped frames newer than the newest one read: still in flight when the run stopped.
    public var in_flight_at_stop: Int

    /// Accounting of `samples` (in arrival order) against `stamped` frames written and `unreadable` frames.
    public init(samples: [LatencyRecorder.Sample], stamped: Int, unreadable: Int) {
        self.stamped = stamped
        self.received = samples.count
        self.unreadable = unreadable
        var seen = Set<UInt32>()
        var newest: UInt32?
        var duplicated = 0, outOfOrder = 0
        for s in samples {
            if !seen.insert(s.number).inserted { duplicated += 1; continue }
            if let n = newest, s.number < n { outOfOrder += 1 }
            newest = max(newest ?? s.number, s.number)
        }
        self.duplicated = duplicated
        self.out_of_order = outOfOrder
        not_delivered = max(0, stamped - seen.count)
        if let lo = seen.min(), let hi = seen.max() {
            lost = Int(hi - lo) + 1 - seen.count
            before_first_frame = Int(lo)
            in_flight_at_stop = max(0, stamped - 1 - Int(hi))
        } else {
            lost = 0
            before_first_frame = 0
            in_flight_at_stop = stamped
        }
    }
}
