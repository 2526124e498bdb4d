import Foundation
import SluiceSignalling

/// Encoder and payloader settings per codec and preset.
///
/// The `realtime` preset avoids what bites webrtcbin users by default: x264enc's lookahead
/// and B-frames (over a second of delay), vp8enc's "best quality" deadline, payloads
/// larger than a safe path MTU.
public enum EncoderPresets {
    /// Property assignments (name, gst-launch value) for the encoder element.
    public static func encoderProperties(_ encode: EncodeSpec, element: String, fps: Int) -> [(String, String)] {
        let kbps = encode.bitrateKbps
        let gop = encode.keyframeInterval ?? max(1, fps * 2)
        var props: [(String, String)] = []
        switch element {
        case "x264enc":
            // No access unit delimiters: RTP marks access units itself (RFC 6184), and
            // rtph264pay sends a delimiter followed by a slice too big to aggregate as an RTP
            // packet of its own, 2 bytes long, which Pion's depacketizer refuses (the frame is
            // then lost).
            props = [("bitrate", "\(kbps)"), ("key-int-max", "\(gop)"), ("aud", "false")]
            if encode.preset == .realtime {
                props += [
                    ("tune", "zerolatency"), ("speed-preset", "ultrafast"), ("bframes", "0"),
                    ("b-adapt", "false"), ("rc-lookahead", "0"), ("sync-lookahead", "0"),
                    ("vbv-buf-capacity", "300")
                ]
            }
        case "openh264enc":
            props = [("bitrate", "\(kbps * 1000)"), ("gop-size", "\(gop)")]
            if encode.preset == .realtime { props += [("rate-control", "bitrate"), ("complexity", "low")] }
        case "vp8enc", "vp9enc":
            props = [("target-bitrate", "\(kbps * 1000)"), ("keyframe-max-dist", "\(gop)")]
            if encode.preset == .realtime {
                // vp8enc's fastest realtime speed: half the encoder CPU of cpu-used 8 at 720p
                // (measured with gst-launch, 300 frames); vp9enc's scale ends at 9.
                props += [
                    ("deadline", "1"), ("cpu-used", element == "vp8enc" ? "16" : "8"),
                    ("end-usage", "cbr"), ("lag-in-frames", "0"), ("error-resilient", "default"),
                    ("threads", "\(vpxThreads())"), ("buffer-size", "300"), ("buffer-initial-size", "200"),
                    ("buffer-optimal-size", "250"), ("undershoot", "95")
                ]
                if element == "vp9enc" { props += [("row-mt", "true")] }
            }
        case "opusenc":
            props = [("bitrate", "\(kbps * 1000)")]
            if encode.preset == .realtime { props += [("frame-size", "20"), ("inband-fec", "true")] }
        default:
            break
        }
        return props
    }

    /// libvpx encoder threads: 1 on machines with 2 cores or fewer, else 2. With 2 threads on
    /// 2 cores, vp8enc sometimes collapses to 6–22 fps while using a whole core (seen in
    /// Benchmarks/aiortc-compare.sh and c-compare.sh, in Sluice and in a plain C program
    /// alike); with 1 thread it kept 30 fps in every run.
    public static func vpxThreads(cores: Int = ProcessInfo.processInfo.activeProcessorCount) -> Int {
        cores <= 2 ? 1 : 2
    }

    /// Caps forced right after the encoder, if the codec needs a specific profile.
    public static func encodedCaps(for codec: Codec, preset: EncoderPreset) -> String? {
        switch codec {
        case .h264: "video/x-h264,profile=constrained-baseline,stream-format=byte-stream"
        default: nil
        }
    }

    /// Caps forced after the codec's parser, before the payloader. H.264 travels as AVC
    /// (length-prefixed) access units: h264parse adds an access unit delimiter to every
    /// byte-stream frame that lacks one (1.22 has no switch for it), and rtph264pay then
    /// sends that delimiter as an RTP packet of its own, 2 bytes long, whenever the next slice
    /// is too big to aggregate, and flushes the SPS/PPS it inserted before a keyframe with the
    /// marker bit set. Pion refuses both (its sample builder loses the whole frame). In AVC
    /// nothing adds delimiters, and the payloader takes SPS/PPS from `codec_data`.
    public static func parsedCaps(for codec: Codec) -> String? {
        codec == .h264 ? "video/x-h264,stream-format=avc,alignment=au" : nil
    }

    /// Payloader properties: MTU 1200 everywhere, 15-bit picture ids for VP8/VP9, SPS/PPS
    /// with every IDR for H.264 (a late joiner or a lost keyframe can always decode).
    public static func payloaderProperties(for codec: Codec) -> [(String, String)] {
        var props: [(String, String)] = [("mtu", "1200"), ("pt", "\(payloadType(for: codec))")]
        switch codec {
        case .vp8, .vp9: props.append(("picture-id-mode", "15-bit"))
        case .h264: props += [("config-interval", "-1"), ("aggregate-mode", "zero-latency")]
        case .opus: break
        }
        return props
    }

    /// The full RTP caps a payloader's output is pinned to, so webrtcbin can describe the
    /// stream in its offer before the first packet flows.
    public static func rtpCaps(for codec: Codec, payloadType pt: Int? = nil) -> String {
        var caps =
            "application/x-rtp,media=\(codec.media.rawValue),encoding-name=\(codec.encodingName),"
            + "payload=\(pt ?? payloadType(for: codec)),clock-rate=\(codec == .opus ? 48000 : 90000)"
        if codec == .opus { caps += ",encoding-params=(string)2" }
        // Keyframe requests (PLI, FIR) and NACK are offered for video; see WebRTCDefaults.
        if codec.media == .video {
            caps += ",rtcp-fb-nack=(boolean)true,rtcp-fb-nack-pli=(boolean)true,rtcp-fb-ccm-fir=(boolean)true"
        }
        return caps
    }

    /// The caps field that declares the transport-wide congestion control header extension
    /// at `id` (by default the id Sluice offers).
    package static func twccExtensionCaps(id: Int = RTPSendParameters.offeredTWCCExtensionID) -> String {
        ",extmap-\(id)=(string)\"\(RTPHeaderExtension.transportWideCC)\""
    }

    /// Caps fields that make a receive-only transceiver ask for transport-wide congestion
    /// control: the header extension at `id` and `transport-cc` feedback.
    package static func twccReceiveCaps(id: Int = RTPSendParameters.offeredTWCCExtensionID) -> String {
        twccExtensionCaps(id: id) + ",rtcp-fb-transport-cc=(boolean)true"
    }

    /// The RTP caps of a receive-only transceiver accepting `codec`: the payload format's
    /// parameters other stacks match offers on (RFC 6184: an H.264 offer without
    /// `packetization-mode=1` means single NAL units, which aiortc, Pion and browsers do not
    /// send; VP9 profile 0).
    public static func receiveCaps(for codec: Codec) -> String {
        let caps = rtpCaps(for: codec)
        switch codec {
        case .h264: return caps + ",packetization-mode=(string)1,profile-level-id=(string)42e01f,level-asymmetry-allowed=(string)1"
        case .vp9: return caps + ",profile-id=(string)0"
        case .vp8, .opus: return caps
        }
    }

    /// RTP payload types Sluice offers (distinct per codec so audio and video can share a
    /// bundled transport).
    public static func payloadType(for codec: Codec) -> Int {
        switch codec {
        case .vp8: 96
        case .vp9: 98
        case .h264: 102
        case .opus: 111
        }
    }
}
