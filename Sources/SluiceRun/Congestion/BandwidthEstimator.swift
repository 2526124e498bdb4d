import Foundation

/// Limits on a congestion-controlled sender's bitrate (`encode.bitrate: {min, start, max}`),
/// in bits per second.
public struct BitrateLimits: Sendable, Equatable {
    /// The lowest bitrate the estimator may ask for, bits per second.
    public var min: Int
    /// The bitrate to start at before any feedback arrives, bits per second.
    public var start: Int
    /// The highest bitrate the estimator may ask for, bits per second.
    public var max: Int
    /// Limits from the lowest, starting and highest bitrate, each in bits per second.
    public init(min: Int, start: Int, max: Int) { self.min = min; self.start = start; self.max = max }
    package func clamp(_ bps: Double) -> Int { Int(Swift.min(Swift.max(bps.isFinite ? bps : Double(min), Double(min)), Double(max))) }
}

/// How much the path carries, from transport-wide congestion control feedback: a delay-based
/// estimate (GCC's, draft-ietf-rmcat-gcc §5: `DelayTrend` says whether queues grow; an
/// increase/hold/decrease controller follows it) and a loss-based one (§6), the lower of the
/// two, within `limits`. Feed it every feedback report; read `target`.
///
/// Pure arithmetic on the reports (no clock of its own, no GStreamer): the tests drive it
/// with a simulated bottleneck. Garbage feedback — impossible times, wrapped or repeated
/// sequence numbers, huge gaps — can slow it down but never move the target outside
/// `limits`.
public struct BandwidthEstimator: Sendable {
    /// What the delay-based controller is doing: raising the estimate, holding it, or lowering it.
    public enum State: String, Sendable { case increase, hold, decrease }

    /// The bounds the target is kept within (`raiseCeiling` may raise `max`).
    public private(set) var limits: BitrateLimits
    private var trend = DelayTrend()
    private var delayBased: Double
    private var lossBased: Double
    /// The delay-based controller's current state (starts at `.increase`).
    private(set) public var state = State.increase
    /// Bits per second the receiver got, over the last `rateWindowNs`.
    private(set) public var receivedRate: Double?
    /// The average and variance of the rate at past decreases: "the last congestion point".
    private var congestionAverage: Double?
    private var congestionVariance = 0.0
    private var lastUpdateNs: UInt64?
    private var lastDecreaseNs: UInt64?
    private var arrivals: [(ns: UInt64, bytes: Int)] = []
    private var lossWindow: [(ns: UInt64, lost: Int, total: Int)] = []
    private var oneWay = OneWayDelay()
    private var lastDrainNs: UInt64?
    /// Until then the estimate is not held to 1.5× what arrived (`expect`).
    private var expectingUntilNs: UInt64?
    /// Until then reports neither lower the estimate nor count their losses (`recover`).
    private var settlingUntilNs: UInt64?
    /// How long packets wait in queues on the path now, beyond the least seen lately (ms).
    public var queueDelayMs: Double? { oneWay.queueDelayMs }

    package static let rateWindowNs: UInt64 = 500_000_000
    package static let lossWindowNs: UInt64 = 1_000_000_000
    package static let decreaseFactor = 0.85

    /// An estimator starting at `limits.start` for both the delay- and loss-based estimates.
    public init(limits: BitrateLimits) {
        self.limits = limits
        delayBased = Double(limits.start); lossBased = Double(limits.start)
    }

    /// The bitrate to send at, bits per second.
    public var target: Int { limits.clamp(min(delayBased, lossBased)) }
    /// The delay-based and loss-based estimates apart.
    public var estimates: (delay: Int, loss: Int) { (limits.clamp(delayBased), limits.clamp(lossBased)) }
    /// What the delay filter says now.
    package var signal: DelayTrend.Signal { trend.signal }
    /// Loss over the last second of reports (0...1).
    public var lossFraction: Double {
        let total = lossWindow.reduce(0) { $0 + $1.total }
        return total > 0 ? Double(lossWindow.reduce(0) { $0 + $1.lost }) / Double(total) : 0
    }

    /// Takes one feedback report, received at `nowNs` on our clock.
    public mutating func update(feedback: [TWCCPacket], nowNs: UInt64) {
        let packets = Self.inSendingOrder(feedback)
        guard !packets.isEmpty else { return }
        trend.add(packets)
        oneWay.add(packets)
        for p in packets { if let a = p.arrivedNs { arrivals.append((a, p.size)) } }
        if let newest = arrivals.map(\.ns).max() {
            arrivals.removeAll { $0.ns + Self.rateWindowNs < newest || $0.ns > newest }
            if let oldest = arrivals.map(\.ns).min(), newest > oldest + 100_000_000 {
                receivedRate = Double(arrivals.reduce(0) { $0 + $1.bytes } * 8) / (Double(newest - oldest) / 1e9)
            }
        }
        if let until = settlingUntilNs {
            if nowNs < until && until - nowNs <= Self.settleNs {
                lastUpdateNs = nowNs
                state = .hold
                return
            }
            settlingUntilNs = nil
        }
        let lost = packets.filter { $0.arrivedNs == nil }.count
        lossWindow.append((nowNs, lost, packets.count))
        lossWindow.removeAll { $0.ns + Self.lossWindowNs < nowNs || $0.ns > nowNs }
        let dt = min(Double(nowNs &- (lastUpdateNs ?? nowNs)) / 1e9, 1)
        lastUpdateNs = nowNs
        updateDelayBased(dt: dt, nowNs: nowNs)
        updateLossBased()
    }

