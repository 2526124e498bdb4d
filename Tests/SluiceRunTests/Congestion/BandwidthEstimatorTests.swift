import SluiceFilterKit
import XCTest
@testable import SluiceRun

/// The estimator against a simulated path (no network): a sender at 30 fps whose frames are
/// sized by the estimate, a bottleneck with a FIFO queue, and feedback every 100 ms, as
/// TWCC reports it (send and arrival time per packet, lost ones flagged).
final class BandwidthEstimatorTests: XCTestCase {
    struct Path {
        var capacityBps: Double
        var queueLimitMs = 400.0
        var loss = 0.0
        var oneWayNs: UInt64 = 20_000_000
        var freeAtNs: UInt64 = 0
        var rng = SplitMix64(seed: 7)

        /// When the packet arrives, or nil when the queue is full or the link loses it.
        mutating func carry(bytes: Int, sentNs: UInt64) -> UInt64? {
            let start = max(sentNs, freeAtNs)
            if Double(start - sentNs) / 1e6 > queueLimitMs { return nil }
            freeAtNs = start + UInt64(Double(bytes * 8) / capacityBps * 1e9)
            if rng.unit() < loss { return nil }
            return freeAtNs + oneWayNs
        }
        /// Milliseconds a packet sent now would wait in the queue.
        func queueMs(at ns: UInt64) -> Double { freeAtNs > ns ? Double(freeAtNs - ns) / 1e6 : 0 }
    }

    /// Runs `seconds` of sending through `path` at the target (or at `sendingBps`); returns
    /// the target at each feedback.
    @discardableResult
    func run(
        _ estimator: inout BandwidthEstimator, path: inout Path, from startNs: UInt64, seconds: Double,
        sequence: inout UInt16, sendingBps: Int? = nil
    ) -> [(ns: UInt64, target: Int)] {
        var pending: [TWCCPacket] = []
        var trace: [(UInt64, Int)] = []
        let endNs = startNs + UInt64(seconds * 1e9)
        var frameNs = startNs, feedbackNs = startNs + 100_000_000
        while frameNs < endNs {
            // One frame: the target's share of a second, in 1200-byte packets sent back to back.
            var bytes = (sendingBps ?? estimator.target) / 8 / 30
            var t = frameNs
            while bytes > 0 {
                let size = min(1200, bytes)
                pending.append(TWCCPacket(sequence: sequence, sentNs: t, arrivedNs: path.carry(bytes: size, sentNs: t), size: size))
                sequence &+= 1; bytes -= size; t += 50_000
            }
            frameNs += 33_333_333
            while feedbackNs <= frameNs {
                // Report what has arrived by now, and the lost ones sent before it.
                let newestSent = pending.filter { ($0.arrivedNs ?? .max) <= feedbackNs }.map(\.sentNs).max() ?? 0
                let report = pending.filter { p in p.arrivedNs.map { $0 <= feedbackNs } ?? (p.sentNs <= newestSent) }
                pending.removeAll { p in p.arrivedNs.map { $0 <= feedbackNs } ?? (p.sentNs <= newestSent) }
                estimator.update(feedback: report, nowNs: feedbackNs + path.oneWayNs)
                trace.append((feedbackNs, estimator.target))
                feedbackNs += 100_000_000
            }
        }
        return trace
    }

    let limits = BitrateLimits(min: 300_000, start: 2_500_000, max: 2_500_000)

