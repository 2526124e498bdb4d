import Foundation
import SluiceFilterKit

/// Makes the level waver: multiplies the sound by 1 − depth × (1 + sin(2π f t)) ÷ 2, a
/// sine at `rate_hz`, continuous across buffers (its phase comes from the sample offset).
public final class Tremolo: AudioFilter {
    public static let name = "tremolo"
    public static let summary = "Wavering level (example dynamic plugin)"
    public static let parameters = [
        FilterParameter("rate_hz", .number(min: 0.1, max: 20), default: .number(4), summary: "waves per second"),
        FilterParameter("depth", .number(min: 0, max: 1), default: .number(0.5), summary: "0 = unchanged, 1 = down to silence")
    ]

    private let rate: Double
    private let depth: Double

    public init(configuration: FilterConfiguration) throws {
        rate = configuration.number("rate_hz")
        depth = configuration.number("depth")
    }

    public func process(_ block: borrowing AudioBlock, context: FilterContext) throws -> FilterVerdict {
        let step = 2 * Double.pi * rate / Double(block.rate)
        for frame in 0..<block.frameCount {
            let phase = Double(block.sampleOffset + UInt64(frame)) * step
            let g = Float(1 - depth * (1 + sin(phase)) / 2)
            for c in 0..<block.channels {
                let i = frame * block.channels + c
                if let f = block.float32 { f[i] *= g } else if let s = block.int16 { s[i] = Int16(Float(s[i]) * g) }
            }
        }
        return .keep
    }
}
