import XCTest
@testable import SluiceRun

/// WebRTC's freeze definition over decoded frames' times: a gap of at least max(3 × the mean
/// interval, mean + 150 ms) is a freeze; jitter and a steady low rate are not.
final class FreezeTallyTests: XCTestCase {
    private func tally(_ intervalsMs: [Double]) -> FreezeTally {
        var t = FreezeTally()
        var now: UInt64 = 1_000_000_000
        t.frame(at: now)
        for ms in intervalsMs {
            now += UInt64(ms * 1_000_000)
            t.frame(at: now)
        }
        return t
    }

    func testAGapInASteadyStreamIsOneFreezeOfItsLength() {
        let t = tally(Array(repeating: 33.3, count: 40) + [500] + Array(repeating: 33.3, count: 40))
        XCTAssertEqual(t.count, 1)
        XCTAssertEqual(t.totalMs, 500, accuracy: 0.01)
        XCTAssertEqual(t.longestMs, 500, accuracy: 0.01)
    }

    func testJitterAndASteadyLowRateAreNoFreeze() {
        XCTAssertEqual(tally((0..<90).map { $0 % 2 == 0 ? 20 : 46 }).count, 0, "30 fps with jitter")
        XCTAssertEqual(tally(Array(repeating: 200, count: 30)).count, 0, "5 fps, steadily")
        XCTAssertEqual(tally(Array(repeating: 33.3, count: 3) + [400]).count, 0, "too few intervals yet to tell (4 of the 5 needed)")
        XCTAssertEqual(tally(Array(repeating: 33.3, count: 4) + [400]).count, 1, "the fifth can be one")
    }

    func testGapsOfAKeyframeOnlyWindowAddUp() {
        let t = tally(Array(repeating: 33.3, count: 30) + [1000, 500] + Array(repeating: 33.3, count: 30))
        XCTAssertEqual(t.count, 2)
        XCTAssertEqual(t.totalMs, 1500, accuracy: 0.01)
        XCTAssertEqual(t.longestMs, 1000, accuracy: 0.01)
    }
}