    /// 2.5 Mbit/s start behind a 1 Mbit/s link: at or below 1 Mbit/s within 5 s, and from
    /// then on neither starved nor filling the queue; when the link opens to 3 Mbit/s, back
    /// near 2.5 Mbit/s within 10 s.
    func testSettlesBelowANarrowLinkAndComesBackWhenItWidens() {
        var e = BandwidthEstimator(limits: limits)
        var path = Path(capacityBps: 1_000_000)
        var seq: UInt16 = 0
        let first = run(&e, path: &path, from: 1_000_000_000, seconds: 5, sequence: &seq)
        XCTAssertLessThanOrEqual(e.target, 1_000_000, "settled within 5 s: \(first.map(\.target))")
        let steady = run(&e, path: &path, from: 6_000_000_000, seconds: 10, sequence: &seq)
        let tail = steady.suffix(50).map(\.target)
        XCTAssertGreaterThanOrEqual(tail.min() ?? 0, 500_000, "not starved: \(tail)")
        XCTAssertLessThanOrEqual(tail.max() ?? .max, 1_100_000, "not above the link for long: \(tail)")
        let queue = path.queueMs(at: 16_000_000_000)
        XCTAssertLessThan(queue, 150, "the queue does not grow without bound")
        path.capacityBps = 3_000_000
        let opened = run(&e, path: &path, from: 16_000_000_000, seconds: 10, sequence: &seq)
        XCTAssertGreaterThanOrEqual(e.target, 2_250_000, "back near 2.5 Mbit/s within 10 s: \(opened.map(\.target))")
        let settled = first.first { $0.target <= 1_000_000 }.map { Double($0.ns - 1_000_000_000) / 1e9 } ?? -1
        let back = opened.first { $0.target >= 2_250_000 }.map { Double($0.ns - 16_000_000_000) / 1e9 } ?? -1
        print(
            "estimator: ≤ 1 Mbit/s after \(settled) s; steady \(tail.min() ?? 0)–\(tail.max() ?? 0) bit/s, "
                + "queue \(queue) ms; ≥ 2.25 Mbit/s \(back) s after the link widened")
    }

    /// A viewer moved up a ladder (`expect`): the estimate goes up to the new rate at once,
    /// holds there on a path that carries it, and falls back within 2 s on one that does not.
    func testExpectRaisesTheEstimateAndThePathDecides() {
        let ladder = BitrateLimits(min: 150_000, start: 300_000, max: 3_000_000)
        for (capacity, holds) in [(5_000_000.0, true), (500_000.0, false)] {
            var e = BandwidthEstimator(limits: ladder)
            var path = Path(capacityBps: capacity)
            var seq: UInt16 = 0
            run(&e, path: &path, from: 1_000_000_000, seconds: 3, sequence: &seq)
            XCTAssertLessThan(e.target, 1_000_000, "held near 1.5× what arrived before the move")
            e.expect(1_000_000, nowNs: 4_000_000_000)
            XCTAssertGreaterThanOrEqual(e.target, 1_000_000)
            let after = run(&e, path: &path, from: 4_000_000_000, seconds: 2, sequence: &seq).map(\.target)
            if holds {
                XCTAssertGreaterThanOrEqual(after.min() ?? 0, 900_000, "a path with room keeps it: \(after)")
            } else {
                XCTAssertLessThan(after.last ?? .max, 600_000, "a 500 kbit/s path brings it down: \(after)")
            }
        }
        // Absurd expectations stay within the limits.
        var e = BandwidthEstimator(limits: ladder)
        e.expect(Int.max, nowNs: 0)
        XCTAssertLessThanOrEqual(e.target, 3_000_000)
        e.expect(-1, nowNs: 0)
        XCTAssertGreaterThanOrEqual(e.target, 150_000)
    }

    /// A sender whose best rate became known late (a ladder viewer that joined before a
    /// passed-through camera's rate was measured: 1 Mbit/s stood in, so `max` is 1.25 Mbit/s)
    /// sends 1.6 Mbit/s through a 3 Mbit/s path. Held at the old ceiling the estimate stays
    /// below 80% of what it sends (a ladder would call that a failed try); raised, it shows
    /// what the path carries. A lower ceiling never lowers `max`.
    func testARaisedCeilingLetsTheEstimateShowARateAboveTheOldMax() {
        for raised in [false, true] {
            var e = BandwidthEstimator(limits: BitrateLimits(min: 125_000, start: 700_000, max: 1_250_000))
            var path = Path(capacityBps: 3_000_000, queueLimitMs: 300)
            var seq: UInt16 = 0
            run(&e, path: &path, from: 1_000_000_000, seconds: 2, sequence: &seq, sendingBps: 700_000)
            if raised { e.raiseCeiling(to: 2_000_000) }
            // The move up to the rung that sends 1.6 Mbit/s.
            e.expect(1_600_000, nowNs: 3_000_000_000)
            let after = run(&e, path: &path, from: 3_000_000_000, seconds: 3, sequence: &seq, sendingBps: 1_600_000).map(\.target)
            if raised {
                XCTAssertGreaterThanOrEqual(after.min() ?? 0, 1_600_000, "the estimate shows the sent rate fits: \(after)")
            } else {
                XCTAssertLessThanOrEqual(after.max() ?? .max, 1_250_000, "the old ceiling holds it below 80% of 1.6 Mbit/s: \(after)")
            }
        }
        var e = BandwidthEstimator(limits: BitrateLimits(min: 125_000, start: 700_000, max: 1_250_000))
        e.raiseCeiling(to: 500_000)
        XCTAssertEqual(e.limits.max, 1_250_000)
    }

