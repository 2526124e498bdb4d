/// A small, fast, deterministic random number generator (SplitMix64): for sources that
/// draw reproducible noise and for tests whose failures must reproduce.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    /// The generator's state; the same state gives the same sequence.
    public var state: UInt64
    /// A generator starting from `seed`.
    public init(seed: UInt64) { state = seed }
    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    public mutating func unit() -> Double { Double(next() >> 11) * 0x1p-53 }
}
