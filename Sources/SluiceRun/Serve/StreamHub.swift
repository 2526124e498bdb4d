import Foundation
import GStreamer
import SluiceSignalling
import Synchronization

/// A pipeline file's send section served to any number of WebRTC viewers (WHEP): capture,
/// filters and encoder run once per stream, ending in a `tee`; each viewer gets its own
/// payloader and webrtcbin fed from that tee, so N viewers cost one encode per stream.
public final class StreamHub: Sendable {
    /// The pipeline file being served.
    public let spec: PipelineSpec
    /// The stream's name (the pipeline file's `name`), the path viewers ask for (`/whep/<name>`).
    public var name: String { spec.name }
    private let pipeline: Pipeline
    private let builder: GraphBuilder
    private let viewers: ViewerSet
    /// The video encoder's bitrate, set by the viewers' estimates (`encode.bitrate: {min, start, max}`).
    package let encoderRate: SharedEncoderRate?

    /// Keyframe requests that reached the video encoder, and those folded into later ones.
    public var keyframeRequestCounts: (passed: Int, coalesced: Int)? { builder.keyframeRequestCounts }
    /// Viewers' keyframe requests for a passthrough video stream, which its source cannot
    /// answer (nil without one).
    public var unansweredKeyframeRequests: Int? { builder.unansweredKeyframeRequests }

    /// The adaptive video encoder's current target, bit/s (nil: a fixed bitrate).
    public var videoTargetBitrate: Int? { encoderRate?.current }
    /// Statistics each second, filter events, viewers' sessions, errors.
    public let events = PipelineEvents()
    /// The control API's handle on this stream.
    public let control: PipelineControl
    private let stopHandler = StopHandler()
    private let ticker = Mutex<Task<Void, Never>?>(nil)

    /// Builds and starts the send branches of `spec` (its transport and receive sections are
    /// not used: each viewer is a peer of its own). ICE gathers on `addresses`.
    /// `stageTimer`, `audioStageTimer`: time the encoders (`sluice measure --processes 2`).
    public convenience init(
        spec: PipelineSpec, iceAddresses: [String], stageTimer: StageTimer? = nil, audioStageTimer: StageTimer? = nil
    ) throws(RunError) {
        try self.init(
            spec: spec, recipe: WebRTCRecipe(latencyMs: spec.transport.latencyMs, addresses: iceAddresses),
            stageTimer: stageTimer, audioStageTimer: audioStageTimer)
    }

    /// Builds and starts the send branches of `spec`; each viewer's webrtcbin is made by
    /// `recipe`, and viewers are watched within `viewerLimits`. With `holdingUntilAViewer`,
    /// its paced sources (files, recordings) wait for the first viewer's connection, so that
    /// viewer sees them from their first frame.
    public init(
        spec: PipelineSpec, recipe: WebRTCRecipe, stageTimer: StageTimer? = nil, audioStageTimer: StageTimer? = nil,
        viewerLimits: ViewerLimits = ViewerLimits(), holdingUntilAViewer: Bool = false
    ) throws(RunError) {
        guard spec.send?.video != nil || spec.send?.audio != nil else {
            throw RunError("pipeline '\(spec.name)' has nothing to serve: it has no send section", at: spec.transport.location)
        }
        self.spec = spec
        pipeline = SendLatency.pipeline(named: "hub-\(spec.name)")
        stageTimer?.watch(pipeline)
        audioStageTimer?.watch(pipeline)
        let hold = holdingUntilAViewer ? SourceHold() : nil
        builder = GraphBuilder(
            spec: spec, pipeline: pipeline, counters: RunCounters(), sendEndsInTee: true, stageTimer: stageTimer,
            audioStageTimer: audioStageTimer, sourceHold: hold)
        for branch in spec.sendBranches {
            try builder.buildSend(branch, into: nil)
        }
        let builder = builder, spec = spec
        // An adaptive video encoder follows its viewers' congestion feedback (the lowest
        // estimate: one encoder serves them all).
        var encoderRate: SharedEncoderRate?
        if let adaptive = spec.send?.video?.encode.adaptive,
            let control = builder.state.withLock({ $0.sendControls[.video] })
        {
            encoderRate = SharedEncoderRate(limits: adaptive.limits) { control.applyTarget($0) }
        }
        self.encoderRate = encoderRate
        viewers = ViewerSet(
            pipeline: pipeline, recipe: recipe, stream: spec.name, limits: viewerLimits, events: events,
            encoderRate: encoderRate
        ) {
            [spec.send?.video, spec.send?.audio].compactMap { branch in branch.flatMap { Self.output(of: $0, builder: builder) } }
        }
        if let hold { viewers.onConnected { hold.release() } }
        Self.routeBusMessages(of: pipeline, to: events, supervisor: builder.supervisor) { [weak builder] in builder?.sourceLabel(of: $0) }
        let stopHandler = stopHandler
        control = PipelineControl(spec: spec, builder: builder, channels: nil, events: events) {
            stopHandler.call()
        }
        guard pipeline.setState(.playing) != .failure else {
            throw RunError("the served pipeline '\(spec.name)' could not start")
        }
        events.post("state", ["state": .text("playing")])
        startTicking()
        let events = events
        builder.supervisor.onEvent { events.post($0.type, $0.fields) }
        builder.supervisor.start()
    }

