@testable import SluiceRun
import XCTest

/// The rung chooser's probes (`probesFirst`): a better rung is tried by probing the viewer's
/// path with retransmissions, and the viewer moves only once the path has carried the
/// probed rate.
final class RenditionChoiceProbeTests: XCTestCase {
    private let rates = [1_000_000, 300_000, 100_000]
    private let s: UInt64 = 1_000_000_000
    private let ms: UInt64 = 1_000_000

    /// A viewer on the middle rung whose estimate sits at 1.5× what arrives, 2 s after its
    /// last move: the try starts (probing up to 1.05 × 1 M, less what the rung sends).
    private func tryingViewer() -> (RenditionChoice, UInt64) {
        var c = RenditionChoice(count: 3, start: 1, probesFirst: true)
        XCTAssertEqual(c.update(estimate: 450_000, rates: rates, received: 300_000, increasing: true, nowNs: 0), .stay)
        XCTAssertEqual(c.update(estimate: 450_000, rates: rates, received: 300_000, increasing: true, nowNs: 2 * s), .probe(750_000))
        XCTAssertTrue(c.isProbing)
        XCTAssertEqual(c.current, 1, "a probe does not move the viewer")
        return (c, 2 * s)
    }

    func testAProbedTryThatArrivesWholeMovesTheViewerUp() {
        var (c, t) = tryingViewer()
        // What arrives keeps up, but not yet for long enough.
        t += 300 * ms
        XCTAssertEqual(c.update(estimate: 600_000, rates: rates, received: 1_100_000, increasing: true, queueMs: 3, nowNs: t), .stay)
        t += 400 * ms
        XCTAssertEqual(
            c.update(estimate: 700_000, rates: rates, received: 1_120_000, increasing: true, queueMs: 4, nowNs: t), .stay,
            "the proof counts from the end of the probe's 0.3-s ramp")
        t += 200 * ms
        XCTAssertEqual(c.update(estimate: 700_000, rates: rates, received: 1_120_000, increasing: true, queueMs: 4, nowNs: t), .to(0, probing: false))
        XCTAssertFalse(c.isProbing)
        XCTAssertEqual(c.current, 0)
    }

    /// A queue past 25 ms that grows again ends a try (ending it only at 50 ms, each failed
    /// try of a viewer behind 400 kbit/s lifted its delay's 95th percentile to 151 ms:
    /// `Benchmarks/simulcast-links.sh`); one that stays near 25 ms is a path nearly full that
    /// carries the probe.
    func testAQueueThatGrowsEndsTheTryAndTheNextWaitsTwiceAsLong() {
        var (c, t) = tryingViewer()
        for queue in [20.0, 30, 28] {
            t += 50 * ms
            XCTAssertEqual(
                c.update(estimate: 450_000, rates: rates, received: 500_000, increasing: true, queueMs: queue, nowNs: t), .stay, "\(queue) ms")
        }
        t += 50 * ms
        XCTAssertEqual(c.update(estimate: 450_000, rates: rates, received: 500_000, increasing: true, queueMs: 35, nowNs: t), .stopProbing)
        XCTAssertEqual(c.current, 1)
        XCTAssertEqual(c.probeWaitNs, 4 * s)
        // The estimate dips while the queue drains: no move down for that (only a deep fall).
        t += 300 * ms
        XCTAssertEqual(c.update(estimate: 220_000, rates: rates, received: 400_000, increasing: false, queueMs: 40, nowNs: t), .stay)
        // The next try waits 4 s from the end of this one, and the wait goes no higher.
        t += 3 * s
        XCTAssertEqual(c.update(estimate: 450_000, rates: rates, received: 300_000, increasing: true, nowNs: t), .stay)
        t += s
        XCTAssertEqual(c.update(estimate: 450_000, rates: rates, received: 300_000, increasing: true, nowNs: t), .probe(750_000))
        t += 100 * ms
        XCTAssertEqual(c.update(estimate: 450_000, rates: rates, received: 500_000, increasing: true, queueMs: 90, nowNs: t), .stopProbing)
        XCTAssertEqual(c.probeWaitNs, 4 * s)
    }

