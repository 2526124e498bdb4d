import GStreamer

extension CaptureSpec.Kind {
    /// A raw gst-launch fragment producing raw media.
    public static func gst(_ fragment: String) -> CaptureSpec.Kind {
        CaptureSpec.Kind(name: "gst", settings: GstCapture.Settings(fragment: fragment))
    }
}

/// `capture: {gst: "…"}`: a launch fragment that produces raw media, instead of a kind.
package struct GstCapture: Capture {
    package let name = "gst"

    package struct Settings: KindSettings, Equatable {
        package var fragment: String
    }

    package func keys(for media: MediaKind) -> [String] { ["gst"] }

    package func decode(
        _ map: [SpecEntry], media: MediaKind, into capture: inout CaptureSpec, at location: SourceLocation,
        with decoder: inout SpecDecoder
    ) -> CaptureSpec.Kind? {
        map.entry("gst").flatMap { decoder.fragment($0) }.map { .gst($0) }
    }

    package func build(_ cap: CaptureSpec, media: MediaKind, rawCaps: String, with b: GraphBuilder) throws(RunError) -> [Element] {
        let fragment = cap.kind.settings(as: Settings.self)?.fragment ?? ""
        let chain =
            [try b.parse(fragment, at: cap.location)]
            + (try b.normalizer(video: media == .video, caps: rawCaps, at: cap.location))
        try b.add(chain)
        return chain
    }
}
