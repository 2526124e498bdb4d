import GStreamer

/// The figures Sluice reads from webrtcbin's `get-stats` reply.
public struct WebRTCStats: Sendable, Equatable {
    /// Bytes of RTP payload and headers sent (all outbound streams).
    public var bytesSent: Int = 0
    /// RTP packets sent (all outbound streams).
    public var packetsSent: Int = 0
    /// Bytes and packets received (all inbound streams).
    public var bytesReceived: Int = 0
    /// RTP packets received (all inbound streams).
    public var packetsReceived: Int = 0
    /// Packets the remote side reported lost.
    public var packetsLost: Int = 0
    /// Packets lost on their way to us (all inbound streams: sequence numbers expected but
    /// not received, as our RTP session counts them).
    public var packetsLostReceiving: Int = 0
    /// Round-trip time from RTCP receiver reports, in milliseconds, once known.
    public var roundTripMs: Double?
    /// Inbound jitter in milliseconds, once known.
    public var jitterMs: Double?
    /// The jitter the remote side reports for what it receives from us (RTCP receiver
    /// reports), in milliseconds, once known.
    public var remoteJitterMs: Double?
    /// Loss-repair requests: NACKs, picture loss indications and full intra requests, sent
    /// and received (all streams).
    public var nackCount: Int = 0
    /// Picture loss indications (PLI), sent and received (all streams).
    public var pliCount: Int = 0
    /// Full intra requests (FIR), sent and received (all streams).
    public var firCount: Int = 0
    /// Packets retransmitted (RTX) in answer to NACKs. Not in `get-stats`: read from the
    /// `rtprtxsend` webrtcbin makes (`retransmittedPackets(in:)`).
    public var rtxPacketsSent: Int = 0
    /// Lost packets that a retransmission repaired in time, and the receiving jitter buffers'
    /// latency now (raised by `RetransmissionLatency` when repairs need longer). Read from
    /// the `rtpjitterbuffer`s (`readJitterBuffers(in:)`).
    public var rtxRepaired: Int = 0
    /// The highest `latency` in ms of the receiving jitter buffers; nil without any.
    public var jitterBufferLatencyMs: Int?

    /// The selected ICE candidate pair's local side, as `PROTOCOL TYPE` (`udp host`,
    /// `tcp host`, `udp relay`…); nil until a pair is selected.
    public var localPath: String?
    /// The selected pair's remote side, in the same words.
    public var remotePath: String?

    /// All figures zero, nothing known yet.
    public init() {}

    /// Fills `rtxRepaired` and `jitterBufferLatencyMs` from the jitter buffers inside `webrtcbin`.
    public mutating func readJitterBuffers(in webrtcbin: Element) {
        let buffers = (webrtcbin.cast(to: Bin.self)?.descendants ?? []).filter { $0.factoryName == "rtpjitterbuffer" }
        rtxRepaired = buffers.reduce(0) { $0 + Int($1.structureProperty("stats")?.get("rtx-success-count", as: UInt64.self) ?? 0) }
        jitterBufferLatencyMs = buffers.compactMap { $0.get("latency", as: UInt32.self) }.max().map(Int.init)
    }

    /// Packets webrtcbin's retransmission senders inside `webrtcbin` have sent so far.
    public static func retransmittedPackets(in webrtcbin: Element) -> Int {
        guard let bin = webrtcbin.cast(to: Bin.self) else { return 0 }
        return bin.descendants.filter { $0.factoryName == "rtprtxsend" }
            .reduce(0) { $0 + Int($1.get("num-rtx-packets", as: UInt32.self) ?? 0) }
    }

    // GstWebRTCStatsType values (gst/webrtc/webrtc_fwd.h, 1.22).
    private static let inboundRTP: Int32 = 2
    private static let outboundRTP: Int32 = 3
    private static let remoteInboundRTP: Int32 = 4
    private static let localCandidate: Int32 = 12
    private static let remoteCandidate: Int32 = 13

    /// Sums the per-stream entries of a `get-stats` reply.
    public init(_ reply: Structure) {
        for field in reply.fieldNames {
            guard let s = reply.structure(field), let type = s.enumValue("type") else { continue }
            switch type {
            case Self.outboundRTP:
                bytesSent += s.get("bytes-sent", as: Int.self) ?? 0
                packetsSent += s.get("packets-sent", as: Int.self) ?? 0
                countRepair(s)
            case Self.inboundRTP:
                bytesReceived += s.get("bytes-received", as: Int.self) ?? 0
                packetsReceived += s.get("packets-received", as: Int.self) ?? 0
                packetsLostReceiving += max(0, s.get("packets-lost", as: Int.self) ?? 0)
                countRepair(s)
                if let j = s.get("jitter", as: Double.self) { jitterMs = max(jitterMs ?? 0, j * 1000) }
            case Self.remoteInboundRTP:
                // rtpsession 1.22 keeps only the last report block a peer sent ("FIXME, need
                // to keep track who the RB block is from"), whichever of our SSRCs it was
                // about: a peer that also reports on our RTX stream (aiortc does, after its
                // media stream) shows the RTX stream's loss under the media stream's id.
                // Loss and jitter count only when the block is about this stream.
                if Self.reportIsAbout(s) {
                    packetsLost += max(0, s.get("packets-lost", as: Int.self) ?? 0)
                    if let j = s.get("jitter", as: Double.self) { remoteJitterMs = max(remoteJitterMs ?? 0, j * 1000) }
                }
                if let rtt = s.get("round-trip-time", as: Double.self), rtt > 0 {
                    roundTripMs = max(roundTripMs ?? 0, rtt * 1000)
                }
            case Self.localCandidate:
                localPath = Self.path(s)
            case Self.remoteCandidate:
                remotePath = Self.path(s)
            default:
                break
            }
        }
    }

    /// `PROTOCOL TYPE` of a candidate entry (webrtcbin lists only the selected pair's).
    private static func path(_ s: Structure) -> String? {
        guard let proto = s.get("protocol", as: String.self), let type = s.get("candidate-type", as: String.self) else { return nil }
        return "\(proto) \(type)"
    }

    /// Whether a remote-inbound entry's report block is about the entry's own SSRC (true
    /// when the reply does not say).
    private static func reportIsAbout(_ s: Structure) -> Bool {
        guard let ssrc = s.get("ssrc", as: UInt32.self),
            let rb = s.structure("gst-rtpsource-stats")?.get("rb-ssrc", as: UInt32.self)
        else { return true }
        return rb == ssrc
    }

    private mutating func countRepair(_ s: Structure) {
        nackCount += Int(s.get("nack-count", as: UInt32.self) ?? 0)
        pliCount += Int(s.get("pli-count", as: UInt32.self) ?? 0)
        firCount += Int(s.get("fir-count", as: UInt32.self) ?? 0)
    }
}
