/// One RTP packet as transport-wide congestion control feedback reports it: when it left,
/// when it arrived (nil: reported lost) and its size. Times are nanoseconds on two clocks
/// (ours and the receiver's): only differences within each clock are used.
public struct TWCCPacket: Sendable, Equatable {
    /// Transport-wide sequence number (16 bits on the wire).
    public var sequence: UInt16
    /// When the packet left, nanoseconds on the sender's clock.
    public var sentNs: UInt64
    /// When the packet arrived, nanoseconds on the receiver's clock; nil when reported lost.
    public var arrivedNs: UInt64?
    /// The packet's size in bytes.
    public var size: Int

    /// A packet's feedback entry: sequence number, send and arrival times (ns) and size (bytes).
    public init(sequence: UInt16, sentNs: UInt64, arrivedNs: UInt64?, size: Int) {
        self.sequence = sequence; self.sentNs = sentNs; self.arrivedNs = arrivedNs; self.size = size
    }
}

/// Whether the path's queues are growing, from how packet groups spread out on the way:
/// GCC's arrival-time filter (draft-ietf-rmcat-gcc, §5.3–5.4) in its trendline form.
///
/// Packets sent within 5 ms form a group. For consecutive groups, the delay variation is
/// the arrival spacing less the sending spacing; its running sum, smoothed, is regressed
/// against arrival time over the last 20 groups. A rising slope means a queue is filling.
/// The slope is compared with a threshold that adapts to the path's noise (slowly upwards,
/// faster downwards), so a jittery link is not mistaken for a congested one.
package struct DelayTrend: Sendable {
    package enum Signal: Sendable, Equatable { case normal, overusing, underusing }

    private struct Group { var firstSentNs: UInt64; var lastSentNs: UInt64; var arrivedNs: UInt64 }

    package static let burstNs: UInt64 = 5_000_000
    package static let window = 20
    package static let smoothing = 0.9
    package static let gain = 4.0
    /// A delay variation this large (ms) is not a queue but a clock jump or hostile input.
    package static let implausibleMs = 1000.0

    private var current: Group?
    private var previous: Group?
    private var accumulatedMs = 0.0
    private var smoothedMs = 0.0
    private var samples: [(x: Double, y: Double)] = []
    private var firstArrivalNs: UInt64?
    private var deltas = 0
    package private(set) var threshold = 12.5
    private var lastThresholdUpdateNs: UInt64?
    private var overuseSinceNs: UInt64?
    private var lastTrend = 0.0
    package private(set) var signal = Signal.normal

    /// The latest trend (ms of queue growth per the regression window, scaled as GCC does).
    package var trend: Double { lastTrend }

    /// Takes the packets of one feedback report that arrived, in sending order.
    package mutating func add(_ packets: [TWCCPacket]) {
        for p in packets {
            guard let arrived = p.arrivedNs else { continue }
            if var g = current {
                // Out of order or from before this group: not a spacing sample.
                if p.sentNs < g.firstSentNs { continue }
                if p.sentNs - g.firstSentNs <= Self.burstNs {
                    g.lastSentNs = max(g.lastSentNs, p.sentNs)
                    g.arrivedNs = max(g.arrivedNs, arrived)
                    current = g
                    continue
                }
                if let prev = previous { compare(prev, g) }
                previous = g
            }
            current = Group(firstSentNs: p.sentNs, lastSentNs: p.sentNs, arrivedNs: arrived)
        }
    }

    private mutating func compare(_ a: Group, _ b: Group) {
        guard b.lastSentNs >= a.lastSentNs, b.arrivedNs >= a.arrivedNs else { return } // reordered: skip
        let sendMs = Double(b.lastSentNs - a.lastSentNs) / 1e6
        let arriveMs = Double(b.arrivedNs - a.arrivedNs) / 1e6
        let variation = arriveMs - sendMs
        guard abs(variation) < Self.implausibleMs, sendMs < Self.implausibleMs else { return }
        deltas = min(deltas + 1, 1000)
        accumulatedMs += variation
        smoothedMs = Self.smoothing * smoothedMs + (1 - Self.smoothing) * accumulatedMs
        let first = firstArrivalNs ?? b.arrivedNs
        firstArrivalNs = first
        samples.append((Double(b.arrivedNs - first) / 1e6, smoothedMs))
        if samples.count > Self.window { samples.removeFirst(samples.count - Self.window) }
        guard samples.count == Self.window, let slope = Self.slope(samples) else { return }
        let trend = slope * Double(min(deltas, 60)) * Self.gain
        detect(trend, now: b.arrivedNs, sendSpacingMs: sendMs)
        lastTrend = trend
    }

    /// Least-squares slope of y over x; nil when x does not vary.
    package static func slope(_ points: [(x: Double, y: Double)]) -> Double? {
        let n = Double(points.count)
        let mx = points.reduce(0) { $0 + $1.x } / n, my = points.reduce(0) { $0 + $1.y } / n
        var num = 0.0, den = 0.0
        for p in points { num += (p.x - mx) * (p.y - my); den += (p.x - mx) * (p.x - mx) }
        return den > 0 ? num / den : nil
    }

    private mutating func detect(_ trend: Double, now: UInt64, sendSpacingMs: Double) {
        if trend > threshold {
            // Overuse only when it lasts (10 ms) and is not already shrinking.
            let since = overuseSinceNs ?? now
            overuseSinceNs = since
            if Double(now - since) / 1e6 + sendSpacingMs >= 10, trend >= lastTrend { signal = .overusing }
        } else {
            overuseSinceNs = nil
            signal = trend < -threshold ? .underusing : .normal
        }
        adaptThreshold(trend, now: now)
    }

    private mutating func adaptThreshold(_ trend: Double, now: UInt64) {
        let last = lastThresholdUpdateNs ?? now
        lastThresholdUpdateNs = now
        // A spike far beyond the threshold is not noise to adapt to.
        guard abs(trend) <= threshold + 15 else { return }
        let k = abs(trend) < threshold ? 0.039 : 0.0087
        let dtMs = min(Double(now - last) / 1e6, 100)
        threshold = min(max(threshold + k * (abs(trend) - threshold) * dtMs, 6), 600)
    }
}
