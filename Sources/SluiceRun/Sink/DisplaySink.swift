import GStreamer

extension SinkSpec.Kind {
    /// autovideosink / autoaudiosink.
    public static let display = SinkSpec.Kind(name: "display")
}

/// `sink: display`: a window, or the sound card, paced to the clock.
package struct DisplaySink: Sink {
    package let name = "display"
    package func requiredElements(_ sink: SinkSpec, media: MediaKind) -> [String] { [media == .video ? "autovideosink" : "autoaudiosink"] }
    package func build(_ sink: SinkSpec, media: MediaKind, with b: GraphBuilder) throws(RunError) -> GraphBuilder.SinkStage {
        let e = try b.make(media == .video ? "autovideosink" : "autoaudiosink", [("sync", "true")], at: sink.location)
        return GraphBuilder.SinkStage(owned: [e], final: e)
    }
}
