import Foundation
import SluiceFilterKit

/// Reads `audiostamp`'s stamps after decoding (analysis only) and emits `audiostamp` with
/// `sequence`, `captured_ms` and `delay_ms`: the monotonic clock at the stamp's first sample
/// here (the block's processing time plus the sample's place in it) minus its capture time.
/// A sync tone whose symbols do not check is `audiostamp-unreadable`; nothing is emitted for
/// sound without stamps. Channels are averaged. A change of sample rate starts afresh.
public final class AudioStampReader: AudioFilter {
    public static let name = "audiostamp-read"
    public static let summary = "Reads audiostamp's stamps and reports capture-to-here delay"
    public static let modifiesSamples = false

    /// Counts since the element started.
    public struct Statistics: Sendable, Equatable {
        /// Stamps read (check nibble right).
        public var read = 0
        /// Sync tones whose stamp did not check.
        public var unreadable = 0
        /// The delay of the last stamp read, in milliseconds.
        public var lastDelayMilliseconds: Double?
        public init() {}
    }

    /// When a block was processed: its first frame and the clock then (µs).
    private struct BlockTime {
        var firstFrame: UInt64
        var microseconds: UInt64
    }

    private let clock: () -> UInt64
    private var rate = 0
    /// Mono samples from frame `start` on, kept until the stamp they may hold is read.
    private var samples: [Float] = []
    private var start: UInt64 = 0
    /// The next frame the sync search looks at.
    private var searchFrom: UInt64 = 0
    private var times: [BlockTime] = []
    public private(set) var statistics = Statistics()

    public convenience init(configuration: FilterConfiguration) throws { self.init() }

    /// A reader; `clock` returns microseconds (tests).
    public init(clock: @escaping () -> UInt64 = AudioStampCode.monotonicMicroseconds) { self.clock = clock }

    public func process(_ block: borrowing AudioBlock, context: FilterContext) throws -> FilterVerdict {
        if block.rate != rate { reset(rate: block.rate) }
        times.append(BlockTime(firstFrame: start + UInt64(samples.count), microseconds: clock()))
        if times.count > 200 { times.removeFirst(times.count - 200) }
        samples.reserveCapacity(samples.count + block.frameCount)
        let channels = block.channels
        for frame in 0..<block.frameCount {
            var sum: Float = 0
            for c in 0..<channels { sum += block.sample(frame * channels + c) }
            samples.append(sum / Float(channels))
        }
        scan(context)
        return .keep
    }

    private func reset(rate: Int) {
        self.rate = rate
        samples.removeAll()
        times.removeAll()
        start = 0
        searchFrom = 0
    }

    private var end: UInt64 { start + UInt64(samples.count) }
    private func frames(_ seconds: Double) -> UInt64 { UInt64(seconds * Double(rate)) }

    /// Looks for sync tones and reads each stamp once all of it has arrived.
    private func scan(_ context: FilterContext) {
        let window = frames(0.010), hop = frames(0.002)
        while searchFrom + window <= end {
            guard isSync(at: searchFrom, length: window) else {
                searchFrom += hop
                continue
            }
            // The whole stamp, and a window's margin before its coarse place, must be here.
            guard searchFrom + window + frames(AudioStampCode.stampSeconds) <= end else { break }
            let onset = refineOnset(near: searchFrom, window: window)
            read(at: onset, context)
            searchFrom = onset + frames(AudioStampCode.stampSeconds)
        }
        // Keep a little before the search position: the onset is looked for up to a window back.
        let keep = searchFrom > frames(0.05) ? searchFrom - frames(0.05) : 0
        discard(before: min(keep, end))
    }

    /// Whether the window at `frame` is mostly the sync tone (both its frequencies, little else).
    private func isSync(at frame: UInt64, length: UInt64) -> Bool {
        withSamples(from: frame, count: length) { x in
            let energy = x.reduce(0.0) { $0 + Double($1 * $1) } / Double(max(1, x.count))
            guard energy > 1e-6 else { return false }
            let low = AudioStampCode.power(x, frequency: AudioStampCode.rows[3], rate: rate)
            let high = AudioStampCode.power(x, frequency: AudioStampCode.columns[3], rate: rate)
            return (low + high) / (2 * energy) > 0.7 && min(low, high) > 0.25 * max(low, high)
        } ?? false
    }

