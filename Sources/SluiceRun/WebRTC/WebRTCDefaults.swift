import GStreamer

/// Settings every webrtcbin Sluice makes gets, so loss is repaired rather than shown.
///
/// - Each transceiver gets `do-nack`: NACKs for lost packets, answered with RTX
///   retransmissions (RFC 4588), which webrtcbin then negotiates (`a=rtcp-fb:… nack`,
///   `rtx` payload types).
/// - Video RTP caps carry `rtcp-fb-nack-pli` and `rtcp-fb-ccm-fir` (see
///   `EncoderPresets.rtpCaps`), so a receiver can ask for a keyframe and the sender's
///   encoder answers with one.
/// - Receiving depayloaders wait for a keyframe after a loss they cannot repair, and ask
///   for one, instead of passing damaged pictures to the decoder (`GraphBuilder`).
/// - Each RTP session may send RTCP every `rtcpMinInterval` (RTPSession's default is 5 s):
///   NACKs that cannot go out "early" wait for the next regular RTCP packet, and with 5 s
///   between them they came too late for any jitter buffer and expired.
/// - Receiving jitter buffers wait long enough for a retransmission to arrive once
///   retransmissions are needed (`RetransmissionLatency`).
/// - Offers pair RTX with every video codec, not only the first (`RTXCompletion`, in
///   `WebRTCPeer`).
public enum WebRTCDefaults {
    /// Shortest time between regular RTCP packets of a session.
    public static let rtcpMinInterval: UInt64 = 100_000_000

    /// Applies these settings to `webrtcbin`: `do-nack` on each new transceiver, the retransmission
    /// jitter-buffer latency and `rtcp-min-interval` on each RTP session of its rtpbin.
    public static func apply(to webrtcbin: Element) {
        if let rtpbin = webrtcbin.cast(to: Bin.self)?.child(named: "rtpbin") {
            RetransmissionLatency.attach(to: rtpbin)
            if rtpbin.hasProperty("rtcp-sync-send-time") { try? rtpbin.set("rtcp-sync-send-time", false) }
            // The rtpbin is the signal's first argument: the handler captures nothing.
            rtpbin.connect("on-new-ssrc") { (args: borrowing SignalArguments) -> Void in
                guard let bin = args.object(0, as: Element.self), let id = args.get(1, as: UInt32.self),
                    let session = (try? bin.emit("get-internal-session", id))??.objectValue,
                    session.hasProperty("rtcp-min-interval")
                else { return }
                try? session.set("rtcp-min-interval", rtcpMinInterval)
            }
        }
        // The transceiver is the signal's argument: the handler captures nothing.
        webrtcbin.connect("on-new-transceiver") { (args: borrowing SignalArguments) -> Void in
            guard let transceiver = args.object(1, as: Object.self), transceiver.hasProperty("do-nack") else { return }
            try? transceiver.set("do-nack", true)
        }
    }
}
