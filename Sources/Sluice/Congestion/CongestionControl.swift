import GStreamer
import Synchronization

/// Drives one send branch's encoder bitrate from transport-wide congestion control feedback.
///
/// rtpsession turns each TWCC feedback report into an upstream custom event,
/// `RTPTWCCPackets` (every packet's send and arrival time, size, lost or not), pushed from
/// its RTP sink towards the payloader. A probe on the payloader's output reads it there,
/// feeds `BandwidthEstimator`, and sets the encoder's bitrate (`SendControl`) when the
/// target moves by more than 3%.
final class CongestionControl: Sendable {
    private let estimator: Mutex<BandwidthEstimator>
    private let applied = Atomic<Int>(0)
    private let reports = Atomic<Int>(0)

    init(limits: BitrateLimits, control: SendControl, watching payloaderOutput: Pad) {
        estimator = Mutex(BandwidthEstimator(limits: limits))
        applied.store(limits.start, ordering: .relaxed)
        payloaderOutput.addProbe(.eventUpstream) { [self] (info: borrowing Pad.ProbeInfo) in
            guard let s = info.eventStructure, s.name == "RTPTWCCPackets" else { return .ok }
            let packets = Self.packets(in: s)
            let now = StageTimer.now()  // monotonic ns: the estimator uses differences only
            let target = estimator.withLock { e -> Int in
                e.update(feedback: packets, nowNs: now)
                return e.target
            }
            reports.add(1, ordering: .relaxed)
            let last = applied.load(ordering: .relaxed)
            if abs(target - last) * 100 > last * 3 {
                applied.store(target, ordering: .relaxed)
                try? control.setBitrate(target)
            }
            return .ok
        }
    }

    /// The packets of one `RTPTWCCPackets` report.
    static func packets(in s: Structure) -> [TWCCPacket] {
        s.structures(inValueArray: "packets").compactMap { p in
            guard let seq = p.get("seqnum", as: UInt32.self), let sent = p.get("local-ts", as: UInt64.self) else { return nil }
            let lost = p.get("lost", as: Bool.self) ?? false
            let arrived = p.get("remote-ts", as: UInt64.self)
            return TWCCPacket(sequence: UInt16(truncatingIfNeeded: seq), sentNs: sent,
                              arrivedNs: lost || arrived == UInt64.max ? nil : arrived,
                              size: Int(p.get("size", as: UInt32.self) ?? 0))
        }
    }

    /// The target the encoder was last set to, the two estimates, what the receiver got,
    /// the loss, and how many feedback reports arrived.
    var figures: (targetBps: Int, delayBps: Int, lossBps: Int, receivedBps: Double?, loss: Double, reports: Int) {
        let (estimates, received, loss) = estimator.withLock { ($0.estimates, $0.receivedRate, $0.lossFraction) }
        return (applied.load(ordering: .relaxed), estimates.delay, estimates.loss, received, loss, reports.load(ordering: .relaxed))
    }
}
