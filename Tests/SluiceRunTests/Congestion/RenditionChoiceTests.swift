@testable import SluiceRun
import XCTest

/// The rung chooser against synthetic estimate sequences (no network, no GStreamer).
final class RenditionChoiceTests: XCTestCase {
    private let rates = [2_500_000, 1_000_000, 300_000]
    private let s: UInt64 = 1_000_000_000

    func testDownAtOnceToTheBestRungThatFits() {
        var c = RenditionChoice(count: 3, start: 0)
        XCTAssertEqual(c.update(estimate: 2_600_000, rates: rates, received: 2_500_000, increasing: false, nowNs: 0), .stay)
        // The link narrows to 800 kbit/s: straight past 1 M to 300 k.
        XCTAssertEqual(c.update(estimate: 800_000, rates: rates, received: 2_000_000, increasing: false, nowNs: 100_000_000), .to(2, probing: false))
        XCTAssertEqual(c.current, 2)
        // Nothing lower: stays however low the estimate.
        XCTAssertEqual(c.update(estimate: 100_000, rates: rates, received: 200_000, increasing: false, nowNs: 200_000_000), .stay)
    }

    func testUpWhenABetterRungFitsWithRoomAtMostOnceASecond() {
        var c = RenditionChoice(count: 3, start: 2)
        _ = c.update(estimate: 400_000, rates: rates, received: 300_000, increasing: true, nowNs: 0)
        // 1.2 M estimate: 1 M is not within 90% of it; 1.2 M ≥ 1.2 × 300 k, but the probe waits 4 s.
        XCTAssertEqual(c.update(estimate: 1_200_000, rates: rates, received: 300_000, increasing: true, nowNs: s / 2), .stay)
        // 1.2 M estimate with 1 M ≤ 0.9 × 1.2 M: up after a second.
        XCTAssertEqual(c.update(estimate: 1_120_000, rates: rates, received: 300_000, increasing: false, nowNs: s + 1), .to(1, probing: false))
        // Even far above the top rung, the next move up waits a second.
        XCTAssertEqual(c.update(estimate: 5_000_000, rates: rates, received: 1_000_000, increasing: false, nowNs: s + s / 2), .stay)
        XCTAssertEqual(c.update(estimate: 5_000_000, rates: rates, received: 1_000_000, increasing: false, nowNs: 2 * s + 2), .to(0, probing: false))
    }

    func testMeasuredRatesNotNominalOnesDecide() {
        // A still picture: the best rung sends 400 kbit/s whatever its nominal rate.
        var c = RenditionChoice(count: 3, start: 2)
        _ = c.update(estimate: 500_000, rates: [400_000, 200_000, 80_000], received: 80_000, increasing: false, nowNs: 0)
        XCTAssertEqual(
            c.update(estimate: 500_000, rates: [400_000, 200_000, 80_000], received: 80_000, increasing: false, nowNs: 2 * s),
            .to(0, probing: false))
    }

    func testAProbeThatFailsDoublesTheWaitAndOneThatHoldsResetsIt() {
        var c = RenditionChoice(count: 3, start: 2)
        var t: UInt64 = 0
        _ = c.update(estimate: 450_000, rates: rates, received: 300_000, increasing: true, nowNs: t)
        // Estimate held near 1.5× what arrives (the estimator's cap): after 4 s, a probe.
        t += 3 * s
        XCTAssertEqual(c.update(estimate: 450_000, rates: rates, received: 300_000, increasing: true, nowNs: t), .stay)
        t += s
        XCTAssertEqual(c.update(estimate: 450_000, rates: rates, received: 300_000, increasing: true, nowNs: t), .to(1, probing: true))
        // The path cannot carry 1 M: the estimate falls and the viewer goes back down.
        t += s / 2
        XCTAssertEqual(c.update(estimate: 500_000, rates: rates, received: 600_000, increasing: false, nowNs: t), .back(2))
        XCTAssertEqual(c.probeWaitNs, 8 * s)
        // Not before 8 s this time.
        t += 5 * s
        XCTAssertEqual(c.update(estimate: 450_000, rates: rates, received: 300_000, increasing: true, nowNs: t), .stay)
        t += 3 * s
        XCTAssertEqual(c.update(estimate: 450_000, rates: rates, received: 300_000, increasing: true, nowNs: t), .to(1, probing: true))
        // This one holds for 4 s: the wait is back to 4 s.
        for _ in 0..<5 {
            t += s
            XCTAssertEqual(c.update(estimate: 1_300_000, rates: rates, received: 1_000_000, increasing: false, nowNs: t), .stay)
        }
        XCTAssertEqual(c.probeWaitNs, 4 * s)
    }

