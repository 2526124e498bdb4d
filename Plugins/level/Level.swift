import Foundation
import SluiceFilterKit

/// Measures the level of audio without touching it: every `interval_ms` it emits a `level`
/// event with the RMS and the peak over that interval, all channels together, in dBFS
/// (0 is full scale; silence reads −120, the floor). Events go on the bus as element messages
/// and are counted in the run's statistics, like a video filter's.
public final class Level: AudioFilter {
    public static let name = "level"
    public static let summary = "Reports RMS and peak level in dBFS (analysis only)"
    public static let modifiesSamples = false
    public static let parameters: [FilterParameter] = [
        FilterParameter(
            "interval_ms", .integer(min: 10, max: 10_000), default: .integer(100),
            summary: "how often a level event is emitted, in ms of audio")
    ]
    /// The lowest level reported, in dBFS.
    public static let floorDB = -120.0

    private let intervalSeconds: Double
    private var sumOfSquares = 0.0
    private var peak: Float = 0
    private var frames = 0

    public convenience init(configuration: FilterConfiguration) throws {
        self.init(intervalMilliseconds: configuration.integer("interval_ms"))
    }

    /// A meter emitting every `intervalMilliseconds` of audio.
    public init(intervalMilliseconds: Int = 100) { intervalSeconds = Double(max(10, intervalMilliseconds)) / 1000 }

    /// A level in dBFS from an amplitude (1 is full scale), never below `floorDB`.
    public static func decibels(_ amplitude: Double) -> Double {
        amplitude > 0 ? max(floorDB, 20 * log10(amplitude)) : floorDB
    }

    /// Accumulates the block, emitting an event each time an interval is complete (the
    /// interval's boundary may fall inside a block: events come exactly every `interval_ms`
    /// of audio, whatever the block size).
    public func process(_ block: borrowing AudioBlock, context: FilterContext) throws -> FilterVerdict {
        let intervalFrames = max(1, Int(intervalSeconds * Double(block.rate)))
        var frame = 0
        while frame < block.frameCount {
            let take = min(block.frameCount - frame, intervalFrames - frames)
            accumulate(block, from: frame * block.channels, count: take * block.channels)
            frames += take
            frame += take
            if frames >= intervalFrames { emit(channels: block.channels, context: context) }
        }
        return .keep
    }

    private func accumulate(_ block: borrowing AudioBlock, from start: Int, count: Int) {
        var sum = 0.0, top: Float = peak
        if let f = block.float32 {
            for i in start..<start + count {
                let x = f[i]
                sum += Double(x * x)
                top = max(top, abs(x))
            }
        } else if let s = block.int16 {
            for i in start..<start + count {
                let x = Float(s[i]) / 32768
                sum += Double(x * x)
                top = max(top, abs(x))
            }
        }
        sumOfSquares += sum
        peak = top
    }

    private func emit(channels: Int, context: FilterContext) {
        let samples = Double(max(1, frames * channels))
        context.emit("level", ["rms_db": Self.decibels((sumOfSquares / samples).squareRoot()), "peak_db": Self.decibels(Double(peak))])
        sumOfSquares = 0
        peak = 0
        frames = 0
    }
}
