import GStreamer

extension SinkSpec.Kind {
    /// Count buffers (and frames, sizes) and discard them.
    public static let stats = SinkSpec.Kind(name: "stats")
    /// Discard without counting beyond the run statistics.
    public static let null = SinkSpec.Kind(name: "null")
}

/// `sink: stats`: what arrives is counted (the run's statistics) and discarded.
package struct StatsSink: Sink {
    package let name = "stats"
    package func encodedCodecs(_ sink: SinkSpec, media: MediaKind) -> [Codec]? { Codec.allCases.filter { $0.media == media } }
    package func requiredElements(_ sink: SinkSpec, media: MediaKind) -> [String] { ["fakesink"] }
    package func build(_ sink: SinkSpec, media: MediaKind, with b: GraphBuilder) throws(RunError) -> GraphBuilder.SinkStage {
        let e = try b.make("fakesink", [("sync", "false"), ("async", "false")], at: sink.location)
        return GraphBuilder.SinkStage(owned: [e], final: e)
    }
}

/// `sink: null`: discarded, as `stats` does.
package struct NullSink: Sink {
    package let name = "null"
    package func encodedCodecs(_ sink: SinkSpec, media: MediaKind) -> [Codec]? { Codec.allCases.filter { $0.media == media } }
    package func requiredElements(_ sink: SinkSpec, media: MediaKind) -> [String] { ["fakesink"] }
    package func build(_ sink: SinkSpec, media: MediaKind, with b: GraphBuilder) throws(RunError) -> GraphBuilder.SinkStage {
        try StatsSink().build(sink, media: media, with: b)
    }
}
