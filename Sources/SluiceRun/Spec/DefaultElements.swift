/// The GStreamer elements Sluice uses for each stage when the file does not name one.
///
/// The graph builder builds from these names and the validator checks they are installed,
/// so the two can never disagree about what a pipeline file needs.
public enum DefaultElements {
    /// The encoder element used for `codec` when `encode:` names none (`vp8enc`, `vp9enc`, `x264enc`, `opusenc`).
    public static func encoder(for codec: Codec) -> String {
        switch codec {
        case .vp8: "vp8enc"
        case .vp9: "vp9enc"
        case .h264: "x264enc"
        case .opus: "opusenc"
        }
    }

    /// The RTP payloader element for `codec` (`rtpvp8pay`, …).
    public static func payloader(for codec: Codec) -> String {
        switch codec {
        case .vp8: "rtpvp8pay"
        case .vp9: "rtpvp9pay"
        case .h264: "rtph264pay"
        case .opus: "rtpopuspay"
        }
    }

    /// The RTP depayloader element for `codec` (`rtpvp8depay`, …).
    public static func depayloader(for codec: Codec) -> String {
        switch codec {
        case .vp8: "rtpvp8depay"
        case .vp9: "rtpvp9depay"
        case .h264: "rtph264depay"
        case .opus: "rtpopusdepay"
        }
    }

    /// The decoder element used for `codec` when `decode:` names none (`vp8dec`, `vp9dec`, `avdec_h264`, `opusdec`).
    public static func decoder(for codec: Codec) -> String {
        switch codec {
        case .vp8: "vp8dec"
        case .vp9: "vp9dec"
        case .h264: "avdec_h264"
        case .opus: "opusdec"
        }
    }

    /// A parser placed between encoder and payloader or muxer, if the codec needs one.
    public static func parser(for codec: Codec) -> String? {
        switch codec {
        case .h264: "h264parse"
        case .vp8, .vp9, .opus: nil
        }
    }

    /// The muxer element the file sink uses for `container` (`webmmux`, `matroskamux`, `mp4mux`).
    public static func muxer(for container: Container) -> String {
        switch container {
        case .webm: "webmmux"
        case .mkv: "matroskamux"
        case .mp4: "mp4mux"
        }
    }

    /// Every element a spec needs that Sluice picks itself (not named in the file), with the
    /// location of the stage that needs it.
    public static func required(for spec: PipelineSpec) -> [(factory: String, location: SourceLocation?)] {
        var out: [(String, SourceLocation?)] =
            spec.transport.kind == .noTransport
            ? [("fakesink", spec.transport.location)] : [("webrtcbin", spec.transport.location)]
        for branch in spec.sendBranches {
            let video = branch.media == .video
            let capture = CaptureRegistry.capture(for: branch.capture.kind)
            if branch.encode.passthrough {
                let needs = capture?.requiredPassthroughElements(for: branch.media, codec: branch.encode.codec) ?? []
                out += needs.map { ($0, branch.capture.location) }
                out.append((payloader(for: branch.encode.codec), branch.encode.location))
                continue
            }
            out += (capture?.requiredElements(for: branch.media) ?? []).map { ($0, branch.capture.location) }
            out +=
                (video
                ? ["videoconvert", "videoscale", "videorate", "capsfilter"]
                : ["audioconvert", "audioresample", "capsfilter"]).map { ($0, branch.location) }
            let enc = branch.encode
            if enc.gst == nil { out.append((enc.element ?? encoder(for: enc.codec), enc.location)) }
            if let p = parser(for: enc.codec) { out.append((p, enc.location)) }
            out.append((payloader(for: enc.codec), enc.location))
        }
        for branch in spec.receiveBranches {
            let video = branch.media == .video
            let codecs = branch.codecs.isEmpty ? Codec.allCases.filter { $0.media == branch.media } : branch.codecs
            if branch.decode.element == nil {
                // Only the codecs the send side can actually produce matter in loopback.
                let sent = spec.sendBranches.map(\.encode.codec)
                for c in codecs where sent.isEmpty || sent.contains(c) {
                    out.append((depayloader(for: c), branch.decode.location ?? branch.location))
                    out.append((decoder(for: c), branch.decode.location ?? branch.location))
                }
            }
            out.append((video ? "videoconvert" : "audioconvert", branch.location))
            let sink = SinkRegistry.sink(for: branch.sink.kind)
            out += (sink?.requiredElements(branch.sink, media: branch.media) ?? []).map { ($0, branch.sink.location) }
        }
        return out
    }
}
