import Foundation
import SluiceFilterKit

/// Writes an audio stamp (`AudioStampCode`) every `interval_ms` (default 1000), replacing the
/// sound for its 280 ms, at `level_db` peak (default −10 dBFS), on every channel. Its capture
/// time is the monotonic clock when the block holding its first sample is processed, plus that
/// sample's place in the block; `audiostamp-read` reads the same clock, so both ends must run
/// on one machine (one process or two).
public final class AudioStampWriter: AudioFilter {
    public static let name = "audiostamp"
    public static let summary = "Writes DTMF stamps carrying a sequence number and the capture time"
    public static let parameters: [FilterParameter] = [
        FilterParameter("interval_ms", .integer(min: 400, max: 60_000), default: .integer(1000), summary: "time between stamps"),
        FilterParameter("level_db", .number(min: -40, max: 0), default: .number(-10), summary: "peak level of the stamp in dBFS")
    ]

    private let intervalSeconds: Double
    private let amplitude: Float
    private let clock: () -> UInt64
    /// Frames written so far, and where the next stamp starts (frames).
    private var frames: UInt64 = 0
    private var nextStart: UInt64?
    /// A stamp being written: its symbols and its first frame.
    private struct Stamp {
        var symbols: [UInt8]
        var start: UInt64
    }
    private var current: Stamp?
    /// Stamps started so far (the next one's sequence number).
    public private(set) var written = 0

    public convenience init(configuration: FilterConfiguration) throws {
        self.init(intervalMilliseconds: configuration.integer("interval_ms"), levelDB: configuration.number("level_db"))
    }

    /// A writer; `clock` returns microseconds (tests).
    public init(
        intervalMilliseconds: Int = 1000, levelDB: Double = -10,
        clock: @escaping () -> UInt64 = AudioStampCode.monotonicMicroseconds
    ) {
        intervalSeconds = Double(max(400, intervalMilliseconds)) / 1000
        amplitude = Float(pow(10, levelDB / 20) / 2)
        self.clock = clock
    }

    public func process(_ block: borrowing AudioBlock, context: FilterContext) throws -> FilterVerdict {
        let rate = Double(block.rate), now = clock()
        let interval = UInt64(intervalSeconds * rate), length = UInt64(AudioStampCode.stampSeconds * rate)
        if nextStart == nil { nextStart = frames + UInt64(0.1 * rate) }
        for i in 0..<block.frameCount {
            let frame = frames + UInt64(i)
            if frame == nextStart {
                let captured = now + UInt64(Double(i) / rate * 1_000_000)
                current = Stamp(symbols: AudioStampCode.symbols(sequence: written, captureMilliseconds: captured / 1000), start: frame)
                written += 1
                nextStart = frame + interval
            }
            guard let stamp = current else { continue }
            let position = frame - stamp.start
            guard position < length else {
                current = nil
                continue
            }
            write(value(stamp.symbols, position: position, rate: rate), block, frame: i)
        }
        frames += UInt64(block.frameCount)
        return .keep
    }

    /// The stamp's sample at `position` frames from its start.
    private func value(_ symbols: [UInt8], position: UInt64, rate: Double) -> Float {
        let t = Double(position) / rate
        let index = Int(t / AudioStampCode.symbolSeconds)
        let within = t - Double(index) * AudioStampCode.symbolSeconds
        guard index < symbols.count, within < AudioStampCode.toneSeconds else { return 0 }
        let (row, column) = AudioStampCode.position(symbols[index])
        let low = sin(2 * .pi * AudioStampCode.rows[row] * within), high = sin(2 * .pi * AudioStampCode.columns[column] * within)
        return amplitude * Float(low + high)
    }

    private func write(_ v: Float, _ block: borrowing AudioBlock, frame: Int) {
        let channels = block.channels
        if let f = block.float32 {
            for c in 0..<channels { f[frame * channels + c] = v }
        } else if let s = block.int16 {
            let x = Int16(max(-32768, min(32767, (v * 32767).rounded())))
            for c in 0..<channels { s[frame * channels + c] = x }
        }
    }
}
