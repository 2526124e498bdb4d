import Foundation
import GStreamer
import Synchronization

/// Where the time goes, measured with pad probes on the running pipeline: each frame's path
/// from the stamp writer to the stamp reader, for one medium (`StagePath`: video or audio), cut into stages that follow each other,
/// so that together they account for the glass-to-glass latency and what they do not
/// account for shows as its own figure (`MeasureReport.unaccounted`).
///
/// | stage | from | to | frames matched by |
/// |---|---|---|---|
/// | capture → encoder | the stamp writer's output | the encoder's input | PTS |
/// | encode | the encoder's input | the encoded, parsed frame | video: arrival order (x264enc renumbers PTS); audio: the input holding the packet's first sample |
/// | payload + SRTP | the encoded frame | its last RTP packet into a `nicesink` | PTS, then SSRC and RTP timestamp |
/// | network | that packet into the `nicesink` | out of the receiver's `nicesrc` | SSRC and RTP timestamp (one process only) |
/// | SRTP + jitter buffer | out of the `nicesrc` | out of the `rtpjitterbuffer` | SSRC and RTP timestamp |
/// | depayload | out of the jitter buffer | the depayloader's frame | SSRC and RTP timestamp, then the receiver's PTS |
/// | decode | the depayloader's frame | the decoder's picture | PTS |
/// | decoder → reader | the decoder's picture | the `framestamp-read` reader's input | PTS |
///
/// RTP stages follow a video frame's last packet (the one with the marker bit), or every
/// audio packet, of the SSRCs the medium's payloaders sent or its depayloaders received.
/// SRTP leaves the RTP header in the clear, so packets are matched on either side of the
/// encryption.
public final class StageTimer: Sendable {
    /// The Swift filter that stamps video frames after capture (`sluice measure` puts it first).
    public static let stampWriter = StagePath.video.writer
    /// The Swift filter that reads the video stamps before the sink (`sluice measure` puts it last).
    public static let stampReader = StagePath.video.reader
    /// The stages' names, as `StageFigures.stage` gives them (see the table above).
    public static let capture = "capture → encoder", encode = "encode", send = "payload + SRTP", network = "network",
        jitterBuffer = "SRTP + jitter buffer", depayload = "depayload", decode = "decode",
        reader = "decoder → reader"
    /// The stages in the order a frame passes them.
    public static let order = [capture, encode, send, network, jitterBuffer, depayload, decode, reader]

    private struct Stage {
        /// Frames in the stage: key → when they entered.
        var open: [UInt64: UInt64] = [:]
        /// Encoder inputs in order (the encode stage).
        var fifo: [EncoderInput] = []
        var samples: [Sample] = []
    }
    private struct Sample {
        /// When the frame left the stage (monotonic ns).
        var at: UInt64
        var ms: Double
    }
    /// One buffer into the encoder.
    private struct EncoderInput {
        /// When it entered (monotonic ns).
        var at: UInt64
        /// Its first sample's PTS key, and the key just past its last (audio).
        var start: UInt64, end: UInt64
    }
    /// What links one stage's key to the next.
    private struct Links {
        /// Encoded frame (PTS key) → when it left the encoder.
        var encodedAt: [UInt64: UInt64] = [:]
        /// SSRCs the medium's payloaders sent and its depayloaders received.
        var ssrcs: Set<UInt32> = []
        /// RTP keys whose first packet was seen at the payloader.
        var payloaded: Set<UInt64> = []
        /// Receiver PTS key → RTP key, from the jitter buffer's output.
        var rtpKeyByPTS: [UInt64: UInt64] = [:]
        /// When the first stamp was read (monotonic ns): the warm-up counts from here.
        var firstFrameAt: UInt64?
    }
    /// One per stage, in `order`. Mutated in place: copying a stage out and back (its
    /// open frames and every sample so far) on each packet cost more than the timing itself.
    private let stages = Mutex<[Stage]>(Array(repeating: Stage(), count: StageTimer.order.count))
    private let links = Mutex<Links>(Links())
    /// Elements already probed (by pointer), so a second search adds nothing.
    private let probed = Mutex<Set<UInt>>([])
    /// The medium's elements and framing.
    public let path: StagePath

    /// A timer of `path`'s medium with no stages timed yet; it sees frames once it
    /// `watch(_:)`es a pipeline.
    public init(path: StagePath = .video) { self.path = path }

    package static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    /// Bounds what a stage may hold open: frames that never leave (drops) are forgotten.
    package static let openLimit = 4096

    /// A stage's place in `order`, where it is kept: the per-packet path finds it without
    /// comparing names.
    package enum Slot: Int {
        case capture, encode, send, network, jitterBuffer, depayload, decode, reader
    }

