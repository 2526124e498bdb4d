import Foundation
import SluiceAudioStamp
import SluiceFilterKit
import Synchronization
import XCTest

final class AudioStampTests: XCTestCase {
    private final class Events: Sendable {
        let list = Mutex<[(String, [String: Double])]>([])
        var context: FilterContext { FilterContext { name, fields in self.list.withLock { $0.append((name, fields)) } } }
        func named(_ name: String) -> [[String: Double]] { list.withLock { $0.filter { $0.0 == name }.map(\.1) } }
    }

    func testTheCodeRoundTripsAndRefusesABadCheck() {
        let symbols = AudioStampCode.symbols(sequence: 21, captureMilliseconds: 0x1_2345_ABCD)
        XCTAssertEqual(symbols.count, 7)
        XCTAssertEqual(symbols.first, AudioStampCode.sync)
        let decoded = AudioStampCode.decode(symbols)
        XCTAssertEqual(decoded?.sequence, 5)
        XCTAssertEqual(decoded?.captureLow, 0xABCD)
        var broken = symbols
        broken[3] ^= 1
        XCTAssertNil(AudioStampCode.decode(broken))
        for v in UInt8(0)..<16 {
            let p = AudioStampCode.position(v)
            XCTAssertEqual(AudioStampCode.nibble(row: p.row, column: p.column), v)
        }
        XCTAssertEqual(AudioStampCode.captureTime(low: 0xABCD, arrival: 0x1_2345_ABCD + 40), 0x1_2345_ABCD)
        XCTAssertEqual(AudioStampCode.captureTime(low: 0xFFF0, arrival: 0x1_0000_0010), 0x0_FFFF_FFF0, "across a wrap")
    }

    /// Writer and reader on the same samples (blocks of 441 frames, a 440 Hz tone around the
    /// stamps, stereo), the reader's clock 37 ms behind: every stamp reads 37 ms, in order.
    func testStampsWrittenOverSoundReadTheirDelayToTheMillisecond() throws {
        let rate = 48_000, channels = 2, block = 441
        var written: UInt64 = 0
        let start: UInt64 = 5_000_000_000
        func now() -> UInt64 { start + written * 1_000_000 / UInt64(rate) }
        let writer = AudioStampWriter(intervalMilliseconds: 500, clock: now)
        let reader = AudioStampReader(clock: { now() + 37_000 })
        let events = Events()
        while written < UInt64(3 * rate) {
            var samples = (0..<block * channels).map { i in 0.3 * sin(Float(written + UInt64(i / channels)) * 2 * .pi * 440 / 48_000) }
            try AudioBlock.withSamples(&samples, rate: rate, channels: channels) { b in
                _ = try writer.process(b, context: .discarding)
                _ = try reader.process(b, context: events.context)
            }
            written += UInt64(block)
        }
        let stamps = events.named("audiostamp")
        XCTAssertEqual(stamps.count, 6, "stamps start at 0.1 s, every 0.5 s, and last 0.28 s: the sixth ends at 2.88 s")
        XCTAssertEqual(stamps.map { Int($0["sequence"] ?? -1) }, [0, 1, 2, 3, 4, 5])
        for s in stamps { XCTAssertEqual(s["delay_ms"] ?? 0, 37, accuracy: 1.0) }
        XCTAssertEqual(events.named("audiostamp-unreadable").count, 0)
        XCTAssertEqual(reader.statistics.read, 6)
    }

    /// Silence, full-scale noise, a plain DTMF `D` without the rest and a rate change: no
    /// stamp is invented and nothing crashes.
    func testSoundWithoutStampsReadsNothing() throws {
        let reader = AudioStampReader(clock: { 0 })
        let events = Events()
        var generator = SystemRandomNumberGenerator()
        for (rate, kind) in [(48_000, "silence"), (48_000, "noise"), (16_000, "lone sync"), (44_100, "clipped")] {
            for k in 0..<100 {
                var samples = [Float](repeating: 0, count: rate / 100)
                for i in samples.indices {
                    let t = Double(k * samples.count + i) / Double(rate)
                    switch kind {
                    case "noise": samples[i] = Float.random(in: -1...1, using: &generator)
                    case "lone sync":
                        samples[i] = t.truncatingRemainder(dividingBy: 0.5) < 0.03 ? Float(0.25 * (sin(2 * .pi * 941 * t) + sin(2 * .pi * 1633 * t))) : 0
                    case "clipped": samples[i] = sin(2 * .pi * 1000 * t) > 0 ? 1 : -1
                    default: break
                    }
                }
                _ = try AudioBlock.withSamples(&samples, rate: rate, channels: 1) { try reader.process($0, context: events.context) }
            }
        }
        XCTAssertEqual(events.named("audiostamp").count, 0)
        XCTAssertGreaterThan(events.named("audiostamp-unreadable").count, 0, "the lone syncs are seen, and refused")
    }
}
