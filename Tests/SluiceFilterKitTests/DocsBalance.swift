import SluiceFilterKit

public final class Balance: AudioFilter {
    public static let name = "balance"                        // `- filter: balance`
    public static let summary = "Moves stereo sound left or right"
    public static let formats: [SampleFormat] = [.f32le]      // also .s16le
    public static let parameters = [
        FilterParameter("position", .number(min: -1, max: 1), default: .number(0)),
    ]
    let position: Float
    public init(configuration: FilterConfiguration) throws { position = Float(configuration.number("position")) }

    public func process(_ block: borrowing AudioBlock, context: FilterContext) throws -> FilterVerdict {
        guard block.channels == 2, let samples = block.float32 else { return .keep } // L R L R …
        for frame in 0..<block.frameCount {
            samples[2 * frame] *= min(1, 1 - position)
            samples[2 * frame + 1] *= min(1, 1 + position)
        }
        return .keep
    }
}
