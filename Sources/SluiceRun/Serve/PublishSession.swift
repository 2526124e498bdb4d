import Foundation
import GStreamer
import Synchronization

/// One WHIP publisher: a pipeline of its own whose webrtcbin answers the publisher's offer
/// and whose receive branches come from the server's receive pipeline file (decode,
/// filters, sink), built as the publisher's media arrives.
public final class PublishSession: Sendable {
    /// The WHIP session's id (a lowercase UUID), also in its pipeline's name (`publish-<id>`).
    public let id: String
    private let spec: PipelineSpec
    private let pipeline: Pipeline
    private let builder: GraphBuilder
    private let peer: WebRTCPeer
    private let health = ViewerHealth()

    /// Prepares the session from `spec`'s receive section; ICE gathers on `iceAddresses`.
    public convenience init(receive spec: PipelineSpec, iceAddresses: [String]) throws(RunError) {
        try self.init(receive: spec, recipe: WebRTCRecipe(latencyMs: spec.transport.latencyMs, addresses: iceAddresses))
    }

    /// Prepares the session from `spec`'s receive section, its webrtcbin made by `recipe`.
    public init(receive spec: PipelineSpec, recipe: WebRTCRecipe) throws(RunError) {
        guard spec.receive?.video != nil || spec.receive?.audio != nil else {
            throw RunError("'\(spec.name)' has no receive section for WHIP publishers", at: spec.transport.location)
        }
        id = UUID().uuidString.lowercased()
        self.spec = spec
        pipeline = SendLatency.pipeline(named: "publish-\(id)")
        builder = GraphBuilder(spec: spec, pipeline: pipeline, counters: RunCounters())
        let bin: Element
        do {
            bin = try recipe.make("whip", in: pipeline)
        } catch {
            throw RunError("cannot set up the WHIP session: \(error.message)")
        }
        bin.connect("pad-added") { [weak builder] (args: borrowing SignalArguments) in
            guard let pad = args.object(1, as: Pad.self) else { return }
            builder?.buildReceive(for: pad, firstOfEachMedium: true)
        }
        peer = recipe.peer(bin, label: "whip")
        health.watchRTCP(of: bin)
        try builder.prepareRecordings()
    }

    /// Starts the pipeline and answers the publisher's offer (complete, with candidates).
    public func answer(offer: String) async throws(RunError) -> String {
        guard pipeline.setState(.playing) != .failure else { throw RunError("the receive pipeline could not start") }
        do { return try await peer.answer(offer: offer) } catch {
            pipeline.setState(.null)
            throw RunError(error.message)
        }
    }

    /// Why the publisher counts as gone — it vanished without DELETE (no RTCP for a while),
    /// its ICE failed, or it never connected — or nil while it is alive. The rules served
    /// viewers follow (`ViewerReaper`).
    public func deadReason(limits: ViewerLimits = ViewerLimits()) -> String? {
        health.heard(mediaCount: receivedVideoFrames + receivedAudioBuffers)
        return ViewerReaper.verdict(health: health, states: peer.states, now: .now, limits: limits)
    }

    /// Decoded video frames so far.
    public var receivedVideoFrames: Int { builder.counters.receiveVideoFrames.load(ordering: .relaxed) }
    /// Size of the decoded video (0 before the first frame).
    public var receivedVideoSize: (width: Int, height: Int) {
        (builder.counters.receiveVideoWidth.load(ordering: .relaxed), builder.counters.receiveVideoHeight.load(ordering: .relaxed))
    }
    /// Decoded audio buffers so far.
    public var receivedAudioBuffers: Int { builder.counters.receiveAudioBuffers.load(ordering: .relaxed) }

    /// Ends the session: end-of-stream into the receive branches (so recordings are
    /// finalized, bounded wait), then NULL.
    public func stop(drainTimeout: Double = 3) async {
        let entrances = builder.receiveEntrances
        let eos = EndOfStream(arrivingAt: builder.receiveSinkPads) {
            for entrance in entrances { entrance.sendEvent(.eos()) }
        }
        await eos.wait(timeout: drainTimeout)
        pipeline.setState(.null)
    }
}
