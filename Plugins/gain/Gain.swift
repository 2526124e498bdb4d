import Foundation
import SluiceFilterKit

/// Changes the level of audio by `db` decibels, ramped so that a change never clicks.
///
/// - `db` (−60…+24, default 0): the gain; 0 leaves the samples untouched (no work is done).
/// - `ramp_ms` (0…1000, default 20): how long a change of `db` takes, linear in amplitude,
///   when the gain is set again while the pipeline runs (`sluice control`, `--watch`).
///
/// Float samples are scaled as they are (a gain above 0 dB can exceed full scale, as
/// GStreamer's `volume` does); 16-bit samples are clamped to their range.
public final class Gain: AudioFilter {
    public static let name = "gain"
    public static let summary = "Changes the level by a gain in dB, ramped without clicks"
    public static let parameters: [FilterParameter] = [
        FilterParameter("db", .number(min: -60, max: 24), default: .number(0), summary: "gain in dB (0: unchanged)"),
        FilterParameter(
            "ramp_ms", .number(min: 0, max: 1000), default: .number(20),
            summary: "how long a change of gain takes, in ms")
    ]

    /// The gain this instance moves to, as an amplitude factor.
    public let target: Float
    private let rampSeconds: Double
    /// The factor applied to the last sample processed.
    public private(set) var current: Float
    /// The change of factor per frame while ramping (0 once at the target); its sample rate
    /// is known at the first block.
    private var step: Float?

    public convenience init(configuration: FilterConfiguration) throws {
        self.init(db: configuration.number("db"), rampMilliseconds: configuration.number("ramp_ms"))
    }

    /// A gain of `db` decibels; changes take `rampMilliseconds`.
    public init(db: Double, rampMilliseconds: Double = 20) {
        target = Float(pow(10, db / 20))
        current = target
        rampSeconds = max(0, rampMilliseconds) / 1000
    }

    /// Ramps from the replaced instance's gain to this one's.
    public func `continue`(from previous: Gain) {
        current = previous.current
        step = nil
    }

    public func process(_ block: borrowing AudioBlock, context: FilterContext) throws -> FilterVerdict {
        if current == target {
            if target != 1 { scale(block, from: 0) }
            return .keep
        }
        let step = self.step ?? rampStep(rate: block.rate)
        self.step = step
        var g = current, frame = 0
        while frame < block.frameCount && g != target {
            g += step
            if (step > 0 && g > target) || (step <= 0 && g < target) { g = target }
            applyToFrame(block, frame, g)
            frame += 1
        }
        current = g
        if frame < block.frameCount { scale(block, from: frame) }
        return .keep
    }

    /// The per-frame change that reaches the target in `ramp_ms` at `rate`.
    private func rampStep(rate: Int) -> Float {
        let frames = max(1, Int(rampSeconds * Double(rate)))
        return (target - current) / Float(frames)
    }

    @inline(__always)
    private func applyToFrame(_ block: borrowing AudioBlock, _ frame: Int, _ g: Float) {
        let base = frame * block.channels
        if let f = block.float32 {
            for c in 0..<block.channels { f[base + c] *= g }
        } else if let s = block.int16 {
            for c in 0..<block.channels { s[base + c] = Self.scaled(s[base + c], g) }
        }
    }

    /// Multiplies every sample from frame `frame` on by the target: one loop the compiler vectorizes.
    private func scale(_ block: borrowing AudioBlock, from frame: Int) {
        let start = frame * block.channels, g = target
        if let f = block.float32, let base = f.baseAddress, start < f.count {
            let p = base + start
            for i in 0..<(f.count - start) { p[i] *= g }
        } else if let s = block.int16, let base = s.baseAddress, start < s.count {
            // Fixed point with 12 fractional bits (the gain is below 16, so a 16-bit sample
            // times it fits 32 bits), rounded to nearest: a loop the compiler vectorizes.
            let p = base + start, q = Int32((g * 4096).rounded())
            for i in 0..<(s.count - start) {
                let v = (Int32(p[i]) &* q &+ 2048) >> 12
                p[i] = Int16(truncatingIfNeeded: max(-32768, min(32767, v)))
            }
        }
    }

    @inline(__always)
    private static func scaled(_ x: Int16, _ g: Float) -> Int16 {
        Int16(max(-32768, min(32767, (Float(x) * g).rounded())))
    }
}
