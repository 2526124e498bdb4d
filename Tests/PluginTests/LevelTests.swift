import Foundation
import SluiceFilterKit
import SluiceLevel
import Synchronization
import XCTest

final class LevelTests: XCTestCase {
    private final class Collected: Sendable {
        let events = Mutex<[[String: Double]]>([])
        var context: FilterContext {
            FilterContext { name, fields in if name == "level" { self.events.withLock { $0.append(fields) } } }
        }
    }

    /// A full-scale sine has RMS −3.01 dBFS and peak 0; at −20 dB, −23.01 and −20. One event
    /// per 100 ms of audio, whatever the block size, and the samples are untouched.
    func testSineLevelsAreReportedEveryIntervalAndTheSamplesAreLeftAlone() throws {
        let collected = Collected()
        let level = Level(intervalMilliseconds: 100)
        for (amplitude, expectedRMS, expectedPeak) in [(Float(1), -3.01, 0.0), (0.1, -23.01, -20.0)] {
            var samples = (0..<48_000).map { i in amplitude * sin(Float(i) * 2 * .pi * 1000 / 48_000) } // 1 s mono
            let original = samples
            var offset = 0
            for size in sequence(first: 441, next: { $0 == 441 ? 960 : 441 }) {
                guard offset < samples.count else { break }
                var block = Array(samples[offset..<min(samples.count, offset + size)])
                _ = try AudioBlock.withSamples(&block, rate: 48_000, channels: 1) { try level.process($0, context: collected.context) }
                samples.replaceSubrange(offset..<offset + block.count, with: block)
                offset += size
            }
            XCTAssertEqual(samples, original)
            let events = collected.events.withLock { e in
                defer { e.removeAll() }; return e
            }
            XCTAssertEqual(events.count, 10, "one event per 100 ms of a 1 s signal")
            for e in events {
                XCTAssertEqual(e["rms_db"] ?? 0, expectedRMS, accuracy: 0.05)
                XCTAssertEqual(e["peak_db"] ?? 0, expectedPeak, accuracy: 0.05)
            }
        }
    }

    func testSilenceReadsTheFloorAndSixteenBitSamplesAreScaledToFullScale() throws {
        let collected = Collected()
        let level = Level(intervalMilliseconds: 10)
        var silence = [Int16](repeating: 0, count: 480 * 2)
        _ = try AudioBlock.withSamples(&silence, rate: 48_000, channels: 2) { try level.process($0, context: collected.context) }
        var loud = [Int16](repeating: -32768, count: 480 * 2)
        _ = try AudioBlock.withSamples(&loud, rate: 48_000, channels: 2) { try level.process($0, context: collected.context) }
        let events = collected.events.withLock { $0 }
        XCTAssertEqual(events.map { $0["rms_db"] ?? 1 }, [Level.floorDB, 0])
        XCTAssertEqual(events.map { $0["peak_db"] ?? 1 }, [Level.floorDB, 0])
    }
}