    package func enter(_ stage: Slot, key: UInt64, at t: UInt64 = now()) {
        let i = stage.rawValue
        stages.withLock { s in
            if s[i].open.count > Self.openLimit { s[i].open.removeAll() }
            s[i].open[key] = t
        }
    }

    @discardableResult
    package func leave(_ stage: Slot, key: UInt64, at t: UInt64 = now()) -> Bool {
        let i = stage.rawValue
        return stages.withLock { s in
            guard let start = s[i].open.removeValue(forKey: key) else { return false }
            s[i].samples.append(Sample(at: t, ms: Double(t &- start) / 1e6))
            return true
        }
    }

    /// A frame's key: its PTS modulo one hour. x264enc shifts output timestamps by 1000 h
    /// (and its segment with them), so the same frame's PTS differs by a whole number of hours.
    package static func frameKey(_ pts: ClockTime) -> UInt64 { UInt64(pts) % 3_600_000_000_000 }

    /// Notes that the reader read its first stamp: `figures(warmup:)` counts from here.
    public func noteFirstFrame() {
        let t = Self.now()
        links.withLock { if $0.firstFrameAt == nil { $0.firstFrameAt = t } }
    }
}

// MARK: Send side

extension StageTimer {
    /// Times the encoder chain from `entry`'s sink pad to `exit`'s src pad (see `StagePath.Framing`
    /// for how inputs and outputs are paired), and ends the capture stage at the entry.
    package func timeEncoder(from entry: Element, to exit: Element) {
        guard let sink = entry.staticPad("sink"), let src = exit.staticPad("src") else { return }
        sink.addProbe { [weak self] (info: borrowing Pad.ProbeInfo) in
            guard let self, let buffer = info.buffer else { return .ok }
            let t = Self.now()
            if let pts = buffer.pts { self.leave(.capture, key: Self.frameKey(pts), at: t) }
            let start = buffer.pts.map(Self.frameKey) ?? 0
            let input = EncoderInput(at: t, start: start, end: start &+ UInt64(buffer.duration ?? 0))
            let i = Slot.encode.rawValue
            self.stages.withLock { s in
                if s[i].fifo.count > 256 { s[i].fifo.removeAll() } // bounded if frames never come out
                s[i].fifo.append(input)
            }
            return .ok
        }
        src.addProbe { [weak self] (info: borrowing Pad.ProbeInfo) in
            guard let self else { return .ok }
            let t = Self.now()
            let pts = info.buffer?.pts.map(Self.frameKey)
            if let entered = self.encoderInput(for: pts) { self.record(.encode, from: entered, to: t) }
            if let pts {
                self.links.withLock { l in
                    if l.encodedAt.count > Self.openLimit { l.encodedAt.removeAll() }
                    l.encodedAt[pts] = t
                }
            }
            return .ok
        }
    }

    /// When the input an encoded frame (of PTS key `pts`) counts from entered the encoder:
    /// video, the oldest input; audio, when the packet's first sample did (inputs wholly
    /// before it are done with).
    private func encoderInput(for pts: UInt64?) -> UInt64? {
        let i = Slot.encode.rawValue
        return stages.withLock { s -> UInt64? in
            switch path.framing {
            case .markedFrames:
                return s[i].fifo.isEmpty ? nil : s[i].fifo.removeFirst().at
            case .packetPerFrame:
                guard let pts else { return nil }
                s[i].fifo.removeAll { $0.end > $0.start ? $0.end <= pts : $0.start < pts }
                guard let input = s[i].fifo.first else { return nil }
                // The packet's first sample passed when its buffer did, plus its place in it:
                // the time `audiostamp` gives a stamp at that sample.
                return input.at &+ (pts > input.start && pts < input.end ? pts - input.start : 0)
            }
        }
    }

    private func record(_ stage: Slot, from start: UInt64, to t: UInt64) {
        let i = stage.rawValue
        // Signed: an audio packet's first sample may be timed from a moment after `t` (see
        // `encoderInput(for:)`), when the packet is made from the front of a longer buffer.
        stages.withLock { $0[i].samples.append(Sample(at: t, ms: Double(Int64(bitPattern: t &- start)) / 1e6)) }
    }

