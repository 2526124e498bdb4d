import GStreamer

extension CaptureSpec.Kind {
    /// A raw gst-launch fragment producing raw media.
    public static func gst(_ fragment: String) -> CaptureSpec.Kind {
        CaptureSpec.Kind(name: "gst", settings: GstCapture.Settings(fragment: fragment))
    }
}

/// `capture: {gst: "…"}`: a launch fragment that produces raw media, instead of a kind.
struct GstCapture: Capture {
    let name = "gst"

    struct Settings: KindSettings, Equatable {
        var fragment: String
    }

    func keys(for media: MediaKind) -> [String] { ["gst"] }

    func decode(
        _ map: [SpecEntry], media: MediaKind, into capture: inout CaptureSpec, at location: SourceLocation,
        with decoder: inout SpecDecoder
    ) -> CaptureSpec.Kind? {
        map.entry("gst").flatMap { decoder.fragment($0) }.map { .gst($0) }
    }

    func build(_ cap: CaptureSpec, media: MediaKind, rawCaps: String, with b: GraphBuilder) throws(RunError) -> [Element] {
        let fragment = cap.kind.settings(as: Settings.self)?.fragment ?? ""
        let chain =
            [try b.parse(fragment, at: cap.location)]
            + (try b.normalizer(video: media == .video, caps: rawCaps, at: cap.location))
        try b.add(chain)
        return chain
    }
}
