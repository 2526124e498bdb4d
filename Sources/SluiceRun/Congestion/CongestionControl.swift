import Logging
import GStreamer
import Synchronization

/// Estimates what one path carries from transport-wide congestion control feedback, and
/// tells `onTarget` when the target moves by more than 3%.
///
/// rtpsession turns each TWCC feedback report into an upstream custom event,
/// `RTPTWCCPackets` (every packet's send and arrival time, size, lost or not), pushed from
/// its RTP sink towards the payloader. A probe on the payloader's output reads it there (and
/// goes no further with it) and feeds `BandwidthEstimator`. A send branch's `onTarget` sets its encoder's bitrate; a served
/// viewer's goes to its stream's `SharedEncoderRate`.
package final class CongestionControl: Sendable {
    /// Each report's figures at `--log-level trace`.
    package static let logger = Logger(label: "sluice.congestion")
    private let estimator: Mutex<BandwidthEstimator>
    private let applied = Atomic<Int>(0)
    private let reports = Atomic<Int>(0)

    /// Drives a send branch's encoder (`control`).
    package convenience init(limits: BitrateLimits, control: SendControl, watching payloaderOutput: Pad) {
        self.init(limits: limits, watching: payloaderOutput) { control.applyTarget($0) }
    }

    /// Calls `onTarget` (on a streaming thread: keep it short) with each new target, bit/s.
    package convenience init(limits: BitrateLimits, watching payloaderOutput: Pad, onTarget: @escaping @Sendable (Int) -> Void) {
        let last = Atomic<Int>(limits.start)
        self.init(limits: limits, watching: payloaderOutput) { (reading: Reading) -> RateChange? in
            let applied = last.load(ordering: .relaxed)
            if abs(reading.target - applied) * 100 > applied * 3 {
                last.store(reading.target, ordering: .relaxed)
                onTarget(reading.target)
            }
            return nil
        }
    }

    /// What the estimator says after one feedback report.
    package struct Reading: Sendable {
        package var target: Int
        package var received: Double?
        package var state: BandwidthEstimator.State
        package var nowNs: UInt64
        /// How long packets wait in queues on the path now, ms (`BandwidthEstimator.queueDelayMs`).
        package var queueMs: Double? = nil
        /// Packets this report says were lost.
        package var lost = 0
    }

    /// What the sender did after a reading, that the estimator should know.
    package enum RateChange: Sendable, Equatable {
        /// Started sending this rate on purpose (`BandwidthEstimator.expect`).
        case expect(Int)
        /// Went back to a rate the path carried (`BandwidthEstimator.recover`).
        case recover(Int)
    }

    /// Calls `onReport` (on a streaming thread: keep it short) after every feedback report;
    /// what it returns tells the estimator what the sender changed. `range`, read after each
    /// report, may widen the estimator's limits: raise `max` (`BandwidthEstimator.raiseCeiling`),
    /// lower `min` (`lowerFloor`).
    package init(
        limits: BitrateLimits, watching payloaderOutput: Pad, range: (@Sendable (_ nowNs: UInt64) -> ClosedRange<Int>)? = nil,
        onReport: @escaping @Sendable (Reading) -> RateChange?
    ) {
        estimator = Mutex(BandwidthEstimator(limits: limits))
        applied.store(limits.start, ordering: .relaxed)
        payloaderOutput.addProbe(.eventUpstream) { [self] (info: borrowing Pad.ProbeInfo) in
            guard info.eventName == "RTPTWCCPackets", let s = info.eventStructure else { return .ok }
            let packets = Self.packets(in: s)
            let now = StageTimer.now() // monotonic ns: the estimator uses differences only
            let reading = estimator.withLock { e -> Reading in
                e.update(feedback: packets, nowNs: now)
                return Reading(
                    target: e.target, received: e.receivedRate, state: e.state, nowNs: now, queueMs: e.queueDelayMs,
                    lost: packets.reduce(0) { $0 + ($1.arrivedNs == nil ? 1 : 0) })
            }
            reports.add(1, ordering: .relaxed)
            if Self.logger.logLevel <= .trace {
                Self.logger.trace(
                    "congestion feedback",
                    metadata: [
                        "packets": "\(packets.count)", "target_bps": "\(reading.target)",
                        "queue_ms": "\(reading.queueMs.map { Int($0) } ?? -1)",
                        "received_bps": "\(reading.received.map { Int($0) } ?? -1)", "state": "\(reading.state.rawValue)"
                    ])
            }
            applied.store(reading.target, ordering: .relaxed)
            switch onReport(reading) {
            case .expect(let rate)?: estimator.withLock { $0.expect(rate, nowNs: now) }
            case .recover(let rate)?: estimator.withLock { $0.recover(to: rate, nowNs: now) }
            case nil: break
            }
            if let range {
                let bounds = range(now)
                estimator.withLock {
                    $0.raiseCeiling(to: bounds.upperBound)
                    $0.lowerFloor(to: bounds.lowerBound)
                }
            }
            // Read: nothing upstream wants it. Passed on, every report of every viewer would
            // travel up through the stream's shared elements (a tee, a funnel's inputs).
            return .drop
        }
    }

    /// The packets of one `RTPTWCCPackets` report (rtpsession reports each packet's payload
    /// size, retransmissions and `RTXProber`'s probes included).
    package static func packets(in s: Structure) -> [TWCCPacket] {
        s.structures(inValueArray: "packets").compactMap { p in
            guard let seq = p.get("seqnum", as: UInt32.self), let sent = p.get("local-ts", as: UInt64.self) else { return nil }
            let lost = p.get("lost", as: Bool.self) ?? false
            let arrived = p.get("remote-ts", as: UInt64.self)
            return TWCCPacket(
                sequence: UInt16(truncatingIfNeeded: seq), sentNs: sent,
                arrivedNs: lost || arrived == UInt64.max ? nil : arrived,
                size: Int(p.get("size", as: UInt32.self) ?? 0))
        }
    }

    /// The estimator's target after the last report.
    package var target: Int { applied.load(ordering: .relaxed) }

    /// The estimator's target (the encoder's is within 3% of it), the two estimates, what the receiver got,
    /// the loss, and how many feedback reports arrived.
    package var figures: (targetBps: Int, delayBps: Int, lossBps: Int, receivedBps: Double?, loss: Double, reports: Int) {
        let (estimates, received, loss) = estimator.withLock { ($0.estimates, $0.receivedRate, $0.lossFraction) }
        return (applied.load(ordering: .relaxed), estimates.delay, estimates.loss, received, loss, reports.load(ordering: .relaxed))
    }
}
