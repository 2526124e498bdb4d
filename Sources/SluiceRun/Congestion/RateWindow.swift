/// A rate over the last few seconds from a running byte count: what one rung of a ladder
/// actually sends (a still picture encodes well below its nominal bitrate, a busy one at it).
///
/// Pure arithmetic on the samples it is given (no clock of its own): `add` the running total
/// with its time, read `bitsPerSecond`.
package struct RateWindow: Sendable, Equatable {
    /// How far back the rate looks.
    package static let spanNs: UInt64 = 2_000_000_000
    /// Samples closer than this to the last are not kept (the total is read often).
    package static let minGapNs: UInt64 = 200_000_000
    /// The least span a rate is given for.
    package static let minSpanNs: UInt64 = 1_000_000_000

    private var samples: [(ns: UInt64, bytes: Int)] = []

    package static func == (a: RateWindow, b: RateWindow) -> Bool {
        a.samples.elementsEqual(b.samples) { $0.ns == $1.ns && $0.bytes == $1.bytes }
    }

    /// Records the running total `bytes` at `nowNs`. A total that goes back, or a time that
    /// does, starts the window over.
    package mutating func add(bytes: Int, nowNs: UInt64) {
        if let last = samples.last {
            if nowNs < last.ns || bytes < last.bytes { samples.removeAll() } else if nowNs - last.ns < Self.minGapNs { return }
        }
        samples.append((nowNs, bytes))
        // Keep one sample at least `spanNs` old, none older.
        while samples.count > 2, nowNs - samples[1].ns >= Self.spanNs { samples.removeFirst() }
    }

    /// Bits per second over the window, nil until it spans `minSpanNs`.
    package var bitsPerSecond: Double? {
        guard let first = samples.first, let last = samples.last, last.ns - first.ns >= Self.minSpanNs else { return nil }
        return Double(last.bytes - first.bytes) * 8 / (Double(last.ns - first.ns) / 1e9)
    }
}
