/// A receive session whose server forwards one simulcast layer of each stream it receives
/// and takes a request for another (a Janus VideoRoom subscription: its `substream`). The
/// control API's `PATCH /pipelines/{name}/receive/video/simulcast` reaches it through
/// `GraphBuilder.layerChoice`.
public protocol SimulcastLayerChoosing: Sendable {
    /// The layers the server has: 0 (the smallest) up to this.
    var largestLayer: Int { get }
    /// Asks the server for `layer` of every received video stream (or only `publisher`'s);
    /// returns the publishers asked for. The server switches at that layer's next keyframe.
    func chooseLayer(_ layer: Int, publisher: String?) async throws(ControlError) -> [String]
}

extension PipelineControl {
    /// Asks the receive session's server for simulcast layer `layer` (0, the smallest, up)
    /// of every received video, or of `publisher`'s; returns the publishers asked for.
    public func chooseReceiveLayer(_ layer: Int, publisher: String? = nil) async throws(ControlError) -> [String] {
        guard let chooser = builder.layerChoice.withLock({ $0 }) else {
            throw ControlError(
                .conflict,
                "pipeline '\(name)' receives no simulcast layers to choose from: that takes a Janus VideoRoom subscription "
                    + "(transport kind janus with a receive section)")
        }
        guard (0...chooser.largestLayer).contains(layer) else {
            throw ControlError(.invalid, "substream is 0 (the smallest layer) to \(chooser.largestLayer), got \(layer)")
        }
        return try await chooser.chooseLayer(layer, publisher: publisher)
    }
}
