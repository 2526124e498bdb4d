import Foundation
import SluiceFaults
import SluiceFilterKit
import Synchronization
import XCTest

final class FaultsTests: XCTestCase {
    /// Runs `faults` over `count` frames (a keyframe every `gop`, 30 fps PTS), returning the
    /// verdicts.
    private func run(_ faults: Faults, count: Int, gop: Int = 30, context: FilterContext = .discarding) throws -> [EncodedVerdict] {
        let payload = [UInt8](repeating: 0xAB, count: 100)
        return try payload.withUnsafeBytes { bytes in
            try (0..<count).map { i in
                try faults.process(
                    EncodedFrame(
                        codec: .vp8, direction: .send, isKeyframe: i % gop == 0, pts: UInt64(i) * 33_333_333, bytes: bytes,
                        number: UInt64(i)),
                    context: context)
            }
        }
    }

    private func settings(_ change: (inout Faults.Settings) -> Void) -> Faults {
        var s = Faults.Settings()
        change(&s)
        return Faults(settings: s)
    }

    func testNothingIsInjectedByDefault() throws {
        XCTAssertEqual(try run(Faults(settings: .init()), count: 90), Array(repeating: .keep, count: 90))
    }

    func testDropEveryNthSparesKeyframesUnlessTold() throws {
        let verdicts = try run(settings { $0.dropEvery = 3 }, count: 90)
        let dropped = verdicts.indices.filter { verdicts[$0] == .drop }
        // Frames 3, 6, 9, … (numbered from 1): indexes 2, 5, 8, …; index 30 and 60 are keyframes but not multiples.
        XCTAssertEqual(dropped, Array(stride(from: 2, to: 90, by: 3)))
        let all = try run(
            settings {
                $0.dropEvery = 1; $0.keepKeyframes = false
            }, count: 10)
        XCTAssertEqual(all, Array(repeating: .drop, count: 10))
        let spared = try run(settings { $0.dropEvery = 1 }, count: 31)
        XCTAssertEqual(spared.indices.filter { spared[$0] == .keep }, [0, 30], "only the keyframes pass")
    }

    func testARandomShareIsReproducibleWithItsSeed() throws {
        let a = try run(
            settings {
                $0.dropShare = 0.25; $0.seed = 7
            }, count: 3000, gop: 100_000)
        let b = try run(
            settings {
                $0.dropShare = 0.25; $0.seed = 7
            }, count: 3000, gop: 100_000)
        let c = try run(
            settings {
                $0.dropShare = 0.25; $0.seed = 8
            }, count: 3000, gop: 100_000)
        XCTAssertEqual(a, b)
        XCTAssertNotEqual(a, c)
        let share = Double(a.filter { $0 == .drop }.count) / 3000
        XCTAssertEqual(share, 0.25, accuracy: 0.03)
    }

    func testDeltaFramesDropForTheirWindowOnly() throws {
        let verdicts = try run(
            settings {
                $0.dropDeltasAt = 1; $0.dropDeltasFor = 2
            }, count: 120)
        for (i, v) in verdicts.enumerated() {
            let t = Double(i) / 30
            let expected: EncodedVerdict = t >= 1 && t < 3 - 1e-9 && i % 30 != 0 ? .drop : .keep
            XCTAssertEqual(v, expected, "frame \(i) at \(t) s")
        }
    }

    func testCorruptionFlipsBytesPastTheHeaderAndNeverInKeyframes() throws {
        let events = Mutex<[String]>([])
        let context = FilterContext { name, _ in events.withLock { $0.append(name) } }
        let verdicts = try run(
            settings {
                $0.corruptShare = 1; $0.corruptBytes = 3
            }, count: 31, context: context)
        XCTAssertEqual(verdicts[0], .keep)
        XCTAssertEqual(verdicts[30], .keep)
        for v in verdicts[1..<30] {
            guard case .replace(let bytes) = v else { return XCTFail("\(v)") }
            XCTAssertEqual(bytes.count, 100)
            XCTAssertEqual(Array(bytes[0..<16]), Array(repeating: 0xAB, count: 16), "the first 16 bytes stay")
            let changed = bytes.filter { $0 != 0xAB }.count
            XCTAssertTrue((1...3).contains(changed), "\(changed) bytes changed")
        }
        XCTAssertEqual(events.withLock { $0 }.filter { $0 == "corrupted" }.count, 29)
    }

    func testADelayedFrameIsHeldOnTheCallingThread() throws {
        let start = ContinuousClock.now
        let verdicts = try run(
            settings {
                $0.delayEvery = 5; $0.delayMs = 40
            }, count: 10)
        XCTAssertEqual(verdicts, Array(repeating: .keep, count: 10))
        XCTAssertGreaterThanOrEqual(ContinuousClock.now - start, .milliseconds(80), "two frames held 40 ms each")
    }
}
