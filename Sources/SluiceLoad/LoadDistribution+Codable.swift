import SluiceRun
import SluiceMeasure
/// The JSON form of a distribution: its summary for readers (count, min, p50, p90, p95, p99,
/// max, mean, in the figure's units) and, to merge exactly, its histogram as `recorded`:
/// `[units, count]` pairs, units being `1 / scale` of the figure above `origin` (written when
/// not 0; `LoadDistribution.rawBuckets`).
/// Decoding reads `scale`, `significant_digits` and `recorded` and works the summary out again.
extension LoadDistribution: Codable {
    /// The JSON keys.
    private enum CodingKeys: String, CodingKey {
        case scale, significant_digits, origin, count, min, p50, p90, p95, p99, max, mean, recorded
    }

    /// Reads a distribution written by `encode(to:)`.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let scale = try c.decode(Double.self, forKey: .scale)
        let digits = try c.decode(Int.self, forKey: .significant_digits)
        guard scale > 0, scale.isFinite else {
            throw DecodingError.dataCorruptedError(forKey: .scale, in: c, debugDescription: "scale must be positive")
        }
        guard (0...5).contains(digits) else {
            throw DecodingError.dataCorruptedError(forKey: .significant_digits, in: c, debugDescription: "0 to 5 significant digits")
        }
        let origin = try c.decodeIfPresent(Double.self, forKey: .origin) ?? 0
        guard origin.isFinite else {
            throw DecodingError.dataCorruptedError(forKey: .origin, in: c, debugDescription: "origin must be finite")
        }
        let pairs = try c.decode([[UInt64]].self, forKey: .recorded)
        guard pairs.allSatisfy({ $0.count == 2 }) else {
            throw DecodingError.dataCorruptedError(forKey: .recorded, in: c, debugDescription: "recorded holds [units, count] pairs")
        }
        self.init(scale: scale, significantDigits: digits, origin: origin, rawBuckets: pairs.map { RawBucket(units: $0[0], count: $0[1]) })
    }

    /// Writes the summary and the recorded buckets.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(scale, forKey: .scale)
        try c.encode(significantDigits, forKey: .significant_digits)
        if origin != 0 { try c.encode(origin, forKey: .origin) }
        try c.encode(count, forKey: .count)
        try c.encodeIfPresent(min, forKey: .min)
        try c.encodeIfPresent(p50, forKey: .p50)
        try c.encodeIfPresent(p90, forKey: .p90)
        try c.encodeIfPresent(p95, forKey: .p95)
        try c.encodeIfPresent(p99, forKey: .p99)
        try c.encodeIfPresent(max, forKey: .max)
        try c.encodeIfPresent(mean, forKey: .mean)
        try c.encode(rawBuckets.map { [$0.units, $0.count] }, forKey: .recorded)
    }
}
