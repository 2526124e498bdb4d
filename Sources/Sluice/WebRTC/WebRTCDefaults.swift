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
public enum WebRTCDefaults {
    public static func apply(to webrtcbin: Element) {
        // The transceiver is the signal's argument: the handler captures nothing.
        webrtcbin.connect("on-new-transceiver") { (args: borrowing SignalArguments) -> Void in
            guard let transceiver = args.object(1, as: Object.self), transceiver.hasProperty("do-nack") else { return }
            try? transceiver.set("do-nack", true)
        }
    }
}
