import Foundation
import SluiceFilterKit
import SluiceGain
import XCTest

final class GainTests: XCTestCase {
    private func sine(frames: Int, channels: Int, amplitude: Float = 0.5) -> [Float] {
        (0..<frames * channels).map { i in amplitude * sin(Float(i / channels) * 2 * .pi * 440 / 48_000) }
    }

    private func run(_ gain: Gain, _ samples: inout [Float], channels: Int = 2, number: UInt64 = 0) throws {
        let verdict = try AudioBlock.withSamples(&samples, rate: 48_000, channels: channels, number: number) { block in
            try gain.process(block, context: .discarding)
        }
        XCTAssertEqual(verdict, .keep)
    }

    func testMinusSixDecibelsHalvesTheAmplitudeOfFloatsAndIntegers() throws {
        let original = sine(frames: 480, channels: 2)
        var floats = original
        try run(Gain(db: -6.0206), &floats)
        for (a, b) in zip(floats, original) { XCTAssertEqual(a, b / 2, accuracy: 1e-4) }

        var ints: [Int16] = original.map { Int16($0 * 32767) }
        let before = ints
        _ = try AudioBlock.withSamples(&ints, rate: 48_000, channels: 2) { try Gain(db: -6.0206).process($0, context: .discarding) }
        for (a, b) in zip(ints, before) { XCTAssertEqual(Int(a), Int((Float(b) / 2).rounded()), accuracy: 1) }
    }

    func testZeroDecibelsLeavesSamplesBitExactAndLoudGainsClampIntegers() throws {
        let original = sine(frames: 480, channels: 1)
        var floats = original
        try run(Gain(db: 0), &floats, channels: 1)
        XCTAssertEqual(floats, original)

        var ints: [Int16] = [30_000, -30_000, 100]
        _ = try AudioBlock.withSamples(&ints, rate: 48_000, channels: 1) { try Gain(db: 12).process($0, context: .discarding) }
        XCTAssertEqual(ints, [32_767, -32_768, 398])
    }

    /// A change of gain while running ramps over `ramp_ms`: no step between two samples is
    /// larger than the ramp allows, and the new gain is reached at the ramp's end.
    func testAChangeRampsFromThePreviousInstanceWithoutAJump() throws {
        let old = Gain(db: 0, rampMilliseconds: 10)
        var first = [Float](repeating: 1, count: 960 * 2)
        try run(old, &first)
        let new = Gain(db: -20, rampMilliseconds: 10) // 0.1
        new.continue(from: old)
        // 20 ms of a constant signal, in blocks of 7 ms (the ramp crosses block edges).
        var out: [Float] = []
        for k in 0..<3 {
            var block = [Float](repeating: 1, count: 336 * 2)
            try run(new, &block, number: UInt64(k + 1))
            out += block
        }
        let left = stride(from: 0, to: out.count, by: 2).map { out[$0] }
        let maxStep = zip(left, left.dropFirst()).map { abs($0 - $1) }.max() ?? 0
        XCTAssertLessThan(maxStep, 0.9 / 480 + 1e-5, "one frame changes the factor by at most (1 − 0.1) ÷ 480")
        XCTAssertEqual(left[0], 1 - 0.9 / 480, accuracy: 1e-5, "the ramp starts from the old gain")
        XCTAssertEqual(left[479], 0.1, accuracy: 1e-4, "the ramp ends after 10 ms (480 frames at 48 kHz)")
        XCTAssertEqual(left.last ?? 0, 0.1, accuracy: 1e-6)
        XCTAssertEqual(new.current, 0.1, accuracy: 1e-6)
    }
}