    /// The payloader's output: each frame's first packet starts "payload + SRTP" at the
    /// time the frame left the encoder, under its RTP key. Only a packet whose key differs
    /// from the one before it (a frame's first) takes the lock.
    package func timePayloader(_ payloader: Element) {
        guard let src = payloader.staticPad("src") else { return }
        let last = LastRTPKey()
        src.addProbe([.buffer, .bufferList]) { [weak self] (info: borrowing Pad.ProbeInfo) in
            info.forEachBuffer { buffer in
                guard let self, let header = RTPHeader(buffer), let pts = buffer.pts,
                    last.key.exchange(header.key, ordering: .relaxed) != header.key
                else { return }
                let start = self.links.withLock { l -> UInt64?? in
                    l.ssrcs.insert(header.ssrc)
                    guard l.payloaded.insert(header.key).inserted else { return .none }
                    if l.payloaded.count > Self.openLimit { l.payloaded = [header.key] }
                    return .some(l.encodedAt.removeValue(forKey: Self.frameKey(pts)))
                }
                if case .some(let encodedAt) = start { self.enter(.send, key: header.key, at: encodedAt ?? Self.now()) }
            }
            return .ok
        }
    }
}

/// The RTP key of the last packet one payloader sent (a probe's own state).
private final class LastRTPKey: Sendable {
    let key = Atomic<UInt64>(.max)
}

// MARK: Transport and receive side

extension StageTimer {
    /// Watches every element `pipeline` gets, at any depth, and probes those whose place
    /// in a frame's path it knows: the stamp writer and reader, ICE transports, jitter
    /// buffers, the medium's payloaders and depayloaders.
    public func watch(_ pipeline: Pipeline) {
        // Direct children come through `element-added`, everything deeper (webrtcbin's
        // transports, elements of bins) through `deep-element-added`.
        pipeline.connect("element-added") { [weak self] (args: borrowing SignalArguments) -> Void in
            if let element = args.object(1, as: Element.self) { self?.attach(element) }
        }
        pipeline.connect("deep-element-added") { [weak self] (args: borrowing SignalArguments) -> Void in
            if let element = args.object(2, as: Element.self) { self?.attach(element) }
        }
    }

    private func attach(_ element: Element) {
        guard let factory = element.factoryName,
            probed.withLock({ $0.insert(UInt(bitPattern: element.pointer)).inserted })
        else { return }
        switch factory {
        case "sluice-" + path.writer: timeWriter(element)
        case "sluice-" + path.reader: timeReader(element)
        case "nicesink": timeTransport(element, pad: "sink", leaving: .send, entering: .network)
        case "nicesrc": timeTransport(element, pad: "src", leaving: .network, entering: .jitterBuffer)
        case "rtpjitterbuffer": timeJitterBuffer(element)
        case _ where path.payloaders.contains(factory): timePayloader(element)
        case _ where path.depayloaders.contains(factory): timeDepayloader(element)
        default: break
        }
    }

    private func timeWriter(_ writer: Element) {
        writer.staticPad("src")?.addProbe { [weak self] (info: borrowing Pad.ProbeInfo) in
            if let pts = info.buffer?.pts { self?.enter(.capture, key: Self.frameKey(pts)) }
            return .ok
        }
    }

    private func timeReader(_ reader: Element) {
        reader.staticPad("sink")?.addProbe { [weak self] (info: borrowing Pad.ProbeInfo) in
            if let pts = info.buffer?.pts { self?.leave(.reader, key: Self.frameKey(pts)) }
            return .ok
        }
    }

    /// A frame's last packet passing `pad` of an ICE transport element ends one stage and
    /// starts the next.
    private func timeTransport(_ element: Element, pad name: String, leaving: Slot, entering: Slot) {
        element.staticPad(name)?.addProbe([.buffer, .bufferList]) { [weak self] (info: borrowing Pad.ProbeInfo) in
            info.forEachBuffer { buffer in
                guard let self, let header = RTPHeader(buffer), self.endsFrame(header) else { return }
                let t = Self.now()
                let known = self.leave(leaving, key: header.key, at: t)
                // A receiving process has no earlier stage: any frame of the medium starts the next.
                if known || leaving == .network { self.enter(entering, key: header.key, at: t) }
            }
            return .ok
        }
    }

    private func timeJitterBuffer(_ jitterBuffer: Element) {
        jitterBuffer.staticPad("src")?.addProbe([.buffer, .bufferList]) { [weak self] (info: borrowing Pad.ProbeInfo) in
            info.forEachBuffer { buffer in
                guard let self, let header = RTPHeader(buffer), self.endsFrame(header), let pts = buffer.pts else { return }
                let t = Self.now()
                guard self.leave(.jitterBuffer, key: header.key, at: t) else { return }
                self.enter(.depayload, key: header.key, at: t)
                self.links.withLock { l in
                    if l.rtpKeyByPTS.count > Self.openLimit { l.rtpKeyByPTS.removeAll() }
                    l.rtpKeyByPTS[Self.frameKey(pts)] = header.key
                }
            }
            return .ok
        }
    }

