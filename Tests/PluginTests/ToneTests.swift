import Foundation
import SluiceFilterKit
import SluiceTone
import XCTest

final class ToneTests: XCTestCase {
    /// Fills `seconds` of mono audio at `rate` in blocks of `block` frames.
    private func render(_ tone: Tone, seconds: Double, rate: Int = 48_000, block: Int = 441) -> [Float] {
        var out: [Float] = []
        let total = Int(seconds * Double(rate))
        while out.count < total {
            var samples = [Float](repeating: 0, count: min(block, total - out.count))
            let offset = UInt64(out.count)
            samples.withUnsafeMutableBytes { raw in
                _ = tone.fill(
                    AudioBlock(
                        format: .f32le, rate: rate, channels: 1, base: raw.baseAddress!, byteCount: raw.count, pts: nil,
                        blockNumber: 0, sampleOffset: offset))
            }
            out += samples
        }
        return out
    }

    /// The power of `frequency` in `x` (Goertzel), normalized so a full-scale sine reads 1.
    private func power(_ x: ArraySlice<Float>, _ frequency: Double, rate: Double = 48_000) -> Double {
        let w = 2 * Double.pi * frequency / rate, c = 2 * cos(w)
        var s1 = 0.0, s2 = 0.0
        for v in x {
            let s = Double(v) + c * s1 - s2
            s2 = s1
            s1 = s
        }
        let p = s1 * s1 + s2 * s2 - c * s1 * s2
        return p / pow(Double(x.count) / 2, 2)
    }

    func testSineHasItsFrequencyAndPeakWhateverTheBlockSize() throws {
        let tone = try Tone(configuration: FilterConfiguration(["frequency": .number(1000), "level_db": .number(-6)], parameters: Tone.parameters))
        let a = render(tone, seconds: 0.5, block: 441), b = render(tone, seconds: 0.5, block: 960)
        XCTAssertEqual(a, b, "the waveform depends on time alone")
        XCTAssertEqual(Double(a.map(abs).max() ?? 0), pow(10, -6.0 / 20), accuracy: 1e-3)
        let crossings = zip(a, a.dropFirst()).filter { $0 < 0 && $1 >= 0 }.count
        XCTAssertEqual(crossings, 500, accuracy: 1, "1 kHz over 0.5 s")
    }

    func testSweepRisesFromItsStartToItsEnd() {
        let tone = Tone(.sweep(from: 200, to: 4000, seconds: 2), levelDB: 0)
        let x = render(tone, seconds: 2)
        let early = x[0..<4800], late = x[(x.count - 4800)...]
        XCTAssertGreaterThan(power(early, 220), 10 * power(early, 3800))
        XCTAssertGreaterThan(power(late, 3800), 10 * power(late, 220))
    }

    /// Each digit's window holds its keypad pair and not another row's.
    func testDTMFPlaysEachDigitsPairThenSilence() throws {
        let tone = try Tone(
            configuration: FilterConfiguration(
                ["wave": .string("dtmf"), "digits": .string("5#"), "tone_ms": .integer(100), "gap_ms": .integer(50), "level_db": .number(0)],
                parameters: Tone.parameters))
        let x = render(tone, seconds: 0.3)
        let five = x[0..<4800], gap = x[4800..<7200], hash = x[7200..<12000]
        XCTAssertGreaterThan(power(five, 770), 0.1)
        XCTAssertGreaterThan(power(five, 1336), 0.1)
        XCTAssertLessThan(power(five, 941), 0.01)
        XCTAssertEqual(gap.map(abs).max() ?? 1, 0)
        XCTAssertGreaterThan(power(hash, 941), 0.1)
        XCTAssertGreaterThan(power(hash, 1477), 0.1)
        XCTAssertThrowsError(try Tone(configuration: FilterConfiguration(["wave": .string("dtmf"), "digits": .string("12X")], parameters: Tone.parameters))) {
            XCTAssertEqual("\($0)", "'X' is not a DTMF digit; use 0-9, *, #, A, B, C or D")
        }
    }
}
