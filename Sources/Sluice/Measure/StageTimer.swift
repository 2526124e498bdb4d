import Foundation
import GStreamer
import Synchronization

/// Where the time goes, measured with pad probes on the running pipeline: how long each
/// video frame spends in the encoder, each RTP packet in the receiver's jitter buffer, and
/// each frame in the decoder. Frames are matched by PTS (encoders and decoders keep it),
/// packets by SSRC and sequence number.
public final class StageTimer: Sendable {
    public static let encode = "encode", jitterBuffer = "jitter buffer", decode = "decode"

    private struct Stage {
        var open: [UInt64: UInt64] = [:]
        var fifo: [UInt64] = []
        var samples: [Double] = []
    }
    private let stages = Mutex<[String: Stage]>([:])
    /// Jitter buffers already probed (by pointer), so a second search adds nothing.
    private let probed = Mutex<Set<UInt>>([])

    public init() {}

    static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    func enter(_ stage: String, key: UInt64) {
        let t = Self.now()
        stages.withLock { s in
            var st = s[stage] ?? Stage()
            if st.open.count > 4096 { st.open.removeAll() }  // keys that never left (drops): bounded
            st.open[key] = t
            s[stage] = st
        }
    }

    func leave(_ stage: String, key: UInt64) {
        let t = Self.now()
        stages.withLock { s in
            guard var st = s[stage], let start = st.open.removeValue(forKey: key) else { return }
            st.samples.append(Double(t &- start) / 1e6)
            s[stage] = st
        }
    }

    /// A frame's key: its PTS modulo one hour. x264enc shifts output timestamps by 1000 h
    /// (and its segment with them), so the same frame's PTS differs by a whole number of hours.
    static func frameKey(_ pts: ClockTime) -> UInt64 { UInt64(pts) % 3_600_000_000_000 }

    /// Times frames from `entry`'s sink pad to `exit`'s src pad in arrival order: for
    /// encoders, which do not keep PTS (x264enc renumbers them) but, without B-frames, emit
    /// frames in the order they came.
    func timeInOrder(_ stage: String, from entry: Element, to exit: Element) {
        guard let sink = entry.staticPad("sink"), let src = exit.staticPad("src") else { return }
        sink.addProbe { [weak self] (_: borrowing Pad.ProbeInfo) in
            let t = Self.now()
            self?.stages.withLock { s in
                var st = s[stage] ?? Stage()
                if st.fifo.count > 256 { st.fifo.removeAll() }  // bounded if frames never come out
                st.fifo.append(t)
                s[stage] = st
            }
            return .ok
        }
        src.addProbe { [weak self] (_: borrowing Pad.ProbeInfo) in
            let t = Self.now()
            self?.stages.withLock { s in
                guard var st = s[stage], !st.fifo.isEmpty else { return }
                st.samples.append(Double(t &- st.fifo.removeFirst()) / 1e6)
                s[stage] = st
            }
            return .ok
        }
    }

    /// Times `element` from its sink pad to its src pad (or to `exit`'s src pad), by PTS.
    func time(_ stage: String, from entry: Element, to exit: Element? = nil) {
        guard let sink = entry.staticPad("sink"), let src = (exit ?? entry).staticPad("src") else { return }
        sink.addProbe { [weak self] (info: borrowing Pad.ProbeInfo) in
            if let pts = info.buffer?.pts { self?.enter(stage, key: Self.frameKey(pts)) }
            return .ok
        }
        src.addProbe { [weak self] (info: borrowing Pad.ProbeInfo) in
            if let pts = info.buffer?.pts { self?.leave(stage, key: Self.frameKey(pts)) }
            return .ok
        }
    }

    /// Times every RTP jitter buffer inside `bin` (searched recursively), by SSRC and
    /// sequence number read from the RTP header.
    func timeJitterBuffers(in bin: Element) {
        for e in Self.descendants(of: bin) where e.factoryName == "rtpjitterbuffer" {
            guard probed.withLock({ $0.insert(UInt(bitPattern: e.pointer)).inserted }) else { continue }
            guard let sink = e.staticPad("sink"), let src = e.staticPad("src") else { continue }
            sink.addProbe { [weak self] (info: borrowing Pad.ProbeInfo) in
                if let b = info.buffer, let key = Self.rtpKey(b) { self?.enter(Self.jitterBuffer, key: key) }
                return .ok
            }
            src.addProbe { [weak self] (info: borrowing Pad.ProbeInfo) in
                if let b = info.buffer, let key = Self.rtpKey(b) { self?.leave(Self.jitterBuffer, key: key) }
                return .ok
            }
        }
    }

    /// SSRC << 16 | sequence number, from a plain RTP header (RFC 3550 §5.1).
    static func rtpKey(_ buffer: borrowing BufferRef) -> UInt64? {
        buffer.withBytes { b -> UInt64? in
            guard b.count >= 12, b[0] >> 6 == 2 else { return nil }
            let seq = UInt64(b[2]) << 8 | UInt64(b[3])
            let ssrc = UInt64(b[8]) << 24 | UInt64(b[9]) << 16 | UInt64(b[10]) << 8 | UInt64(b[11])
            return ssrc << 16 | seq
        } ?? nil
    }

    static func descendants(of element: Element) -> [Element] {
        guard let bin = element.cast(to: Bin.self) else { return [] }
        return bin.children.flatMap { [$0] + descendants(of: $0) }
    }

    /// Figures per stage that has samples.
    public var figures: [StageFigures] {
        stages.withLock { s in
            [Self.encode, Self.jitterBuffer, Self.decode].compactMap { name in
                guard let samples = s[name]?.samples, !samples.isEmpty else { return nil }
                let sorted = samples.sorted()
                return StageFigures(stage: name, samples: sorted.count, p50_ms: LatencyFigures.percentile(sorted, 50),
                                    p95_ms: LatencyFigures.percentile(sorted, 95),
                                    mean_ms: sorted.reduce(0, +) / Double(sorted.count))
            }
        }
    }
}

/// How long one stage held frames (or packets).
public struct StageFigures: Sendable, Codable, Equatable {
    public var stage: String
    public var samples: Int
    public var p50_ms: Double
    public var p95_ms: Double
    public var mean_ms: Double
}