    /// The sender started sending `bitsPerSecond` at `nowNs` (a viewer moved up a ladder):
    /// the estimate goes up to it, and for the next second it is not held to what arrived
    /// (that was the old rate) nor lowered by a queue under 250 ms (the new rate's first
    /// keyframe). If the path cannot carry it, the delay and loss figures bring the estimate
    /// down as usual after that.
    public mutating func expect(_ bitsPerSecond: Int, nowNs: UInt64) {
        let rate = Double(limits.clamp(Double(bitsPerSecond)))
        delayBased = max(delayBased, rate)
        lossBased = max(lossBased, rate)
        expectingUntilNs = nowNs &+ 1_000_000_000
    }

    /// Lets the target go up to `bitsPerSecond` when that is above `limits.max` (never
    /// lowers it): a sender whose best rate is only known as it is measured (a ladder whose
    /// best rung is a passed-through source) keeps the ceiling above it, or the estimate
    /// could never show that the path carries that rung.
    public mutating func raiseCeiling(to bitsPerSecond: Int) {
        limits.max = max(limits.max, bitsPerSecond)
    }

    /// Lets the target go down to `bitsPerSecond` when that is below `limits.min` (never
    /// raises it): a sender whose least rate is only known as it is measured (a relay's
    /// simulcast layers, whose unmeasured rates 1 Mbit/s stands in for) keeps the floor
    /// below it, or the estimate could never show that the path cannot carry a layer.
    public mutating func lowerFloor(to bitsPerSecond: Int) {
        limits.min = max(0, min(limits.min, bitsPerSecond))
    }

    /// How long `recover` sets the reports aside.
    package static let settleNs: UInt64 = 700_000_000

    /// The sender went back to `bitsPerSecond`, a rate the path carried before (a ladder
    /// viewer whose try of a higher rung failed): the estimate returns to it, and for the
    /// next 0.7 s reports do not lower it. They describe the queue and the losses the try
    /// itself caused, which drain within that time (the estimate would otherwise fall far
    /// below the rate the path carries, once per report).
    public mutating func recover(to bitsPerSecond: Int, nowNs: UInt64) {
        let rate = Double(limits.clamp(Double(bitsPerSecond)))
        delayBased = rate
        lossBased = rate
        lossWindow.removeAll()
        settlingUntilNs = nowNs &+ Self.settleNs
        state = .hold
    }

    /// Sorted by sequence number with 16-bit wrap-around undone, repeats dropped, and
    /// sizes limited to what a UDP datagram can hold.
    package static func inSendingOrder(_ packets: [TWCCPacket]) -> [TWCCPacket] {
        guard let first = packets.first else { return [] }
        var seen = Set<Int>()
        var out: [(Int, TWCCPacket)] = []
        var last = Int(first.sequence), unwrapped = Int(first.sequence)
        for p in packets {
            let s = Int(p.sequence)
            var step = s - last
            if step > 32768 { step -= 65536 } else if step < -32768 { step += 65536 }
            unwrapped += step; last = s
            guard seen.insert(unwrapped).inserted else { continue }
            var q = p
            q.size = min(max(p.size, 0), 65535)
            out.append((unwrapped, q))
        }
        return out.sorted { $0.0 < $1.0 }.map(\.1)
    }

    /// Above this queueing delay (ms) the target goes below what the receiver gets, so the
    /// queue empties in about half a second (at most 75% below); above half of it the rate
    /// does not grow.
    package static let drainAboveMs = 50.0

    /// After `expect`, a queue below this (ms) is the new rate's first keyframe passing, not
    /// congestion.
    package static let expectedBurstMs = 250.0

