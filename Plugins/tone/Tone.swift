import Foundation
import SluiceFilterKit

/// A synthetic sound source for audio branches (`capture: {kind: swift, name: tone}`), the
/// audio twin of the `scene` source:
///
/// - `wave: sine` (default): a sine at `frequency` Hz (default 440);
/// - `wave: sweep`: a logarithmic sweep from `from` to `to` Hz (defaults 100 and 8000) over
///   `sweep_s` seconds (default 5), then again from `from`;
/// - `wave: dtmf`: the telephone keypad's dual tones for each character of `digits` (0–9, *,
///   #, A–D; default "0123456789"), `tone_ms` on and `gap_ms` off each (defaults 100 and 100),
///   over and over.
///
/// `level_db` (−60…0, default −10) is the peak in dBFS, on every channel alike. The waveform
/// is a function of the sample's time alone, so it never drifts or clicks between buffers.
public final class Tone: AudioSource {
    public static let name = "tone"
    public static let summary = "Sine, logarithmic sweep or DTMF digits at a set level"
    public static let formats: [SampleFormat] = [.f32le, .s16le]
    public static let parameters: [FilterParameter] = [
        FilterParameter("wave", .string(choices: ["sine", "sweep", "dtmf"]), default: .string("sine"), summary: "sine, sweep or dtmf"),
        FilterParameter("frequency", .number(min: 20, max: 20_000), default: .number(440), summary: "sine frequency in Hz"),
        FilterParameter("from", .number(min: 20, max: 20_000), default: .number(100), summary: "sweep start in Hz"),
        FilterParameter("to", .number(min: 20, max: 20_000), default: .number(8000), summary: "sweep end in Hz"),
        FilterParameter("sweep_s", .number(min: 0.1, max: 600), default: .number(5), summary: "seconds per sweep"),
        FilterParameter("digits", .string(choices: nil), default: .string("0123456789"), summary: "DTMF characters: 0-9 * # A-D"),
        FilterParameter("tone_ms", .integer(min: 20, max: 10_000), default: .integer(100), summary: "DTMF tone length in ms"),
        FilterParameter("gap_ms", .integer(min: 0, max: 10_000), default: .integer(100), summary: "DTMF silence after each tone in ms"),
        FilterParameter("level_db", .number(min: -60, max: 0), default: .number(-10), summary: "peak level in dBFS")
    ]

    /// A DTMF character that is not on the keypad.
    public struct UnknownDigit: Error, CustomStringConvertible {
        /// The character.
        public let character: Character
        public var description: String { "'\(character)' is not a DTMF digit; use 0-9, *, #, A, B, C or D" }
    }

    /// What the source plays.
    public enum Wave: Sendable, Equatable {
        case sine(frequency: Double)
        case sweep(from: Double, to: Double, seconds: Double)
        case dtmf(digits: [Character], toneSeconds: Double, gapSeconds: Double)
    }

    public let wave: Wave
    /// Peak amplitude (1 is full scale).
    public let amplitude: Double

    /// A `dtmf` wave's digits must all be keys of the keypad (checked before the run).
    public static func problems(_ c: FilterConfiguration) -> [FilterSettingProblem] {
        guard c.string("wave") == "dtmf" else { return [] }
        let digits = Array(c.string("digits").uppercased())
        if digits.isEmpty { return [FilterSettingProblem(setting: "digits", message: "'digits' is empty; give at least one of 0-9, *, #, A, B, C or D")] }
        guard let bad = digits.first(where: { keypad[$0] == nil }) else { return [] }
        return [FilterSettingProblem(setting: "digits", message: UnknownDigit(character: bad).description)]
    }

    public convenience init(configuration c: FilterConfiguration) throws {
        let wave: Wave
        switch c.string("wave") {
        case "sweep": wave = .sweep(from: c.number("from"), to: c.number("to"), seconds: c.number("sweep_s"))
        case "dtmf":
            let digits = Array(c.string("digits").uppercased())
            if let bad = digits.first(where: { Self.keypad[$0] == nil }) { throw UnknownDigit(character: bad) }
            wave = .dtmf(digits: digits, toneSeconds: Double(c.integer("tone_ms")) / 1000, gapSeconds: Double(c.integer("gap_ms")) / 1000)
        default: wave = .sine(frequency: c.number("frequency"))
        }
        self.init(wave, levelDB: c.number("level_db"))
    }

    /// A source of `wave` peaking at `levelDB` dBFS.
    public init(_ wave: Wave, levelDB: Double = -10) {
        self.wave = wave
        amplitude = pow(10, levelDB / 20)
    }

    /// DTMF: each character's (low, high) frequencies in Hz.
    public static let keypad: [Character: (Double, Double)] = {
        let rows = [697.0, 770, 852, 941], columns = [1209.0, 1336, 1477, 1633]
        let layout: [[Character]] = [["1", "2", "3", "A"], ["4", "5", "6", "B"], ["7", "8", "9", "C"], ["*", "0", "#", "D"]]
        var out: [Character: (Double, Double)] = [:]
        for (r, row) in layout.enumerated() { for (k, ch) in row.enumerated() { out[ch] = (rows[r], columns[k]) } }
        return out
    }()

    /// The signal at time `t` seconds, in −1…1 before the level.
    public func value(at t: Double) -> Double {
        switch wave {
        case .sine(let f): return sin(2 * .pi * f * t)
        case .sweep(let f0, let f1, let period):
            let tau = t.truncatingRemainder(dividingBy: period)
            guard f0 != f1 else { return sin(2 * .pi * f0 * tau) }
            let k = log(f1 / f0)
            return sin(2 * .pi * f0 * period / k * (exp(k * tau / period) - 1))
        case .dtmf(let digits, let on, let off):
            guard !digits.isEmpty else { return 0 }
            let slot = on + off
            let index = Int(t / slot) % digits.count
            let within = t - Double(Int(t / slot)) * slot
            guard within < on, let (low, high) = Self.keypad[digits[index]] else { return 0 }
            return (sin(2 * .pi * low * within) + sin(2 * .pi * high * within)) / 2
        }
    }

    public func fill(_ block: borrowing AudioBlock) -> Bool {
        let rate = Double(block.rate), channels = block.channels
        for frame in 0..<block.frameCount {
            let v = amplitude * value(at: Double(block.sampleOffset + UInt64(frame)) / rate)
            if let f = block.float32 {
                for c in 0..<channels { f[frame * channels + c] = Float(v) }
            } else if let s = block.int16 {
                let i = Int16(max(-32768, min(32767, (v * 32767).rounded())))
                for c in 0..<channels { s[frame * channels + c] = i }
            }
        }
        return true
    }
}
