import Foundation
import GStreamer
import SluiceSignalling
import Synchronization

/// A pipeline file's send section served to any number of WebRTC viewers (WHEP): capture,
/// filters and encoder run once per stream, ending in a `tee`; each viewer gets its own
/// payloader and webrtcbin fed from that tee, so N viewers cost one encode per stream.
public final class StreamHub: Sendable {
    public let spec: PipelineSpec
    public var name: String { spec.name }
    private let pipeline: Pipeline
    private let builder: GraphBuilder
    private let viewers: ViewerSet

    /// Builds and starts the send branches of `spec` (its transport and receive sections are
    /// not used: each viewer is a peer of its own). ICE gathers on `addresses`.
    /// `stageTimer`: time the encoder (`sluice measure --processes 2`).
    public convenience init(spec: PipelineSpec, iceAddresses: [String], stageTimer: StageTimer? = nil) throws(RunError) {
        try self.init(spec: spec, recipe: WebRTCRecipe(latencyMs: spec.transport.latencyMs, addresses: iceAddresses),
                      stageTimer: stageTimer)
    }

    /// Builds and starts the send branches of `spec`; each viewer's webrtcbin is made by `recipe`.
    public init(spec: PipelineSpec, recipe: WebRTCRecipe, stageTimer: StageTimer? = nil) throws(RunError) {
        guard spec.send?.video != nil || spec.send?.audio != nil else {
            throw RunError("pipeline '\(spec.name)' has nothing to serve: it has no send section", at: spec.transport.location)
        }
        self.spec = spec
        pipeline = Pipeline(name: "hub-\(spec.name)")
        builder = GraphBuilder(spec: spec, pipeline: pipeline, counters: RunCounters(), sendEndsInTee: true, stageTimer: stageTimer)
        for branch in [spec.send?.video, spec.send?.audio].compactMap({ $0 }) {
            try builder.buildSend(branch, into: nil)
        }
        let builder = builder, spec = spec
        viewers = ViewerSet(pipeline: pipeline, recipe: recipe, stream: spec.name) {
            [spec.send?.video, spec.send?.audio].compactMap { branch in
                branch.flatMap { b in builder.tees[b.media].map { ViewerSet.Output(media: b.media, codec: b.encode.codec, tee: $0) } }
            }
        }
        // Viewers' elements come and go in this long-lived pipeline: nothing may queue on its
        // bus (each message would keep its element alive).
        pipeline.bus.handleSynchronously { _ in }
        guard pipeline.setState(.playing) != .failure else {
            throw RunError("the served pipeline '\(spec.name)' could not start")
        }
    }

    deinit { pipeline.setState(.null) }

    /// Viewers connected now.
    public var viewerCount: Int { viewers.count }
    /// Frames encoded so far (one encoder per stream, however many viewers).
    public var encodedVideoFrames: Int { builder.counters.sendVideoFrames.load(ordering: .relaxed) }
    /// Bytes of encoded video so far.
    public var encodedVideoBytes: Int { builder.counters.sendVideoBytes.load(ordering: .relaxed) }
    /// Statistics of the stream's Swift filters.
    public var filterStatistics: [FilterStatistics] { builder.swiftFilterStatistics }

    /// Adds a viewer for a WHEP offer; returns its id and the complete answer.
    public func addViewer(offer: String) async throws(RunError) -> (id: String, answer: String) {
        try await viewers.addViewer(offer: offer)
    }

    /// Adds trickled remote candidates to a viewer. False if the viewer is unknown.
    public func addCandidates(_ candidates: [(mid: String?, candidate: String)], toViewer id: String) -> Bool {
        viewers.addCandidates(candidates, toViewer: id)
    }

    /// Ends a viewer's session. False if unknown.
    @discardableResult
    public func removeViewer(_ id: String) -> Bool { viewers.removeViewer(id) }

    /// Ends every viewer's session (reason `shutdown`): the end of a drain.
    public func removeAllViewers() { viewers.removeAll() }

    /// The stream's pipeline now, as GStreamer's dot and as a text tree (viewers' branches
    /// included).
    public var graph: (dot: String, tree: String) { (GraphPicture.dot(of: pipeline), GraphPicture.tree(of: pipeline)) }

    /// Whether the stream's pipeline is PLAYING (what `/readyz` checks).
    public var isPlaying: Bool { pipeline.currentState() == .playing }

    /// Viewers removed so far, by reason (see `ViewerSource.viewerRemovals`).
    public var viewerRemovals: [String: Int] { viewers.removalCounts }
}
