import GStreamer
import Synchronization
import SluiceRun
import SluiceMeasure

/// The shared half of a crowd of publishers: the file's send section (capture, filters,
/// encoders) built once and ending in a `tee` per medium, in the one pipeline every
/// publisher's branch joins, the way `sluice serve` feeds its viewers (`StreamHub`). N
/// publishers cost one capture and one encode; each still has its own payloader, SSRC,
/// webrtcbin, ICE agent and DTLS session (`LoadPublisherMedia`). Keyframe requests from
/// the services are limited at the encoder (`KeyframeRequestLimiter`), as for viewers.
package final class LoadPublisherHub: Sendable {
    package let pipeline: Pipeline
    /// What each publisher is fed: the encoded stream of each medium and its codec.
    package let outputs: [ViewerSet.Output]
    /// What the publishers of a group with encoded filters of its own are fed instead
    /// (`LoadGroupBranches`), by group name.
    private let groupOutputs: [String: [ViewerSet.Output]]
    /// How each publisher's webrtcbin is made (the file's ICE settings).
    package let recipe: WebRTCRecipe
    /// The video's `encode` when it sends simulcast layers: the video output's renditions
    /// are then its layers, encoded once, each publisher sending all of them (`SimulcastInput`).
    package let simulcast: EncodeSpec?
    private let builder: GraphBuilder

    /// The first error of the shared pipeline (the capture or an encoder failing): every
    /// publisher's media stops with it.
    package var error: String? { firstError.withLock { $0 } }
    private let firstError = Mutex<String?>(nil)

    /// Who an error from an element of a client's own goes to, by the prefix of the
    /// element's name (`p12`, `m12-…`): that client alone fails, not the crowd.
    private let claims = Mutex<[String: @Sendable (String) -> Void]>([:])

    /// Builds and starts the send section of `spec`, and a branch for each of `groups` that
    /// has encoded filters of its own. Every bus message but errors goes to `onMessage`, on
    /// the thread that posts it (framestamps read behind a call's member).
    package init(spec: PipelineSpec, groups: [LoadGroup] = [], onMessage: @escaping @Sendable (Message) -> Void = { _ in }) throws(RunError) {
        guard !spec.sendBranches.isEmpty else {
            throw RunError("a load publisher needs a send section: what each client sends", at: spec.transport.location)
        }
        let pipeline = SendLatency.pipeline(named: "load-publishers")
        let builder = GraphBuilder(spec: spec, pipeline: pipeline, counters: RunCounters(), sendEndsInTee: true)
        for branch in spec.sendBranches {
            try builder.buildSend(branch, into: nil)
        }
        outputs = spec.sendBranches.compactMap { b in
            builder.tees[b.media].map {
                var output = ViewerSet.Output(media: b.media, codec: b.encode.codec, tee: $0, cache: b.media == .video ? builder.gopCache : nil)
                // Frames through encoded filters (an `e2ee` crowd) go out through payloaders that do not parse them.
                output.opaqueFrames = !b.encodedFilters.isEmpty
                if b.media == .video, !b.encode.simulcast.isEmpty { output.renditions = builder.renditions }
                return output
            }
        }
        let simulcast = spec.send?.video?.encode.simulcast.isEmpty == false ? spec.send?.video?.encode : nil
        if simulcast != nil, let group = groups.first(where: { $0.encodedFilters[.video] != nil }) {
            throw RunError(
                "load group '\(group.name)' has encoded filters for video, but the crowd's simulcast layers are shared as encoded; remove them or 'simulcast'",
                at: group.location)
        }
        self.simulcast = simulcast
        groupOutputs = try LoadGroupBranches.build(for: groups, from: outputs, builder: builder)
        self.pipeline = pipeline
        self.builder = builder
        recipe = WebRTCRecipe(loadClientOf: spec.transport)
        // Clients come and go in this pipeline: nothing may queue on its bus.
        // Weak: the pipeline (and so this handler) belongs to the hub.
        pipeline.bus.handleSynchronously { [weak self] message in
            guard message.kind == .error else { return onMessage(message) }
            self?.route(error: message)
        }
        guard pipeline.setState(.playing) != .failure else {
            throw RunError("the publishers' shared send section could not start", at: spec.transport.location)
        }
    }

    /// What a publisher of `group` is fed: its group's branches if it has encoded filters of
    /// its own, else the shared section's outputs.
    package func outputs(for group: String?) -> [ViewerSet.Output] { group.flatMap { groupOutputs[$0] } ?? outputs }

    /// Sends errors from elements named `prefix` or `prefix-…`, or inside them, to `handler`
    /// until `release(prefix)`.
    package func claimErrors(of prefix: String, _ handler: @escaping @Sendable (String) -> Void) {
        claims.withLock { $0[prefix] = handler }
    }

    /// Ends a claim (the client's elements are gone).
    package func release(_ prefix: String) { _ = claims.withLock { $0.removeValue(forKey: prefix) } }

    /// An error: its client's if one of the elements it came from is a client's, else the
    /// shared section's, which stops every client's media.
    private func route(error message: Message) {
        let why = "\(message.sourceName): \(message.parsedError?.0 ?? "unknown error")"
        let lineage = message.sourceLineage
        let claimed = claims.withLock { $0 }
        let owner = lineage.lazy.compactMap { name in claimed[name] ?? claimed[String(name.prefix { $0 != "-" })] }.first
        if let owner { return owner(why) }
        firstError.withLock { $0 = $0 ?? "the shared send section failed: \(why)" }
    }

    /// Frames the shared video encoder made so far (each publisher is sent every one it can take).
    package var encodedVideoFrames: Int { builder.counters.sendVideoFrames.load(ordering: .relaxed) }

    deinit { pipeline.setState(.null) }
}