    /// The first frame of the sync tone: where a window of the tone's length holds most of
    /// the tone (phase-free correlation at both frequencies), searched around `coarse`.
    private func refineOnset(near coarse: UInt64, window: UInt64) -> UInt64 {
        let tone = frames(AudioStampCode.toneSeconds)
        let from = coarse >= window + start ? coarse - window : start, to = coarse + window
        func score(_ o: UInt64) -> Double {
            withSamples(from: o, count: tone) { x in
                AudioStampCode.power(x, frequency: AudioStampCode.rows[3], rate: rate)
                    + AudioStampCode.power(x, frequency: AudioStampCode.columns[3], rate: rate)
            } ?? 0
        }
        var best = from, bestScore = -1.0
        for o in stride(from: from, through: to, by: 8) where score(o) > bestScore {
            best = o
            bestScore = score(o)
        }
        let low = best >= 8 + from ? best - 8 : from
        for o in low...(best + 8) where score(o) > bestScore {
            best = o
            bestScore = score(o)
        }
        return best
    }

    /// Reads the stamp whose sync starts at `onset`; emits what it finds.
    private func read(at onset: UInt64, _ context: FilterContext) {
        var nibbles: [UInt8] = []
        for symbol in 0..<AudioStampCode.symbolCount {
            let from = onset + frames(Double(symbol) * AudioStampCode.symbolSeconds + 0.005)
            guard let nibble = withSamples(from: from, count: frames(0.020), { symbolNibble($0) }) ?? nil else { break }
            nibbles.append(nibble)
        }
        guard let stamp = AudioStampCode.decode(nibbles), let arrival = arrivalMicroseconds(of: onset) else {
            statistics.unreadable += 1
            context.emit("audiostamp-unreadable")
            return
        }
        let captured = AudioStampCode.captureTime(low: stamp.captureLow, arrival: arrival / 1000)
        let delay = Double(arrival) / 1000 - Double(captured)
        statistics.read += 1
        statistics.lastDelayMilliseconds = delay
        context.emit("audiostamp", ["sequence": Double(stamp.sequence), "captured_ms": Double(captured), "delay_ms": delay])
    }

    /// The keypad nibble of one symbol's samples: the strongest row and column, each clearly
    /// stronger than its group's next; nil when either is not.
    private func symbolNibble(_ x: UnsafeBufferPointer<Float>) -> UInt8? {
        func strongest(_ frequencies: [Double]) -> Int? {
            let p = frequencies.map { AudioStampCode.power(x, frequency: $0, rate: rate) }
            let sorted = p.sorted(by: >)
            guard let i = p.firstIndex(of: sorted[0]), sorted[0] > 4 * sorted[1], sorted[0] > 1e-5 else { return nil }
            return i
        }
        guard let row = strongest(AudioStampCode.rows), let column = strongest(AudioStampCode.columns) else { return nil }
        return AudioStampCode.nibble(row: row, column: column)
    }

    /// The clock (µs) at which frame `frame` was here: its block's processing time plus its
    /// place in the block.
    private func arrivalMicroseconds(of frame: UInt64) -> UInt64? {
        guard let block = times.last(where: { $0.firstFrame <= frame }) else { return nil }
        return block.microseconds + (frame - block.firstFrame) * 1_000_000 / UInt64(max(1, rate))
    }

    private func withSamples<R>(from frame: UInt64, count: UInt64, _ body: (UnsafeBufferPointer<Float>) -> R) -> R? {
        guard frame >= start, frame + count <= end else { return nil }
        return samples.withUnsafeBufferPointer { all in
            body(UnsafeBufferPointer(rebasing: all[Int(frame - start)..<Int(frame - start + count)]))
        }
    }

    private func discard(before frame: UInt64) {
        guard frame > start else { return }
        samples.removeFirst(Int(frame - start))
        start = frame
    }
}