    /// The depayloader's input names the SSRCs the medium arrives on; its output ends
    /// "depayload" and starts "decode".
    private func timeDepayloader(_ depayloader: Element) {
        depayloader.staticPad("sink")?.addProbe([.buffer, .bufferList]) { [weak self] (info: borrowing Pad.ProbeInfo) in
            info.forEachBuffer { buffer in
                guard let self, let header = RTPHeader(buffer) else { return }
                self.links.withLock { l in
                    if l.ssrcs.count < 64 { l.ssrcs.insert(header.ssrc) }
                }
            }
            return .ok
        }
        depayloader.staticPad("src")?.addProbe { [weak self] (info: borrowing Pad.ProbeInfo) in
            guard let self, let pts = info.buffer?.pts else { return .ok }
            let key = Self.frameKey(pts)
            let t = Self.now()
            if let rtpKey = self.links.withLock({ $0.rtpKeyByPTS.removeValue(forKey: key) }) {
                self.leave(.depayload, key: rtpKey, at: t)
            }
            self.enter(.decode, key: key, at: t)
            return .ok
        }
    }

    /// The decoder's output ends "decode" and starts "decoder → reader".
    package func timeDecoder(_ decoder: Element) {
        decoder.staticPad("src")?.addProbe { [weak self] (info: borrowing Pad.ProbeInfo) in
            guard let self, let pts = info.buffer?.pts else { return .ok }
            let t = Self.now()
            if self.leave(.decode, key: Self.frameKey(pts), at: t) { self.enter(.reader, key: Self.frameKey(pts), at: t) }
            return .ok
        }
    }

    /// Whether `header` ends a frame of this medium: a packet of one of its SSRCs, and for
    /// video the frame's last (marked) one. Packets of other streams (the other medium,
    /// retransmissions) are never timed.
    private func endsFrame(_ header: RTPHeader) -> Bool {
        guard header.marker || path.framing == .packetPerFrame else { return false }
        return links.withLock { $0.ssrcs.contains(header.ssrc) }
    }
}

// MARK: Figures

extension StageTimer {
    /// Figures per stage that has samples, in path order, leaving out frames that left a
    /// stage in the first `warmup` seconds after the first stamp was read (or, in a process
    /// that reads none, after the first sample).
    public func figures(warmup: Double = 0) -> [StageFigures] {
        let first = links.withLock { $0.firstFrameAt }
        return stages.withLock { s in
            let start = first ?? s.compactMap { $0.samples.first?.at }.min() ?? 0
            let from = start &+ UInt64(max(0, warmup) * 1e9)
            return Self.order.enumerated().compactMap { i, name in
                let samples = s[i].samples.filter { $0.at >= from }.map(\.ms).sorted()
                guard !samples.isEmpty else { return nil }
                return StageFigures(
                    stage: name, samples: samples.count, p50_ms: StageFigures.percentile(samples, 50),
                    p95_ms: StageFigures.percentile(samples, 95),
                    mean_ms: samples.reduce(0, +) / Double(samples.count))
            }
        }
    }
}

/// How long one stage held frames.
public struct StageFigures: Sendable, Codable, Equatable {
    /// The stage's name (one of `StageTimer.order`).
    public var stage: String
    /// Frames timed through the stage.
    public var samples: Int
    /// Median time a frame spent in the stage, ms.
    public var p50_ms: Double
    /// 95th-percentile time a frame spent in the stage, ms.
    public var p95_ms: Double
    /// Mean time a frame spent in the stage, ms.
    public var mean_ms: Double

    /// Nearest-rank percentile of sorted values.
    public static func percentile(_ sorted: [Double], _ p: Double) -> Double {
        precondition(!sorted.isEmpty)
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }
}

/// The fields of a plain RTP header the stage timer matches on (RFC 3550 §5.1). RTCP
/// (packet types 192–223 in the second byte, RFC 5761), DTLS and STUN are not RTP.
package struct RTPHeader {
    package var marker: Bool
    package var timestamp: UInt32
    package var ssrc: UInt32
    /// SSRC << 32 | RTP timestamp: one frame of one stream.
    package var key: UInt64 { UInt64(ssrc) << 32 | UInt64(timestamp) }

    package init?(_ buffer: borrowing BufferRef) {
        guard let parsed = buffer.withBytes({ b -> RTPHeader? in RTPHeader(bytes: b) }), let header = parsed else { return nil }
        self = header
    }

    package init?(bytes b: UnsafeRawBufferPointer) {
        guard b.count >= 12, b[0] >> 6 == 2, !(192...223).contains(b[1]) else { return nil }
        marker = b[1] & 0x80 != 0
        timestamp = UInt32(b[4]) << 24 | UInt32(b[5]) << 16 | UInt32(b[6]) << 8 | UInt32(b[7])
        ssrc = UInt32(b[8]) << 24 | UInt32(b[9]) << 16 | UInt32(b[10]) << 8 | UInt32(b[11])
    }
}