    /// A sender whose least rate became known late (a relay viewer that joined before the
    /// layers were measured: 1 Mbit/s stood in for each, so `min` is 500 kbit/s) sends
    /// 300 kbit/s into a 250 kbit/s path. Held at the old floor the estimate never falls
    /// below 500 kbit/s (a ladder keeps the viewer on a rung its link cannot carry); lowered,
    /// it falls below 80% of what is sent. A higher floor never raises `min`.
    func testALoweredFloorLetsTheEstimateShowAPathBelowTheOldMin() {
        for lowered in [false, true] {
            var e = BandwidthEstimator(limits: BitrateLimits(min: 500_000, start: 1_000_000, max: 1_250_000))
            if lowered { e.lowerFloor(to: 50_000) }
            var path = Path(capacityBps: 250_000, queueLimitMs: 300)
            var seq: UInt16 = 0
            let targets = run(&e, path: &path, from: 1_000_000_000, seconds: 4, sequence: &seq, sendingBps: 300_000).map(\.target)
            if lowered {
                XCTAssertLessThan(targets.min() ?? .max, 240_000, "the estimate shows 300 kbit/s does not fit: \(targets)")
            } else {
                XCTAssertEqual(targets.min(), 500_000, "the old floor holds it: \(targets)")
            }
        }
        var e = BandwidthEstimator(limits: BitrateLimits(min: 125_000, start: 700_000, max: 1_250_000))
        e.lowerFloor(to: 500_000)
        XCTAssertEqual(e.limits.min, 125_000)
    }

    /// A failed try of a higher rung (1 Mbit/s into a 600 kbit/s path with a 300 ms queue)
    /// leaves a queue and losses behind; `recover` to the rung the viewer returns to keeps
    /// them from driving the estimate far below what the path carries, and the estimate
    /// then follows the path again.
    func testRecoverAfterAFailedTryKeepsTheRungItReturnsTo() {
        let ladder = BitrateLimits(min: 50_000, start: 350_000, max: 1_250_000)
        for recovers in [false, true] {
            var e = BandwidthEstimator(limits: ladder)
            var path = Path(capacityBps: 600_000, queueLimitMs: 300)
            var seq: UInt16 = 0
            run(&e, path: &path, from: 1_000_000_000, seconds: 3, sequence: &seq)
            e.expect(1_000_000, nowNs: 4_000_000_000)
            // The higher rung sends its rate whatever the estimate says, until the switch back.
            run(&e, path: &path, from: 4_000_000_000, seconds: 1, sequence: &seq, sendingBps: 1_000_000)
            if recovers { e.recover(to: 350_000, nowNs: 5_000_000_000) }
            let after = run(&e, path: &path, from: 5_000_000_000, seconds: 3, sequence: &seq).map(\.target)
            if recovers {
                XCTAssertGreaterThanOrEqual(after.min() ?? 0, 300_000, "the returned-to rung's rate holds: \(after)")
                XCTAssertLessThanOrEqual(after.max() ?? .max, 660_000, "and never far above the path: \(after)")
            } else {
                XCTAssertLessThan(after.min() ?? .max, 300_000, "without it the try's own losses pull the estimate down: \(after)")
            }
        }
    }