    /// What viewers of send branch `b` are fed (nil until its tee exists).
    private static func output(of b: SendBranchSpec, builder: GraphBuilder) -> ViewerSet.Output? {
        guard let tee = builder.tees[b.media] else { return nil }
        let video = b.media == .video
        var output = ViewerSet.Output(
            media: b.media, codec: b.encode.codec, tee: tee, renditions: video ? builder.renditions : [],
            startRendition: b.encode.startRendition, cache: video ? builder.gopCache : nil)
        if b.encode.transcodeForViewers != nil {
            output.transcode = { codec in builder.viewerTranscode(for: b, to: codec) }
        }
        output.opaqueFrames = !b.encodedFilters.isEmpty
        return output
    }

    /// Filter events and errors from the hub's bus go to the event log.
    /// A live source that had delivered and fails is reconnected (`supervisor`), not an error.
    /// An error from inside a source's elements is told with the source's label (`rtsp capture
    /// rtsp://cam/…`) and without its password (`labels`), as `sluice run` tells it.
    private static func routeBusMessages(
        of pipeline: Pipeline, to events: PipelineEvents, supervisor: SourceSupervisor,
        labels: @escaping @Sendable (String) -> SourceLabel?
    ) {
        // Viewers' elements come and go in this long-lived pipeline: nothing may queue on its
        // bus (each message would keep its element alive).
        // Filter events and errors go to the event log from here (short: a streaming thread).
        pipeline.bus.handleSynchronously { message in
            switch message.kind {
            case .element:
                guard let e = FilterEventMessage(message.structure) else { return }
                events.postFilterEvent(filter: e.filter, event: e.event, fields: e.fields)
            case .error:
                let (text, debug) = message.parsedError ?? ("unknown error", nil)
                let label = message.sourceLineage.lazy.compactMap(labels).first
                let reason = debug?.split(separator: "\n").last.map { " (\($0))" } ?? ""
                let said = label?.redact(text + reason) ?? text
                if supervisor.handleError(from: message.sourceLineage, reason: said) { return }
                events.post("error", ["element": .text(label?.text ?? message.sourceName), "message": .text(said)])
            default:
                break
            }
        }
    }

    deinit {
        builder.supervisor.stop()
        ticker.withLock { $0?.cancel() }
        pipeline.setState(.null)
    }

