import GStreamer

/// The figures Sluice reads from webrtcbin's `get-stats` reply.
public struct WebRTCStats: Sendable, Equatable {
    /// Bytes of RTP payload and headers sent (all outbound streams).
    public var bytesSent: Int = 0
    public var packetsSent: Int = 0
    /// Bytes and packets received (all inbound streams).
    public var bytesReceived: Int = 0
    public var packetsReceived: Int = 0
    /// Packets the remote side reported lost.
    public var packetsLost: Int = 0
    /// Round-trip time from RTCP receiver reports, in milliseconds, once known.
    public var roundTripMs: Double?
    /// Inbound jitter in milliseconds, once known.
    public var jitterMs: Double?
    /// Loss-repair requests: NACKs, picture loss indications and full intra requests, sent
    /// and received (all streams).
    public var nackCount: Int = 0
    public var pliCount: Int = 0
    public var firCount: Int = 0

    public init() {}

    // GstWebRTCStatsType values (gst/webrtc/webrtc_fwd.h, 1.22).
    private static let inboundRTP: Int32 = 2
    private static let outboundRTP: Int32 = 3
    private static let remoteInboundRTP: Int32 = 4

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
                countRepair(s)
                if let j = s.get("jitter", as: Double.self) { jitterMs = max(jitterMs ?? 0, j * 1000) }
            case Self.remoteInboundRTP:
                packetsLost += max(0, s.get("packets-lost", as: Int.self) ?? 0)
                if let rtt = s.get("round-trip-time", as: Double.self), rtt > 0 {
                    roundTripMs = max(roundTripMs ?? 0, rtt * 1000)
                }
            default:
                break
            }
        }
    }

    private mutating func countRepair(_ s: Structure) {
        nackCount += Int(s.get("nack-count", as: UInt32.self) ?? 0)
        pliCount += Int(s.get("pli-count", as: UInt32.self) ?? 0)
        firCount += Int(s.get("fir-count", as: UInt32.self) ?? 0)
    }
}