    /// A queue that stands is drained: a 2.5 Mbit/s start into a 1 Mbit/s link with a 40 KB
    /// keyframe first fills ~600 ms of queue within the first frames; it is below 100 ms
    /// within 3 s and stays there, while the rate comes back up to near the link.
    func testAStandingQueueIsDrained() {
        var e = BandwidthEstimator(limits: limits)
        var path = Path(capacityBps: 1_000_000, queueLimitMs: 2000)
        var seq: UInt16 = 0
        var keyframe: [TWCCPacket] = []
        for i in 0..<34 { // 40 KB, back to back, before the first feedback
            let t = UInt64(1_000_000_000 + i * 50_000)
            keyframe.append(TWCCPacket(sequence: seq, sentNs: t, arrivedNs: path.carry(bytes: 1200, sentNs: t), size: 1200))
            seq &+= 1
        }
        XCTAssertGreaterThan(path.queueMs(at: 1_002_000_000), 300)
        e.update(feedback: Array(keyframe.prefix(2)), nowNs: 1_100_000_000)
        run(&e, path: &path, from: 1_033_000_000, seconds: 3, sequence: &seq)
        XCTAssertLessThan(path.queueMs(at: 4_033_000_000), 100, "drained within 3 s")
        run(&e, path: &path, from: 4_033_000_000, seconds: 8, sequence: &seq)
        XCTAssertLessThan(path.queueMs(at: 12_033_000_000), 150, "stays drained")
        XCTAssertGreaterThanOrEqual(e.target, 600_000, "and the rate came back: \(e.target)")
    }

    /// A queue that stands still (packets leave as fast as they come, 600 ms late) shows no
    /// trend: GCC's filter alone would let the rate grow. The queueing delay brings the
    /// target well below what arrives, so the queue empties.
    func testAQueueThatStandsStillLowersTheTarget() {
        var e = BandwidthEstimator(limits: BitrateLimits(min: 300_000, start: 900_000, max: 2_500_000))
        e.update(
            feedback: [TWCCPacket(sequence: 0, sentNs: 1_000_000_000, arrivedNs: 1_020_000_000, size: 1200)],
            nowNs: 1_040_000_000)
        var seq: UInt16 = 1
        for report in 0..<60 { // 3 s of reports every 50 ms, 5 packets each (960 kbit/s)
            let base = UInt64(2_000_000_000 + report * 50_000_000)
            let packets = (0..<5).map { i -> TWCCPacket in
                let sent = base + UInt64(i * 10_000_000)
                defer { seq &+= 1 }
                return TWCCPacket(sequence: seq, sentNs: sent, arrivedNs: sent + 620_000_000, size: 1200)
            }
            e.update(feedback: packets, nowNs: base + 700_000_000)
        }
        XCTAssertEqual(e.queueDelayMs ?? 0, 600, accuracy: 1)
        XCTAssertLessThanOrEqual(e.target, 500_000, "below what arrives (~960 kbit/s) until the queue drains: \(e.target)")
    }

    func testQueueDelayFromOneWayTimes() {
        var d = OneWayDelay()
        // Clock offset 5 s; the first packets see an empty queue, later ones wait 80 ms.
        d.add([TWCCPacket(sequence: 0, sentNs: 1_000_000_000, arrivedNs: 6_020_000_000, size: 100)])
        XCTAssertEqual(d.queueDelayMs ?? -1, 0, accuracy: 0.001)
        d.add([
            TWCCPacket(sequence: 1, sentNs: 2_000_000_000, arrivedNs: 7_100_000_000, size: 100),
            TWCCPacket(sequence: 2, sentNs: 2_010_000_000, arrivedNs: 7_130_000_000, size: 100)
        ])
        XCTAssertEqual(d.queueDelayMs ?? -1, 80, accuracy: 0.001, "the least of a report counts")
        // Hostile times (arrival before a huge offset jump) give no figure, not a wrong one.
        d.add([TWCCPacket(sequence: 3, sentNs: 3_000_000_000, arrivedNs: 900_000_000_000, size: 100)])
        XCTAssertNil(d.queueDelayMs)
    }

    /// A wide link with no loss: the target stays at the top.
    func testAWideLinkKeepsTheMaximum() {
        var e = BandwidthEstimator(limits: BitrateLimits(min: 300_000, start: 1_000_000, max: 2_500_000))
        var path = Path(capacityBps: 20_000_000)
        var seq: UInt16 = 0
        run(&e, path: &path, from: 1_000_000_000, seconds: 20, sequence: &seq)
        XCTAssertEqual(e.target, 2_500_000)
    }