    /// A viewer whose link does not carry its own rung (250 of 300 kbit/s arrive) is not
    /// probed, however its estimate rises: a failed probe puts the estimate back, and such a
    /// viewer never moved down (RelaySimulcastEndToEndTests, a 250 kbit/s link).
    func testAViewerWhosePathDoesNotCarryItsRungIsNotProbed() {
        var c = RenditionChoice(count: 3, start: 1, probesFirst: true)
        XCTAssertEqual(c.update(estimate: 450_000, rates: rates, received: 250_000, increasing: true, nowNs: 0), .stay)
        XCTAssertEqual(c.update(estimate: 450_000, rates: rates, received: 250_000, increasing: true, nowNs: 3 * s), .stay)
        XCTAssertFalse(c.isProbing)
        XCTAssertEqual(c.update(estimate: 450_000, rates: rates, received: 290_000, increasing: true, nowNs: 4 * s), .probe(750_000))
    }

    func testAQueueTwiceTheBoundEndsTheTryAtOnce() {
        var (c, t) = tryingViewer()
        t += 100 * ms
        XCTAssertEqual(c.update(estimate: 450_000, rates: rates, received: 500_000, increasing: true, queueMs: 51, nowNs: t), .stopProbing)
    }

    func testALostPacketEndsTheTryAtOnce() {
        // A queue that counts packets overflows before it delays much.
        var (c, t) = tryingViewer()
        t += 100 * ms
        XCTAssertEqual(
            c.update(estimate: 450_000, rates: rates, received: 400_000, increasing: true, queueMs: 5, lost: 3, nowNs: t), .stopProbing)
        XCTAssertEqual(c.current, 1)
    }

    func testATryThatFallsShortOrLastsTooLongEnds() {
        // What arrives stays far below the probed rate (a path that drops what it cannot carry).
        var (c, t) = tryingViewer()
        t += 700 * ms
        XCTAssertEqual(c.update(estimate: 450_000, rates: rates, received: 500_000, increasing: true, queueMs: 10, nowNs: t), .stay, "on the ramp")
        t += 200 * ms
        XCTAssertEqual(c.update(estimate: 450_000, rates: rates, received: 500_000, increasing: true, queueMs: 10, nowNs: t), .stopProbing)
        // Just short of the mark, for ever: over after 1.8 s.
        var (d, u) = tryingViewer()
        u += 900 * ms
        XCTAssertEqual(d.update(estimate: 600_000, rates: rates, received: 900_000, increasing: true, queueMs: 10, nowNs: u), .stay)
        u += 900 * ms
        XCTAssertEqual(d.update(estimate: 600_000, rates: rates, received: 900_000, increasing: true, queueMs: 10, nowNs: u), .stopProbing)
    }

    func testAResetEndsATry() {
        var (c, t) = tryingViewer()
        c.reset(to: 2, nowNs: t)
        XCTAssertFalse(c.isProbing)
        t += 700 * ms
        XCTAssertEqual(c.update(estimate: 150_000, rates: rates, received: 1_120_000, increasing: false, queueMs: 0, nowNs: t), .stay)
    }

    /// A viewer without RTX: the first probe due is given up for good; tries then move the
    /// viewer, after a move try's wait.
    func testAViewerThatCannotBeProbedTriesByMoving() {
        var (c, t) = tryingViewer()
        c.cannotProbe()
        XCTAssertFalse(c.isProbing)
        XCTAssertFalse(c.probesFirst)
        t += RenditionChoice.minProbeWaitNs
        XCTAssertEqual(c.update(estimate: 450_000, rates: rates, received: 300_000, increasing: true, nowNs: t), .to(0, probing: true))
    }
}