    /// Posts a `stats` event each second: viewers, encoded frames per second and bitrate.
    private func startTicking() {
        let task = Task.detached { [weak self] in
            var last = (frames: 0, bytes: 0, at: ContinuousClock.now)
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(1))
                guard let self else { return }
                let now = ContinuousClock.now, dt = (now - last.at).seconds
                let frames = self.encodedVideoFrames, bytes = self.encodedVideoBytes
                var fields: [String: PipelineEvent.Value] = [
                    "viewers": .number(Double(self.viewerCount)),
                    "encoded_fps": .number(Double(frames - last.frames) / dt),
                    "encoded_video_kbps": .number(Double(bytes - last.bytes) * 8 / 1000 / dt)
                ]
                if let rate = self.encoderRate { fields["target_kbps"] = .number(Double(rate.current) / 1000) }
                if self.spec.send?.video?.encode.transcodeForViewers != nil {
                    fields["transcoded_viewers"] = .number(Double(self.transcodedViewerCount))
                }
                // With a ladder: viewers on each rung (`viewers_720p`…) and what each encodes.
                for r in self.renditions {
                    fields["viewers_\(r.name)"] = .number(Double(r.viewers))
                    fields["rendition_kbps_\(r.name)"] = .number(Double(r.bitsPerSecond) / 1000)
                }
                self.events.post("stats", fields)
                last = (frames, bytes, now)
            }
        }
        ticker.withLock { $0 = task }
    }

    /// What the control API's stop does for this stream (the server removes it).
    public func onStopRequest(_ handler: @escaping @Sendable () -> Void) { stopHandler.set(handler) }

    /// Ends the stream: every viewer's session (reason `shutdown`), then the pipeline
    /// (end-of-stream first, bounded by `drainTimeout`). The event log ends with it.
    public func stop(drainTimeout: Double = 2) async {
        builder.supervisor.stop()
        builder.sourceHold?.release() // held sources would keep the end of stream from passing
        ticker.withLock {
            $0?.cancel(); $0 = nil
        }
        await viewers.removeAllAndWait()
        let pipeline = pipeline
        // The wait covers the recordings (`send.*.record`), so their last segment is finished.
        await EndOfStream(arrivingAt: builder.receiveSinkPads) { _ = pipeline.sendEvent(.eos()) }.wait(timeout: drainTimeout)
        pipeline.setState(.null)
        for namer in builder.state.withLock({ $0.segmentNamers }) { namer.finish() }
        events.post("state", ["state": .text("stopped")])
        events.finish()
    }

    /// Viewers connected now.
    public var viewerCount: Int { viewers.count }
    /// Threads pushing the stream to its viewers now (`FanoutLanes`: a few per core, each
    /// carrying several viewers; 0 with no viewer, or with `--viewer-lanes 0`).
    public var viewerLaneCount: Int { viewers.lanesInUse }
    /// Viewers that get the stream encoded again (`passthrough: auto`), not the source's.
    public var transcodedViewerCount: Int { viewers.transcodedCount }
    /// Per codec, whether the stream is being encoded again for viewers now (`passthrough:
    /// auto`: only while one of them watches), and how many times that encoder has started.
    public var viewerTranscoding: [Codec: (running: Bool, starts: Int)] {
        builder.viewerTranscodes.mapValues { ($0.isBuilt, $0.builds) }
    }

    /// The segment each of the stream's recordings is writing now.
    public var segmentsBeingWritten: Set<String> {
        Set(builder.state.withLock { $0.segmentNamers }.compactMap { $0.written.segments.last })
    }

    /// One rung of the stream's ladder now.
    public struct RenditionFigures: Sendable {
        /// The rung's name, from the pipeline file's ladder.
        public var name: String
        /// Viewers on this rung.
        public var viewers: Int
        /// What the rung sends (measured over the last 2 s), bit/s.
        public var bitsPerSecond: Int
        /// Video frames this rung's encoder has produced so far.
        public var encodedFrames: Int
        /// Bytes of encoded video this rung has produced so far.
        public var encodedBytes: Int
    }

    /// The rungs of the stream's ladder, best first (empty without one).
    public var renditions: [RenditionFigures] {
        let outputs = builder.renditions
        guard !outputs.isEmpty else { return [] }
        let perRung = viewers.renditionFigures(rungs: outputs.count).viewers
        let now = StageTimer.now()
        return outputs.enumerated().map { i, o in
            RenditionFigures(
                name: o.rendition.name, viewers: i < perRung.count ? perRung[i] : 0, bitsPerSecond: o.rate(nowNs: now),
                encodedFrames: o.frames, encodedBytes: o.bytes)
        }
    }

    /// Viewers' moves up and down the ladder so far (nil without a ladder).
    public var renditionMoves: (up: Int, down: Int)? {
        let rungs = builder.renditions.count
        guard rungs > 0 else { return nil }
        let f = viewers.renditionFigures(rungs: rungs)
        return (f.up, f.down)
    }
    /// Frames encoded so far (one encoder per stream, however many viewers).
    public var encodedVideoFrames: Int { builder.counters.sendVideoFrames.load(ordering: .relaxed) }
    /// Cached frames (a passthrough stream's last group of pictures) sent to start viewers;
    /// nil unless the video passes through.
    public var cachedFramesSent: Int? { builder.gopCache?.replayedFrames }
    /// The stream's live network sources and their outages (none for a test pattern).
    public var sourceHealth: [RunSummary.SourceReport] { builder.supervisor.report(quiet: true) }
    /// Bytes of encoded video so far.
    public var encodedVideoBytes: Int { builder.counters.sendVideoBytes.load(ordering: .relaxed) }
    /// Statistics of the stream's Swift filters.
    public var filterStatistics: [FilterStatistics] { builder.swiftFilterStatistics }

    /// Adds a viewer for a WHEP offer; returns its id and the complete answer.
    public func addViewer(offer: String, layer: String?) async throws(RunError) -> (id: String, answer: String) {
        try await viewers.addViewer(offer: offer, layer: layer)
    }

    /// Adds trickled remote candidates to a viewer. False if the viewer is unknown.
    public func addCandidates(_ candidates: [(mid: String?, candidate: String)], toViewer id: String) -> Bool {
        viewers.addCandidates(candidates, toViewer: id)
    }

    /// Ends a viewer's session. False if unknown.
    @discardableResult
    public func removeViewer(_ id: String) -> Bool { viewers.removeViewer(id) }

    /// Holds viewer `id` on the layer named `layer`, or with nil lets its estimate choose
    /// again. False if the viewer is unknown; throws `RunError` naming the layers.
    public func pinLayer(_ layer: String?, ofViewer id: String) throws(RunError) -> Bool {
        try viewers.pin(viewer: id, to: layer)
    }

    /// The layers a viewer can be held on, best first (empty: one layer only).
    public var layerNames: [String] { viewers.layerNames }

    /// Ends every viewer's session (reason `shutdown`): the end of a drain.
    public func removeAllViewers() { viewers.removeAll() }

    /// The stream's pipeline now, as GStreamer's dot and as a text tree (viewers' branches
    /// included).
    public var graph: (dot: String, tree: String) { (GraphPicture.dot(of: pipeline), GraphPicture.tree(of: pipeline)) }

    /// Whether the stream's pipeline is PLAYING (what `/readyz` checks).
    public var isPlaying: Bool { pipeline.currentState() == .playing }

    /// Viewers removed so far, by reason (see `ViewerSource.viewerRemovals`).
    public var viewerRemovals: [String: Int] { viewers.removalCounts }

    /// What the viewers were sent and reported, as of the last statistics reading
    /// (`ViewerLimits.statsInterval`).
    public var viewerTraffic: ViewerTrafficReport { viewers.traffic }
}

/// A handler set after construction (the server's, for a stream's stop request).
package final class StopHandler: Sendable {
    private let handler = Mutex<(@Sendable () -> Void)?>(nil)
    package func set(_ h: @escaping @Sendable () -> Void) { handler.withLock { $0 = h } }
    package func call() { handler.withLock { $0 }?() }
}