    /// Heavy random loss (20%) without congestion lowers the target; light loss (1%) does not.
    func testLossBasedEstimate() {
        var heavy = BandwidthEstimator(limits: limits), light = BandwidthEstimator(limits: limits)
        var lossy = Path(capacityBps: 20_000_000, loss: 0.2), clean = Path(capacityBps: 20_000_000, loss: 0.01)
        var s1: UInt16 = 0, s2: UInt16 = 0
        run(&heavy, path: &lossy, from: 1_000_000_000, seconds: 5, sequence: &s1)
        run(&light, path: &clean, from: 1_000_000_000, seconds: 5, sequence: &s2)
        XCTAssertLessThan(heavy.target, 1_500_000, "\(heavy.estimates), loss \(heavy.lossFraction)")
        XCTAssertGreaterThan(heavy.lossFraction, 0.1)
        XCTAssertEqual(light.target, 2_500_000, "\(light.estimates)")
    }

    /// Hostile feedback: random sequence numbers, times and sizes, wrapped and repeated
    /// numbers, arrivals before sending. The target never leaves its limits.
    func testGarbageFeedbackStaysWithinLimits() {
        var e = BandwidthEstimator(limits: BitrateLimits(min: 300_000, start: 1_000_000, max: 2_500_000))
        var rng = SplitMix64(seed: 42)
        var now: UInt64 = 1_000_000_000
        for _ in 0..<3000 {
            let n = Int(rng.next() % 60)
            let report = (0..<n).map { _ in
                TWCCPacket(
                    sequence: UInt16(truncatingIfNeeded: rng.next()), sentNs: rng.next() % (now * 2),
                    arrivedNs: rng.next() % 3 == 0 ? nil : rng.next(), size: Int(truncatingIfNeeded: rng.next()))
            }
            now += rng.next() % 3 == 0 ? rng.next() % 10_000_000_000 : 100_000_000
            e.update(feedback: report, nowNs: now)
            XCTAssertTrue((300_000...2_500_000).contains(e.target), "\(e.target)")
        }
    }

    /// Sequence numbers that wrap from 65535 to 0 keep their sending order; repeats go.
    func testWrappedSequenceNumbersKeepTheirOrder() {
        let packets = [65534, 65535, 0, 1, 1, 65533].map { TWCCPacket(sequence: UInt16($0), sentNs: 0, arrivedNs: 0, size: 100) }
        XCTAssertEqual(BandwidthEstimator.inSendingOrder(packets).map(\.sequence), [65533, 65534, 65535, 0, 1])
    }

    func testTrendSlope() {
        XCTAssertEqual(DelayTrend.slope([(0, 1), (1, 3), (2, 5)]) ?? 0, 2, accuracy: 1e-9)
        XCTAssertNil(DelayTrend.slope([(1, 1), (1, 2)]))
    }

    /// Mitigation levels: half size below `scale_below`, half rate below `fps_below`, each
    /// back only 25% above its threshold (no flapping at the edge).
    func testMitigationLevelsHaveHysteresis() {
        typealias L = Mitigation.Level
        func level(_ target: Int, _ current: L = L()) -> L {
            Mitigation.level(for: target, current: current, scaleBelow: 1_000_000, fpsBelow: 500_000)
        }
        XCTAssertEqual(level(1_200_000), L())
        XCTAssertEqual(level(900_000), L(downscaled: true))
        XCTAssertEqual(level(400_000), L(downscaled: true, fpsReduced: true))
        XCTAssertEqual(level(1_100_000, L(downscaled: true)), L(downscaled: true), "held until 1.25 × the threshold")
        XCTAssertEqual(level(1_260_000, L(downscaled: true)), L())
        XCTAssertEqual(level(600_000, L(downscaled: true, fpsReduced: true)), L(downscaled: true, fpsReduced: true))
        XCTAssertEqual(level(700_000, L(downscaled: true, fpsReduced: true)), L(downscaled: true))
        XCTAssertEqual(Mitigation.level(for: 1, current: L(), scaleBelow: nil, fpsBelow: nil), L(), "no thresholds, no change")
        XCTAssertEqual(Mitigation.caps(L(), width: 1280, height: 720, fps: 30), "video/x-raw")
        XCTAssertEqual(
            Mitigation.caps(L(downscaled: true, fpsReduced: true), width: 1278, height: 718, fps: 25),
            "video/x-raw,width=(int)638,height=(int)358,pixel-aspect-ratio=(fraction)1/1,framerate=(fraction)12/1")
    }
}
