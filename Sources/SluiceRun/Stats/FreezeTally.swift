/// The freezes of a decoded video stream, by WebRTC's definition (`FreezeDetector`): how many,
/// how long in all and the longest, from the times frames come out of the decoder.
package struct FreezeTally: Sendable, Equatable {
    private var detector = FreezeDetector()
    private var lastNs: UInt64?
    /// Intervals that were freezes.
    package private(set) var count = 0
    /// Their total length, ms.
    package private(set) var totalMs = 0.0
    /// The longest, ms.
    package private(set) var longestMs = 0.0

    package init() {}

    /// A frame came out of the decoder at `nowNs` (monotonic).
    package mutating func frame(at nowNs: UInt64) {
        defer { lastNs = nowNs }
        guard let last = lastNs, nowNs > last else { return }
        let interval = Double(nowNs - last) / 1e9
        guard detector.isFreeze(interval: interval) else { return }
        count += 1
        totalMs += interval * 1000
        longestMs = max(longestMs, interval * 1000)
    }
}
