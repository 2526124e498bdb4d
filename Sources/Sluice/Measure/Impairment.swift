import Foundation

/// Network conditions for a measurement, in `tc netem` words: `delay 40ms [10ms]`,
/// `loss 2%`, `duplicate 1%`. The kernel's netem applies them when it has it; otherwise
/// Sluice's own relay (`ImpairmentRelay`) does, for the subset parsed here.
public struct Impairment: Sendable, Equatable {
    public var delayMs: Double = 0
    /// Uniform in ±jitter around the delay (netem's default without a distribution table).
    public var jitterMs: Double = 0
    public var lossPercent: Double = 0
    public var duplicatePercent: Double = 0

    public init(delayMs: Double = 0, jitterMs: Double = 0, lossPercent: Double = 0, duplicatePercent: Double = 0) {
        self.delayMs = delayMs; self.jitterMs = jitterMs; self.lossPercent = lossPercent; self.duplicatePercent = duplicatePercent
    }

    public struct ParseError: Error, CustomStringConvertible, Equatable {
        public var description: String
    }

    /// Parses netem words; anything else is an error naming what is supported.
    public static func parse(_ text: String) throws(ParseError) -> Impairment {
        var out = Impairment()
        var words = text.split(whereSeparator: \.isWhitespace).map(String.init)[...]
        guard !words.isEmpty else { throw ParseError(description: "empty netem settings; write e.g. \"delay 40ms loss 2%\"") }
        while let word = words.popFirst() {
            switch word {
            case "delay":
                guard let d = words.popFirst().flatMap(milliseconds) else { throw ParseError(description: "'delay' needs a time such as 40ms") }
                out.delayMs = d
                if let next = words.first, let j = milliseconds(next) { out.jitterMs = j; words.removeFirst() }
            case "loss", "duplicate":
                guard let p = words.popFirst().flatMap(percent) else { throw ParseError(description: "'\(word)' needs a percentage such as 2%") }
                if word == "loss" { out.lossPercent = p } else { out.duplicatePercent = p }
            default:
                throw ParseError(description: "'\(word)' is not supported: Sluice's relay does delay [jitter], loss and duplicate")
            }
        }
        guard out.delayMs <= 10_000, out.jitterMs <= out.delayMs || out.delayMs == 0 && out.jitterMs == 0 else {
            throw ParseError(description: "delay must be at most 10 s, and jitter at most the delay")
        }
        return out
    }

    /// `40ms`, `0.5s`, `100us`, or a bare number of ms.
    static func milliseconds(_ s: String) -> Double? {
        let units: [(String, Double)] = [("ms", 1), ("us", 0.001), ("s", 1000)]
        for (u, f) in units where s.hasSuffix(u) {
            guard let v = Double(s.dropLast(u.count)), v >= 0, v.isFinite else { return nil }
            return v * f
        }
        guard let v = Double(s), v >= 0, v.isFinite else { return nil }
        return v
    }

    /// `2%` or `2`.
    static func percent(_ s: String) -> Double? {
        guard let v = Double(s.hasSuffix("%") ? String(s.dropLast()) : s), v >= 0, v <= 100 else { return nil }
        return v
    }
}

/// Forwards packets read from a file descriptor (a TUN device) back into it after the
/// impairment: each packet is dropped with the loss probability, otherwise written back
/// once its delay (± jitter) has passed, and duplicated with the duplicate probability.
/// One thread reads, one writes.
///
/// `@unchecked Sendable`: the queue and counters are only touched with `condition` held;
/// `fd`, `impairment` and the random state's lock are immutable or internally locked.
public final class ImpairmentRelay: @unchecked Sendable {
    public let impairment: Impairment
    private let fd: Int32
    private let condition = NSCondition()
    private var queue: [(due: UInt64, packet: [UInt8])] = []
    private var stopped = false
    private var random: SplitMix
    public private(set) var forwarded = 0, dropped = 0, duplicated = 0

    public init(fd: Int32, impairment: Impairment, seed: UInt64) {
        self.fd = fd; self.impairment = impairment; random = SplitMix(seed: seed)
    }

    /// Starts the two threads.
    public func start() {
        Thread.detachNewThread { [self] in readLoop() }
        Thread.detachNewThread { [self] in writeLoop() }
    }

    public func stop() {
        condition.lock(); stopped = true; condition.broadcast(); condition.unlock()
    }

    /// Counts so far: (forwarded, dropped, duplicated).
    public var counts: (Int, Int, Int) { condition.lock(); defer { condition.unlock() }; return (forwarded, dropped, duplicated) }

    /// Decides a packet's fate: nil to drop, else the delays (ns) of its copies.
    func schedule() -> [UInt64]? {
        if impairment.lossPercent > 0, random.unit() * 100 < impairment.lossPercent { return nil }
        var copies = [delayNanos()]
        if impairment.duplicatePercent > 0, random.unit() * 100 < impairment.duplicatePercent { copies.append(delayNanos()) }
        return copies
    }

    private func delayNanos() -> UInt64 {
        let jitter = impairment.jitterMs > 0 ? (random.unit() * 2 - 1) * impairment.jitterMs : 0
        return UInt64(max(0, impairment.delayMs + jitter) * 1_000_000)
    }

    private func readLoop() {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n <= 0 {
                if n < 0 && errno == EINTR { continue }
                break
            }
            let packet = Array(buffer[0..<n])
            condition.lock()
            if stopped { condition.unlock(); break }
            if let delays = schedule() {
                let now = Self.now()
                for d in delays {
                    let due = now + d
                    let i = queue.firstIndex { $0.due > due } ?? queue.count
                    queue.insert((due, packet), at: i)
                }
                if delays.count > 1 { duplicated += 1 }
                condition.signal()
            } else {
                dropped += 1
            }
            condition.unlock()
        }
    }

    private func writeLoop() {
        while true {
            condition.lock()
            while !stopped {
                if let first = queue.first {
                    let now = Self.now()
                    if first.due <= now { break }
                    _ = condition.wait(until: Date().addingTimeInterval(Double(first.due - now) / 1e9))
                } else {
                    condition.wait()
                }
            }
            if stopped { condition.unlock(); return }
            let item = queue.removeFirst()
            forwarded += 1
            condition.unlock()
            _ = item.packet.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        }
    }

    static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }
}

/// SplitMix64: a small, seedable generator (reproducible loss patterns).
struct SplitMix {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}