    private mutating func updateDelayBased(dt: Double, nowNs: UInt64) {
        // A rate just started on purpose begins with a keyframe, a burst the path's queue
        // absorbs: judge the path once it has passed (a second), unless the queue is deep.
        if let until = expectingUntilNs, nowNs < until, (oneWay.queueDelayMs ?? 0) < Self.expectedBurstMs {
            state = .hold
            return
        }
        // GCC's trend sees queues grow, not queues that stand: one filled before the first
        // report, or while the trend was flat, keeps every frame late. Drain it.
        if let queued = oneWay.queueDelayMs, queued > Self.drainAboveMs, let received = receivedRate {
            if let last = lastDrainNs, nowNs &- last < 200_000_000 { return }
            lastDrainNs = nowNs
            let drained = received * max(0.25, 1 - queued / 500 - 0.05)
            if drained < delayBased {
                noteCongestion(at: received)
                delayBased = max(drained, Double(limits.min))
                state = .decrease
            }
            return
        }
        switch trend.signal {
        case .overusing:
            // Decrease once per round of feedback, to what actually got through.
            if let last = lastDecreaseNs, nowNs &- last < 200_000_000 { state = .hold; return }
            let base = receivedRate ?? delayBased
            let decreased = min(delayBased, Self.decreaseFactor * base)
            noteCongestion(at: base)
            delayBased = max(decreased, Double(limits.min))
            lastDecreaseNs = nowNs
            state = .decrease
        case .underusing:
            state = .hold // queues draining: let them empty before sending more
        case .normal:
            if let queued = oneWay.queueDelayMs, queued > Self.drainAboveMs / 2 { state = .hold; return }
            state = .increase
            let nearCongestion =
                congestionAverage.map { avg in
                    abs(delayBased - avg) <= 3 * max(congestionVariance.squareRoot(), 0.05 * avg)
                } ?? false
            if nearCongestion {
                // Additive near the last congestion point: about one 1200-byte packet more
                // per response time (~100 ms), i.e. ~96 kbit/s per second.
                delayBased += 1200 * 8 / 0.1 * dt
            } else {
                delayBased *= Foundation.pow(1.15, dt) // 15% a second, far from congestion
            }
            // Never far ahead of what the path has shown it carries (unless a higher rate was
            // just started on purpose, before the receiver could show it).
            if let received = receivedRate, expectingUntilNs.map({ nowNs >= $0 }) ?? true {
                delayBased = min(delayBased, 1.5 * received + 10_000)
            }
            delayBased = min(delayBased, Double(limits.max))
        }
    }

    private mutating func noteCongestion(at rate: Double) {
        guard let avg = congestionAverage else { congestionAverage = rate; congestionVariance = 0; return }
        // A congestion point far from the last ones: the path changed, start over.
        if abs(rate - avg) > 3 * max(congestionVariance.squareRoot(), 0.05 * avg) {
            congestionAverage = rate; congestionVariance = 0; return
        }
        let alpha = 0.05
        let d = rate - avg
        congestionAverage = avg + alpha * d
        congestionVariance = (1 - alpha) * (congestionVariance + alpha * d * d)
    }

    private mutating func updateLossBased() {
        let loss = lossFraction
        if loss > 0.10 {
            lossBased = max(min(lossBased, Double(target)) * (1 - 0.5 * loss), Double(limits.min))
        } else if loss < 0.02 {
            lossBased = min(max(lossBased, Double(limits.min)) * 1.05, Double(limits.max))
            // Loss is not what limits us now: keep it from holding the delay-based rate back.
            lossBased = max(lossBased, min(delayBased, Double(limits.max)))
        }
    }
}

/// The queueing delay on a path from TWCC times: each packet's arrival less its sending time
/// is the one-way delay plus a constant clock offset; the least of those over the last 30 s
/// is the empty-queue delay, and the least in the latest report less that is how long
/// packets wait now. Taking the least of a report keeps one burst (a keyframe) from
/// counting as a standing queue.
package struct OneWayDelay: Sendable {
    /// Per-second minima, newest last (at most `windowSeconds`).
    private var minima: [(second: Int64, offsetNs: Int64)] = []
    package private(set) var queueDelayMs: Double?
    package static let windowSeconds: Int64 = 30

    package mutating func add(_ packets: [TWCCPacket]) {
        var latest: Int64?
        for p in packets {
            guard let a = p.arrivedNs, a <= UInt64(Int64.max), p.sentNs <= UInt64(Int64.max) else { continue }
            let offset = Int64(a) &- Int64(p.sentNs)
            latest = min(latest ?? offset, offset)
            let second = Int64(p.sentNs / 1_000_000_000)
            if let last = minima.last, last.second == second {
                minima[minima.count - 1].offsetNs = min(last.offsetNs, offset)
            } else if minima.last.map({ second > $0.second }) ?? true {
                minima.append((second, offset))
            }
        }
        guard let latest, let newest = minima.last?.second else { return }
        minima.removeAll { $0.second <= newest - Self.windowSeconds }
        guard let base = minima.map(\.offsetNs).min() else { return }
        let queued = Double(latest &- base) / 1e6
        // A clock jump or hostile times: no figure rather than a wrong one.
        queueDelayMs = queued >= 0 && queued < 10_000 ? queued : nil
    }
}
