import Foundation
import SluiceFilterKit

/// Writes an audio stamp (`AudioStampCode`) every `interval_ms` (default 1000), replacing the
/// sound for its 280 ms, at `level_db` peak (default −10 dBFS), on every channel; stamps start
/// on `AudioStampSchedule`'s times of the stream's timestamps. Its capture
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

    private let schedule: AudioStampSchedule
    private let amplitude: Float
    private let clock: () -> UInt64
    /// Frames written so far (the stream's time where its buffers have no timestamps).
    private var frames: UInt64 = 0
    /// The last stamp started (its number on the schedule).
    private var lastStarted: UInt64?
    /// A stamp being written: its symbols and its first frame.
    private struct Stamp {
        var symbols: [UInt8]
        var start: UInt64
    }
    private var current: Stamp?
    /// Stamps started so far.
    public private(set) var written = 0

    public convenience init(configuration: FilterConfiguration) throws {
        self.init(intervalMilliseconds: configuration.integer("interval_ms"), levelDB: configuration.number("level_db"))
    }

    /// A writer; `clock` returns microseconds (tests).
    public init(
        intervalMilliseconds: Int = 1000, levelDB: Double = -10,
        clock: @escaping () -> UInt64 = AudioStampCode.monotonicMicroseconds
    ) {
        schedule = AudioStampSchedule(intervalMilliseconds: intervalMilliseconds)
        amplitude = Float(pow(10, levelDB / 20) / 2)
        self.clock = clock
    }

    /// Stamps start on `AudioStampSchedule`'s times of the block's timestamps (of the frames
    /// written so far where blocks have none); stamp k carries sequence number k.
    public func process(_ block: borrowing AudioBlock, context: FilterContext) throws -> FilterVerdict {
        let rate = Double(block.rate), now = clock()
        let length = UInt64(AudioStampCode.stampSeconds * rate)
        let first = block.pts ?? frames * 1_000_000_000 / UInt64(max(1, block.rate))
        let due = nextStamp(from: first, frames: block.frameCount, rate: block.rate)
        for i in 0..<block.frameCount {
            let frame = frames + UInt64(i)
            if let due, i == due.frame {
                let captured = now + UInt64(Double(i) / rate * 1_000_000)
                let sequence = Int(truncatingIfNeeded: due.stamp)
                current = Stamp(symbols: AudioStampCode.symbols(sequence: sequence, captureMilliseconds: captured / 1000), start: frame)
                written += 1
                lastStarted = due.stamp
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

    /// The stamp that starts in the block of `count` frames at `rate` whose first frame is at
    /// `first` ns, and the frame it starts at; nil if none does. A stream whose time went back
    /// by more than a stamp's interval starts its schedule afresh.
    private func nextStamp(from first: UInt64, frames count: Int, rate: Int) -> (stamp: UInt64, frame: Int)? {
        guard rate > 0 else { return nil }
        let k = schedule.next(atOrAfter: first)
        if let last = lastStarted, k + 1 < last { lastStarted = nil }
        guard current == nil, lastStarted.map({ k > $0 }) ?? true else { return nil }
        let frame = Int(((schedule.start(of: k) - first) * UInt64(rate) + 999_999_999) / 1_000_000_000)
        return frame < count ? (k, frame) : nil
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
