import Foundation
import SluiceFilterKit

/// Network conditions for a measurement, in `tc netem` words: `delay 40ms [10ms]`,
/// `loss 2%`, `duplicate 1%`, `reorder 25%`, `rate 1mbit`, `limit 100`. The kernel's netem
/// applies them when it has it; otherwise Sluice's own relay (`ImpairmentRelay`) does, for
/// the subset parsed here.
public struct Impairment: Sendable, Equatable {
    /// How long each packet is held, ms (netem's `delay`).
    public var delayMs: Double = 0
    /// Uniform in ±jitter around the delay (netem's default without a distribution table).
    public var jitterMs: Double = 0
    /// Share of packets dropped, percent (0...100).
    public var lossPercent: Double = 0
    /// Share of packets sent twice, percent (0...100).
    public var duplicatePercent: Double = 0
    /// Share of packets sent at once, ahead of the delayed ones (netem: needs a delay).
    public var reorderPercent: Double = 0
    /// The link's rate, bit/s (nil: unlimited). Packets leave one after another, each after
    /// its transmission time, as netem's `rate` does.
    public var rateBitsPerSecond: Double?
    /// The most packets waiting in the link (netem's `limit`, default 1000); more are dropped.
    public var limitPackets = 1000

    /// Conditions from their figures; the defaults impair nothing (no delay, loss, duplication or
    /// reordering, unlimited rate, a 1000-packet limit).
    public init(
        delayMs: Double = 0, jitterMs: Double = 0, lossPercent: Double = 0, duplicatePercent: Double = 0,
        reorderPercent: Double = 0, rateBitsPerSecond: Double? = nil, limitPackets: Int = 1000
    ) {
        self.delayMs = delayMs; self.jitterMs = jitterMs; self.lossPercent = lossPercent; self.duplicatePercent = duplicatePercent
        self.reorderPercent = reorderPercent; self.rateBitsPerSecond = rateBitsPerSecond; self.limitPackets = limitPackets
    }

    /// Netem words that could not be parsed; `description` says what is wrong and what is supported.
    public struct ParseError: Error, CustomStringConvertible, Equatable {
        /// What is wrong, with an example of what is accepted.
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
            case "loss", "duplicate", "reorder":
                guard let p = words.popFirst().flatMap(percent) else { throw ParseError(description: "'\(word)' needs a percentage such as 2%") }
                switch word {
                case "loss": out.lossPercent = p
                case "duplicate": out.duplicatePercent = p
                default: out.reorderPercent = p
                }
            case "rate":
                guard let r = words.popFirst().flatMap(bitsPerSecond) else {
                    throw ParseError(description: "'rate' needs a rate such as 1mbit, 800kbit or 100kbps (bytes), at least 8kbit")
                }
                out.rateBitsPerSecond = r
            case "limit":
                guard let n = words.popFirst().flatMap({ Int($0) }), (1...100_000).contains(n) else {
                    throw ParseError(description: "'limit' needs a number of packets from 1 to 100000")
                }
                out.limitPackets = n
            default:
                throw ParseError(description: "'\(word)' is not supported: Sluice's relay does delay [jitter], loss, duplicate, reorder, rate and limit")
            }
        }
        guard out.delayMs <= 10_000, out.jitterMs <= out.delayMs || out.delayMs == 0 && out.jitterMs == 0 else {
            throw ParseError(description: "delay must be at most 10 s, and jitter at most the delay")
        }
        guard out.reorderPercent == 0 || out.delayMs > 0 else {
            throw ParseError(description: "'reorder' sends some packets ahead of delayed ones: give a delay too, e.g. \"delay 20ms reorder 10%\"")
        }
        return out
    }

    /// `40ms`, `0.5s`, `100us`, or a bare number of ms.
    package static func milliseconds(_ s: String) -> Double? {
        let units: [(String, Double)] = [("ms", 1), ("us", 0.001), ("s", 1000)]
        for (u, f) in units where s.hasSuffix(u) {
            guard let v = Double(s.dropLast(u.count)), v >= 0, v.isFinite else { return nil }
            return v * f
        }
        guard let v = Double(s), v >= 0, v.isFinite else { return nil }
        return v
    }

    /// `2%` or `2`.
    package static func percent(_ s: String) -> Double? {
        guard let v = Double(s.hasSuffix("%") ? String(s.dropLast()) : s), v >= 0, v <= 100 else { return nil }
        return v
    }

    /// tc's rate units: `bit`, `kbit`, `mbit`, `gbit` (bits per second) and `bps`, `kbps`,
    /// `mbps` (bytes per second); 8 kbit/s to 10 Gbit/s.
    package static func bitsPerSecond(_ s: String) -> Double? {
        let units: [(String, Double)] = [
            ("gbit", 1e9), ("mbit", 1e6), ("kbit", 1e3), ("bit", 1),
            ("mbps", 8e6), ("kbps", 8e3), ("bps", 8)
        ]
        let lower = s.lowercased()
        for (u, f) in units where lower.hasSuffix(u) {
            guard let v = Double(lower.dropLast(u.count)), v.isFinite, v * f >= 8000, v * f <= 1e10 else { return nil }
            return v * f
        }
        return nil
    }

    /// How a packet of `bytes` leaves: when (ns from now) each copy is due, or nil when it
    /// is lost. `random` decides loss, duplication, reordering and jitter.
    package func fate(random: inout SplitMix64) -> (reordered: Bool, delaysNs: [UInt64])? {
        if lossPercent > 0, random.unit() * 100 < lossPercent { return nil }
        if reorderPercent > 0, random.unit() * 100 < reorderPercent { return (true, [0]) }
        var copies = [delayNanos(&random)]
        if duplicatePercent > 0, random.unit() * 100 < duplicatePercent { copies.append(delayNanos(&random)) }
        return (false, copies)
    }

    private func delayNanos(_ random: inout SplitMix64) -> UInt64 {
        let jitter = jitterMs > 0 ? (random.unit() * 2 - 1) * jitterMs : 0
        return UInt64(max(0, delayMs + jitter) * 1_000_000)
    }
}

