import Histogram
import SluiceRun
import SluiceMeasure

/// The distribution of one figure in a load run (connect time across clients, glass-to-glass
/// delay across frames, ...), as an HdrHistogram: three significant digits at any size, merged
/// exactly by adding counts. Percentiles of a merged run come from the merged histogram, never
/// from averaged percentiles.
///
/// Values are recorded as integers of `1 / scale` of the figure (scale 1000: milliseconds as
/// microseconds) above `origin` (0 unless the figure has a sign, as the A/V offset does);
/// values below the origin count as the origin and values that are not finite are left out.
/// Percentiles are nearest-rank, as `LatencyFigures.percentile`, to the histogram's precision
/// (the highest value equivalent to the one at that rank, within 1/1000 of it).
public struct LoadDistribution: Sendable, Equatable {
    /// One histogram bucket that holds values: its value, in the figure's units, and how many.
    public struct Bucket: Sendable, Equatable {
        /// A value of the bucket (the largest value it holds; the exact extremes for the
        /// buckets holding the smallest and largest values recorded).
        public var value: Double
        /// How many values were recorded in the bucket.
        public var count: Int
    }

    /// Histogram units per unit of the figure (1000: a figure in ms is recorded in µs).
    public let scale: Double
    /// The smallest value kept, in the figure's units (0 for figures without a sign).
    public let origin: Double
    /// The counts.
    private var histogram: Histogram<UInt64>

    /// An empty distribution recording `1 / scale` units above `origin` at `significantDigits`
    /// (0 to 5) digits (of the value less the origin: keep the origin near the values).
    public init(scale: Double = 1000, significantDigits: Int = 3, origin: Double = 0) {
        precondition(scale > 0 && scale.isFinite, "a load distribution's scale must be positive")
        precondition(origin.isFinite, "a load distribution's origin must be finite")
        let digits = SignificantDigits(rawValue: Int8(clamping: significantDigits)) ?? .three
        self.scale = scale
        self.origin = origin
        histogram = Histogram<UInt64>(numberOfSignificantValueDigits: digits)
    }

    /// A distribution of `values`.
    public init(_ values: some Sequence<Double>, scale: Double = 1000) {
        self.init(scale: scale)
        for v in values { record(v) }
    }

    /// Records one value (in the figure's units).
    public mutating func record(_ value: Double) {
        guard value.isFinite else { return }
        histogram.record(units(value))
    }

    /// Adds `other`'s values. With the same scale and precision (every distribution a load
    /// report makes) this is exact; otherwise each of `other`'s buckets is recorded anew.
    public mutating func add(_ other: LoadDistribution) {
        if other.scale == scale && other.origin == origin
            && other.histogram.numberOfSignificantValueDigits == histogram.numberOfSignificantValueDigits
        {
            histogram.add(other.histogram)
        } else {
            for b in other.buckets { histogram.record(units(b.value), count: UInt64(b.count)) }
        }
    }

    /// The significant decimal digits the histogram keeps.
    public var significantDigits: Int { Int(histogram.numberOfSignificantValueDigits.rawValue) }

    /// How many values were recorded.
    public var count: Int { Int(histogram.totalCount) }

    /// The value at percentile `p` (0...100), nearest rank; nil when nothing was recorded.
    public func percentile(_ p: Double) -> Double? {
        count == 0 ? nil : figure(histogram.valueAtPercentile(p))
    }

    /// Median; nil when empty.
    public var p50: Double? { percentile(50) }
    /// 90th percentile; nil when empty.
    public var p90: Double? { percentile(90) }
    /// 95th percentile; nil when empty.
    public var p95: Double? { percentile(95) }
    /// 99th percentile; nil when empty.
    public var p99: Double? { percentile(99) }
    /// The smallest value recorded (to `1 / scale`); nil when empty.
    public var min: Double? { count == 0 ? nil : figure(histogram.min) }
    /// The largest value recorded (to `1 / scale`); nil when empty.
    public var max: Double? { count == 0 ? nil : figure(histogram.maxRecorded) }
    /// The mean, to the histogram's precision; nil when empty.
    public var mean: Double? { count == 0 ? nil : histogram.mean / scale + origin }

    /// The buckets that hold values, smallest first. Recording them again (value, count) gives
    /// back this distribution exactly: the same counts, the same smallest and largest value.
    public var buckets: [Bucket] {
        rawBuckets.map { Bucket(value: figure($0.units), count: Int($0.count)) }
    }

    /// The buckets in histogram units, each named by a value that re-records into the same
    /// bucket: the largest it holds, except the exact smallest and largest values recorded for
    /// their buckets (one bucket holding both is given as two entries, the smallest value once).
    package var rawBuckets: [RawBucket] {
        let h = histogram, low = h.min, high = h.maxRecorded
        return h.recordedValues().flatMap { v -> [RawBucket] in
            let holdsLow = low > 0 && h.valuesAreEquivalent(v.value, low), holdsHigh = h.valuesAreEquivalent(v.value, high)
            switch (holdsLow, holdsHigh) {
            case (true, true) where low != high:
                return [RawBucket(units: low, count: 1), RawBucket(units: high, count: v.count - 1)]
            case (true, _): return [RawBucket(units: low, count: v.count)]
            case (false, true): return [RawBucket(units: high, count: v.count)]
            case (false, false): return [RawBucket(units: v.value, count: v.count)]
            }
        }
    }

    /// A bucket in histogram units.
    package struct RawBucket {
        /// A value of the bucket, in `1 / scale` units of the figure.
        package var units: UInt64
        /// Values recorded in it.
        package var count: UInt64
    }

    /// Restores a distribution from its buckets in histogram units.
    package init(scale: Double, significantDigits: Int, origin: Double = 0, rawBuckets: [RawBucket]) {
        self.init(scale: scale, significantDigits: significantDigits, origin: origin)
        for b in rawBuckets where b.count > 0 { histogram.record(b.units, count: b.count) }
    }

    /// A figure as histogram units.
    private func units(_ value: Double) -> UInt64 {
        let scaled = (Swift.max(0, value - origin) * scale).rounded()
        return scaled >= Double(UInt64.max / 2) ? UInt64.max / 2 : UInt64(scaled)
    }

    /// Histogram units as a figure.
    private func figure(_ units: UInt64) -> Double { Double(units) / scale + origin }
}