    func testAFailedProbeGoesBackWhereItCameFromAndSettles() {
        var c = RenditionChoice(count: 3, start: 1)
        var t: UInt64 = 0
        _ = c.update(estimate: 1_500_000, rates: rates, received: 1_000_000, increasing: true, nowNs: t)
        t += 4 * s
        XCTAssertEqual(c.update(estimate: 1_500_000, rates: rates, received: 1_000_000, increasing: true, nowNs: t), .to(0, probing: true))
        // The queue the probe built: the estimate dips to 800 k, below the 1 M rung too.
        t += s / 2
        XCTAssertEqual(
            c.update(estimate: 800_000, rates: rates, received: 1_200_000, increasing: false, nowNs: t), .back(1),
            "back to the rung the probe left, not past it")
        t += s / 2
        XCTAssertEqual(
            c.update(estimate: 800_000, rates: rates, received: 1_000_000, increasing: false, nowNs: t), .stay,
            "a dip while the queue drains moves nothing for 2 s")
        t += s / 2
        XCTAssertEqual(
            c.update(estimate: 400_000, rates: rates, received: 600_000, increasing: false, nowNs: t), .to(2, probing: false),
            "a deep fall still does")
        // And once settled, an ordinary fall moves it at once.
        var d = RenditionChoice(count: 3, start: 1)
        _ = d.update(estimate: 1_200_000, rates: rates, received: 1_000_000, increasing: false, nowNs: 0)
        XCTAssertEqual(
            d.update(estimate: 850_000, rates: rates, received: 1_000_000, increasing: false, nowNs: s), .stay,
            "85% of the rung: one GCC cut on a link the rung nearly fills")
        XCTAssertEqual(d.update(estimate: 750_000, rates: rates, received: 1_000_000, increasing: false, nowNs: 2 * s), .to(2, probing: false))
    }

    func testFailedProbesBackOffToAMinute() {
        var c = RenditionChoice(count: 2, start: 1)
        let two = [1_000_000, 300_000]
        var t: UInt64 = 0
        XCTAssertEqual(c.update(estimate: 450_000, rates: two, received: 300_000, increasing: true, nowNs: t), .stay)
        for _ in 0..<8 {
            t += 70 * s
            XCTAssertEqual(c.update(estimate: 450_000, rates: two, received: 300_000, increasing: true, nowNs: t), .to(0, probing: true))
            t += s / 2
            XCTAssertEqual(c.update(estimate: 400_000, rates: two, received: 500_000, increasing: false, nowNs: t), .back(1))
        }
        XCTAssertEqual(c.probeWaitNs, RenditionChoice.maxProbeWaitNs)
    }

    func testGarbageReadingsMoveNothing() {
        var c = RenditionChoice(count: 3, start: 1)
        XCTAssertEqual(c.update(estimate: 0, rates: rates, received: nil, increasing: true, nowNs: 10 * s), .stay)
        XCTAssertEqual(c.update(estimate: -5, rates: rates, received: nil, increasing: true, nowNs: 20 * s), .stay)
        XCTAssertEqual(c.update(estimate: 900_000, rates: [1, 2], received: nil, increasing: true, nowNs: 30 * s), .stay, "wrong rung count")
        XCTAssertEqual(c.current, 1)
        // Time going backwards does not make a move "a second later".
        var d = RenditionChoice(count: 3, start: 2)
        _ = d.update(estimate: 400_000, rates: rates, received: 300_000, increasing: false, nowNs: 100 * s)
        XCTAssertEqual(d.update(estimate: 1_200_000, rates: rates, received: 300_000, increasing: false, nowNs: 50 * s), .stay)
    }

    func testRateWindowMeasuresTheLastTwoSeconds() {
        var w = RateWindow()
        XCTAssertNil(w.bitsPerSecond)
        var bytes = 0
        for i in 0...30 { // 100 ms steps, 12.5 kB each: 1 Mbit/s
            w.add(bytes: bytes, nowNs: UInt64(i) * 100_000_000)
            bytes += 12_500
        }
        XCTAssertEqual(w.bitsPerSecond ?? 0, 1_000_000, accuracy: 1)
        // Then 2 Mbit/s for 3 s: the old rate is forgotten.
        for i in 31...60 {
            w.add(bytes: bytes, nowNs: UInt64(i) * 100_000_000)
            bytes += 25_000
        }
        XCTAssertEqual(w.bitsPerSecond ?? 0, 2_000_000, accuracy: 1)
        // A counter that goes back starts over.
        w.add(bytes: 0, nowNs: 7 * s)
        XCTAssertNil(w.bitsPerSecond)
    }
}