/// Conditions that change during a run: `rate 3mbit for 10s; rate 800kbit for 15s; rate 3mbit`.
/// Each step is netem words, with `for T` except the last, which holds to the end.
public struct ImpairmentSchedule: Sendable, Equatable {
    /// One condition of the schedule and how long it lasts.
    public struct Step: Sendable, Equatable {
        /// The conditions in force during the step.
        public var impairment: Impairment
        /// The step's netem words as written.
        public var text: String
        /// Seconds it lasts (nil: to the end).
        public var seconds: Double?
    }
    /// The steps, in the order they apply.
    public var steps: [Step]

    /// A schedule of these steps.
    public init(steps: [Step]) { self.steps = steps }

    /// One fixed step.
    public init(_ impairment: Impairment, text: String) { steps = [Step(impairment: impairment, text: text, seconds: nil)] }

    /// Parses steps separated by `;` (1 to 100), each netem words with `for T` (e.g. `10s`) except
    /// the last. Throws `Impairment.ParseError` naming the step that is wrong.
    public static func parse(_ text: String) throws(Impairment.ParseError) -> ImpairmentSchedule {
        let parts = text.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard !parts.isEmpty, parts.count <= 100 else {
            throw Impairment.ParseError(description: "a schedule has 1 to 100 steps separated by ';', e.g. \"rate 3mbit for 10s; rate 800kbit\"")
        }
        var steps: [Step] = []
        for (i, part) in parts.enumerated() {
            var words = part.split(whereSeparator: \.isWhitespace).map(String.init)
            var seconds: Double?
            if words.count >= 2, words[words.count - 2] == "for" {
                guard let ms = Impairment.milliseconds(words[words.count - 1]), ms > 0, ms <= 86_400_000 else {
                    throw Impairment.ParseError(description: "step \(i + 1): 'for' needs a time such as 10s")
                }
                seconds = ms / 1000
                words.removeLast(2)
            } else if i < parts.count - 1 {
                throw Impairment.ParseError(description: "step \(i + 1) (\(part)): every step but the last needs 'for T', e.g. \"rate 3mbit for 10s\"")
            }
            let words_ = words.joined(separator: " ")
            do {
                steps.append(Step(impairment: try Impairment.parse(words_), text: words_, seconds: seconds))
            } catch {
                throw Impairment.ParseError(description: "step \(i + 1): \(error.description)")
            }
        }
        return ImpairmentSchedule(steps: steps)
    }

    /// The step in force `seconds` after the schedule started.
    public func step(at seconds: Double) -> Int {
        var end = 0.0
        for (i, s) in steps.enumerated() {
            guard let d = s.seconds else { return i }
            end += d
            if seconds < end { return i }
        }
        return steps.count - 1
    }

    /// Each step's start and end (nil: open), seconds from the schedule's start.
    public var spans: [(from: Double, to: Double?, text: String)] {
        var t = 0.0
        return steps.map { s in
            defer { t += s.seconds ?? 0 }
            return (t, s.seconds.map { t + $0 }, s.text)
        }
    }
}
