import GStreamer

extension SinkSpec.Kind {
    /// A raw gst-launch fragment that consumes raw media.
    public static func gst(_ fragment: String) -> SinkSpec.Kind {
        SinkSpec.Kind(name: "gst", settings: GstSink.Settings(fragment: fragment))
    }
}

/// `sink: {gst: "…"}`: a launch fragment that consumes raw media, instead of a kind.
package struct GstSink: Sink {
    package let name = "gst"
    package let keys = ["gst"]

    package struct Settings: KindSettings, Equatable {
        package var fragment: String
    }

    package func decode(_ map: [SpecEntry], media: MediaKind, at location: SourceLocation, with decoder: inout SpecDecoder) -> SinkSpec.Kind? {
        map.entry("gst").flatMap { decoder.fragment($0) }.map { .gst($0) }
    }

    package func requiredElements(_ sink: SinkSpec, media: MediaKind) -> [String] { [] }

    package func build(_ sink: SinkSpec, media: MediaKind, with b: GraphBuilder) throws(RunError) -> GraphBuilder.SinkStage {
        let e = try b.parse(sink.kind.settings(as: Settings.self)?.fragment ?? "", at: sink.location)
        return GraphBuilder.SinkStage(owned: [e], final: e)
    }
}
