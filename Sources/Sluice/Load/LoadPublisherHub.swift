import GStreamer
import Synchronization

/// The shared half of a crowd of publishers: the file's send section (capture, filters,
/// encoders) built once and ending in a `tee` per medium, in the one pipeline every
/// publisher's branch joins, the way `sluice serve` feeds its viewers (`StreamHub`). N
/// publishers cost one capture and one encode; each still has its own payloader, SSRC,
/// webrtcbin, ICE agent and DTLS session (`LoadPublisherMedia`). Keyframe requests from
/// the services are limited at the encoder (`KeyframeRequestLimiter`), as for viewers.
final class LoadPublisherHub: Sendable {
    let pipeline: Pipeline
    /// What each publisher is fed: the encoded stream of each medium and its codec.
    let outputs: [ViewerSet.Output]
    /// How each publisher's webrtcbin is made (the file's ICE settings).
    let recipe: WebRTCRecipe
    private let builder: GraphBuilder

    /// The first error of the shared pipeline (the capture or an encoder failing): every
    /// publisher's media stops with it.
    var error: String? { firstError.withLock { $0 } }
    private let firstError = Mutex<String?>(nil)

    /// Builds and starts the send section of `spec`.
    init(spec: PipelineSpec) throws(RunError) {
        guard !spec.sendBranches.isEmpty else {
            throw RunError("a load publisher needs a send section: what each client sends", at: spec.transport.location)
        }
        let pipeline = SendLatency.pipeline(named: "load-publishers")
        let builder = GraphBuilder(spec: spec, pipeline: pipeline, counters: RunCounters(), sendEndsInTee: true)
        for branch in spec.sendBranches {
            try builder.buildSend(branch, into: nil)
        }
        outputs = spec.sendBranches.compactMap { b in
            builder.tees[b.media].map { ViewerSet.Output(media: b.media, codec: b.encode.codec, tee: $0) }
        }
        self.pipeline = pipeline
        self.builder = builder
        recipe = WebRTCRecipe(loadClientOf: spec.transport)
        // Publishers come and go in this pipeline: nothing may queue on its bus.
        // Weak: the pipeline (and so this handler) belongs to the hub.
        pipeline.bus.handleSynchronously { [weak self] message in
            guard message.kind == .error else { return }
            let why = "the shared send section failed: \(message.sourceName): \(message.parsedError?.0 ?? "unknown error")"
            self?.firstError.withLock { $0 = $0 ?? why }
        }
        guard pipeline.setState(.playing) != .failure else {
            throw RunError("the publishers' shared send section could not start", at: spec.transport.location)
        }
    }

    /// Frames the shared video encoder made so far (each publisher is sent every one it can take).
    var encodedVideoFrames: Int { builder.counters.sendVideoFrames.load(ordering: .relaxed) }

    deinit { pipeline.setState(.null) }
}
