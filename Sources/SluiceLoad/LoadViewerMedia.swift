import GStreamer
import Synchronization
import SluiceRun
import SluiceMeasure

/// A load viewer's media: a pipeline of its own with its webrtcbin, a receive-only
/// transceiver per receive branch of the file (none when the service offers: its offer makes
/// them), and `LoadReceiveChain` behind each stream that arrives, its frames counted. A
/// pipeline per client, not one for the crowd: in one shared pipeline each client's latency
/// and state changes walk every other client's elements, and the crowd's CPU grew with the
/// square of its size.
package final class LoadViewerMedia: LoadClientMedia {
    package let webrtcbin: Element
    package let framesComeFromService = true
    private let pipeline: Pipeline
    private let chainError = Mutex<String?>(nil)
    private let client: Int
    private let decodes: Bool
    /// The client's group's and the file's receive-side encoded filters, made for each stream
    /// that arrives.
    private let encodedFilters: LoadEncodedFilters
    private let record: LoadFrameRecorder

    /// Makes and starts the viewer's pipeline. Every bus message goes to `onMessage`, on the
    /// thread that posts it (nothing queues on the bus).
    /// The data channel the offer carries, if any: kept open while the client stays.
    private let channel: DataChannel?

    /// `offer`: what the client's offer holds (nil: the service offers, and its offer makes
    /// the transceivers).
    package init(
        client: Int, group: LoadGroup? = nil, decodes: Bool, spec: PipelineSpec, offer: LoadViewerOffer?, record: LoadFrameRecorder,
        onMessage: @escaping @Sendable (Message) -> Void
    ) throws(RunError) {
        self.client = client
        self.decodes = decodes
        self.record = record
        let pipeline = Pipeline(name: "client\(client)")
        encodedFilters = LoadEncodedFilters(spec: spec, group: group, pipeline: pipeline)
        pipeline.bus.handleSynchronously(onMessage)
        self.pipeline = pipeline
        do {
            webrtcbin = try WebRTCRecipe(loadClientOf: spec.transport).make("c\(client)")
            for media in offer?.media ?? [] {
                let wanted = spec.receiveBranches.first { $0.media == media }?.codecs ?? []
                let codecs = wanted.isEmpty ? Codec.allCases.filter { $0.media == media } : wanted
                let twcc = media == .video ? EncoderPresets.twccReceiveCaps() : ""
                let caps = try Caps(codecs.map { EncoderPresets.receiveCaps(for: $0) + twcc }.joined(separator: ";"))
                _ = try webrtcbin.emit("add-transceiver", "recvonly", caps)
            }
            try pipeline.add(webrtcbin)
        } catch {
            throw RunError("load client \(client): cannot make its webrtcbin: \(error.message)", at: spec.transport.location)
        }
        guard pipeline.setState(.playing) != .failure else {
            throw RunError("load client \(client): its pipeline could not start", at: spec.transport.location)
        }
        // webrtcbin takes `create-data-channel` only once it has left the NULL state.
        let bin = webrtcbin
        do { channel = try offer?.dataChannel.map { label throws(GstError) in try bin.createDataChannel(label: label) } } catch {
            pipeline.setState(.null)
            throw RunError("load client \(client): \(error.message)", at: spec.transport.location)
        }
        // Streams appear once the answer is applied, after this. Weak: the bin owns this
        // handler, and the media owns the bin.
        webrtcbin.connect("pad-added") { [weak self] (args: borrowing SignalArguments) in
            guard let pad = args.object(1, as: Pad.self) else { return }
            self?.attach(pad)
        }
    }

    package func joined(peer: WebRTCPeer) throws(RunError) {}

    package var problem: String? { chainError.withLock { $0 } }

    /// Builds and links the chain for a stream the webrtcbin exposes (a streaming thread).
    private func attach(_ pad: Pad) {
        do {
            _ = try LoadReceiveChain.attach(
                pad, into: pipeline, client: client, decodes: decodes, record: record, encodedFilters: encodedFilters.make)
        } catch {
            chainError.withLock { $0 = $0 ?? error.message }
        }
    }

    package func remove() { pipeline.setState(.null) }
}

/// Counts each whole encoded frame leaving a pad: whether it is a keyframe, its size; and
/// the picture size each keyframe carries (its caps', or VP8's frame header), without decoding.
package enum LoadFrameCount {
    package static func install(on pad: Pad, record: LoadFrameRecorder) {
        pad.addProbe { (info: borrowing Pad.ProbeInfo) in
            guard let buffer = info.buffer else { return .ok }
            record(!buffer.isDeltaUnit, buffer.size)
            if !buffer.isDeltaUnit, let size = pictureSize(of: buffer, caps: info.currentCaps) { record.pictureSize(size.width, size.height) }
            return .ok
        }
    }

    /// A keyframe's picture size: the caps' width and height when the parser or depayloader
    /// set them, else a VP8 keyframe's header.
    private static func pictureSize(of keyframe: borrowing BufferRef, caps: Caps?) -> (width: Int, height: Int)? {
        if let s = caps?.structure(at: 0), let w = s.get("width", as: Int32.self), let h = s.get("height", as: Int32.self), w > 0, h > 0 {
            return (Int(w), Int(h))
        }
        return keyframe.withBytes { RTPPacketReading.vp8KeyframeSize($0) } ?? nil
    }
}

/// Counts each audio RTP packet entering a pad: its sequence number and RTP timestamp (from
/// the header, which SRTP leaves in the clear and the jitter buffer passes on in order).
package enum LoadAudioCount {
    package static func install(on pad: Pad, record: @escaping @Sendable (_ sequence: UInt16, _ timestamp: UInt32) -> Void) {
        pad.addProbe { (info: borrowing Pad.ProbeInfo) in
            guard let buffer = info.buffer else { return .ok }
            let header = buffer.withBytes { b -> (sequence: UInt16, timestamp: UInt32)? in
                guard b.count >= 12, b[0] >> 6 == 2 else { return nil }
                let t = UInt32(b[4]) << 24 | UInt32(b[5]) << 16 | UInt32(b[6]) << 8 | UInt32(b[7])
                return (UInt16(b[2]) << 8 | UInt16(b[3]), t)
            }
            if let header = header ?? nil { record(header.sequence, header.timestamp) }
            return .ok
        }
    }

    /// Counts the decoded sound entering a pad (the stamp reader's): each buffer's duration.
    package static func installDecoded(on pad: Pad, record: @escaping @Sendable (_ nanoseconds: UInt64) -> Void) {
        pad.addProbe { (info: borrowing Pad.ProbeInfo) in
            guard let buffer = info.buffer, let duration = buffer.duration else { return .ok }
            record(UInt64(duration))
            return .ok
        }
    }
}
