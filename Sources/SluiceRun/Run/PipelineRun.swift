import Foundation
import GStreamer
import SluiceSignalling
import Logging
import Synchronization

/// Options of one run.
public struct RunOptions: Sendable {
    /// Stop after this many seconds; nil runs until `stop` is set (Ctrl-C).
    public var duration: Double?
    /// Seconds between live statistics lines.
    public var statsInterval: Double
    /// Seconds to wait for end-of-stream to drain before forcing the pipeline to NULL.
    public var drainTimeout: Double
    /// Seconds between reads of webrtcbin's statistics (`get-stats`, the RTX and jitter-buffer
    /// counters): the live bitrate is the mean over this window, and it and the RTT repeat
    /// between reads (`LiveStats.wireRead` says which lines read them). The first statistics
    /// line reads them. 5 by default: read every second they cost 1.5% of `sluice measure`'s
    /// CPU (docs/benchmarks.md).
    public var webrtcStatsInterval: Double = 5

    /// Lines to send on the data channel that takes standard input (`stdin: true`).
    public var dataInput: AsyncStream<String>?
    /// Called with (label, text) for each message arriving on a data channel that prints.
    public var onDataMessage: (@Sendable (String, String) -> Void)?
    /// Times the video path's stages, encoder to decoder (`sluice measure`).
    public var stageTimer: StageTimer?
    /// Times the audio path's stages (`sluice measure` of a file with audio); made with `StagePath.audio`.
    public var audioStageTimer: StageTimer?
    /// Called with (filter, event, fields) for each event a Swift filter emits (e.g.
    /// `framestamp` with `latency_us`), from the bus watcher.
    public var onFilterEvent: (@Sendable (String, String, [String: Double]) -> Void)?

    /// Options for a run of `duration` seconds (nil: until stopped), with statistics every `statsInterval` seconds (1) and up to `drainTimeout` seconds (5) for end-of-stream to drain.
    public init(
        duration: Double? = nil, statsInterval: Double = 1, drainTimeout: Double = 5,
        dataInput: AsyncStream<String>? = nil, onDataMessage: (@Sendable (String, String) -> Void)? = nil
    ) {
        self.duration = duration; self.statsInterval = statsInterval; self.drainTimeout = drainTimeout
        self.dataInput = dataInput; self.onDataMessage = onDataMessage
    }
}

/// Runs one pipeline spec: builds the graph, negotiates WebRTC, reports statistics while it
/// runs, and tears everything down (EOS, then NULL).
public final class PipelineRun: Sendable {
    /// The pipeline file this run plays.
    public let spec: PipelineSpec
    package let logger: Logger
    private let failure = Mutex<RunError?>(nil)
    /// The graph and peers of the run in progress (for hot swap and inspection).
    private let live = Mutex<LiveRun?>(nil)
    /// What happens during the run (statistics each interval, filter events, the session,
    /// errors): the control API streams it.
    public let events = PipelineEvents()
    /// The latest WebRTC statistics of the sending and receiving peers (for `/metrics`).
    package let latestStats = Mutex<(sent: WebRTCStats, received: WebRTCStats)>((WebRTCStats(), WebRTCStats()))

    /// A run of `spec`, not started yet; for a WebRTC transport it starts making GStreamer's DTLS key at once (`DTLSWarmUp`).
    public init(spec: PipelineSpec, logger: Logger = Logger(label: "sluice")) {
        self.spec = spec
        self.logger = logger
        if spec.transport.kind.usesWebRTC { DTLSWarmUp.begin() }
    }

    private func fail(_ e: RunError) {
        let first = failure.withLock { f -> Bool in
            guard f == nil else { return false }
            f = e
            return true
        }
        if first { events.post("error", ["message": .text(e.description)]) }
    }
    private var failed: RunError? { failure.withLock { $0 } }

    /// Runs until `options.duration` elapses or `stop` is set, and returns the summary.
    /// Throws `RunError` for runtime failures (missing elements, negotiation, ICE timeout,
    /// errors posted by elements).
    public func run(
        options: RunOptions = RunOptions(), stop: StopFlag = StopFlag(),
        onStats: @escaping @Sendable (LiveStats) -> Void = { _ in }
    ) async throws(RunError) -> RunSummary {
        Gst.initialize()
        let clock = RunClock()
        defer {
            live.withLock { $0 = nil }
            events.post("state", ["state": .text("stopped")])
            events.finish()
        }
        let active = try await build(options: options, started: clock.started)
        defer { active.abandon() }
        try await start(active, options: options, stop: stop, clock: clock)
        try await watch(active, options: options, stop: stop, clock: clock, onStats: onStats)
        return await finish(active, options: options, clock: clock)
    }

    /// The pipeline with the transport kind's webrtcbins (`Transport/`: one type per kind),
    /// the file's data channels and the bus watch; not playing yet.
    private func build(options: RunOptions, started: ContinuousClock.Instant) async throws(RunError) -> ActiveRun {
        let counters = RunCounters(start: started)
        let pipeline = SendLatency.pipeline(named: "sluice")
        options.stageTimer?.watch(pipeline)
        options.audioStageTimer?.watch(pipeline)
        let builder = GraphBuilder(
            spec: spec, pipeline: pipeline, counters: counters, stageTimer: options.stageTimer,
            audioStageTimer: options.audioStageTimer)
        guard let kind = spec.transport.kind.transport else {
            throw RunError("unknown transport kind '\(spec.transport.kind)'", at: spec.transport.location)
        }
        let setup = try await kind.prepare(TransportContext(spec: spec, pipeline: pipeline, builder: builder, logger: logger))
        let channels = dataChannels(required: kind.requiredDataChannel, onMessage: options.onDataMessage)
        if let channels, let bin = setup.acceptsChannels { channels.accept(on: bin) }
        superviseSources(builder.supervisor)
        let bus = watchBus(pipeline, builder: builder, onFilterEvent: options.onFilterEvent)
        return ActiveRun(pipeline: pipeline, builder: builder, setup: setup, channels: channels, bus: bus)
    }

    /// Plays the pipeline, opens the data channels, and negotiates the session: returns once
    /// ICE connected (or the session's other side never turned up before `stop`).
    private func start(_ active: ActiveRun, options: RunOptions, stop: StopFlag, clock: RunClock) async throws(RunError) {
        let builder = active.builder, setup = active.setup
        if active.pipeline.setState(.playing) == .failure {
            try? await Task.sleep(for: .milliseconds(100))
            throw failed ?? RunError("the pipeline could not start (GStreamer refused the PLAYING state)")
        }
        builder.counters.mark(StartUpStep.playing)
        // webrtcbin takes `create-data-channel` only once it has left the NULL state.
        if let channels = active.channels, let bin = setup.opensChannels { try channels.open(on: bin) }
        active.gates = openStartGates(when: setup.sending, builder: builder)
        let control = PipelineControl(spec: spec, builder: builder, channels: active.channels, events: events) { stop.set() }
        live.withLock { $0 = LiveRun(builder: builder, sender: setup.sending, control: control, session: setup.session) }
        events.post("state", ["state": .text("playing")])
        if let session = setup.session, !setup.connecting.isEmpty {
            let deadline = options.duration.map { clock.started + .milliseconds(Int($0 * 1000)) }
            if try await session.negotiate(stop: stop, deadline: deadline) {
                builder.counters.mark(StartUpStep.negotiated)
                // ICE and DTLS are under way: the first keyframe is made meanwhile.
                builder.readyStartGates()
                try await waitForICE(setup.connecting)
                builder.counters.mark(StartUpStep.iceConnected)
            } else {
                // Stopped before the other side turned up (a callee nobody called): send
                // branches held for an offer would hold the drain, and then the state change
                // to NULL, behind their blocked pads.
                builder.releaseSend()
            }
        }
        if let channels = active.channels, let label = channels.stdinLabel, let input = options.dataInput {
            active.inputTask = Task.detached { for await line in input { channels.send(line, on: label) } }
        }
    }

    /// Ticks statistics until the duration passes, `stop` is set, the session or every source
    /// ends; throws what failed.
    private func watch(
        _ active: ActiveRun, options: RunOptions, stop: StopFlag, clock: RunClock,
        onStats: @escaping @Sendable (LiveStats) -> Void
    ) async throws(RunError) {
        var ticker = LiveTicker(iceState: active.setup.sending?.states.iceConnection ?? "none", started: clock.started)
        var sourcesEnded = false
        while true {
            if let e = active.builder.asyncError ?? failed {
                try await stopOnFailure(e, active)
                return
            }
            // Sources that ended because an element failed (a filter with `on_error: fail`
            // ends its source too) are a failure: the check above has run once more since.
            if sourcesEnded || stop.isSet { return }
            let now = ContinuousClock.now
            if let d = options.duration, (now - clock.started).seconds >= d { return }
            if let session = active.setup.session, let why = try await session.tick() {
                logger.info("\(why); stopping")
                return
            }
            let sendBranches = spec.sendBranches.count
            if sendBranches > 0, active.builder.counters.endedSendBranches.load(ordering: .relaxed) >= sendBranches {
                logger.info("every send branch reached the end of its source; stopping")
                // Let what is in flight cross the jitter buffer before draining, and a bus
                // error that came with the end reach the failure check.
                try? await Task.sleep(for: .milliseconds(spec.transport.latencyMs * 2 + 100))
                sourcesEnded = true
                continue
            }
            if (now - ticker.lastTick).seconds >= options.statsInterval {
                await tickStats(
                    &ticker, active, now: now, elapsed: (now - clock.started).seconds, wireInterval: options.webrtcStatsInterval,
                    onStats: onStats)
            }
            // 5 wake-ups a second: enough for Ctrl-C and failures to act within 200 ms, few
            // enough not to show in the process's CPU time next to the media threads.
            try? await Task.sleep(for: .milliseconds(200))
        }
    }

    /// A failure while running: a peer that ended the session (a room's `bye`) tears down
    /// its transport as it goes, and the errors that follow (SCTP, DTLS) are its leaving, not a
    /// failure: its goodbye gets a moment (bounded) to arrive first. Otherwise tears down as
    /// cleanly as a normal stop (end-of-stream first, bounded: going straight to NULL from an
    /// error left webrtcbin's DTLS connections alive in 1.22), and throws `error`.
    private func stopOnFailure(_ error: RunError, _ active: ActiveRun) async throws(RunError) {
        active.gates?.cancel()
        active.builder.supervisor.stop()
        if let session = active.setup.session, session.peerMayLeave, let why = await Self.endedByPeer(session) {
            logger.info("\(why); stopping")
            return
        }
        await drain(pipeline: active.pipeline, builder: active.builder, timeout: 1)
        await active.endSession()
        throw error
    }

    /// One statistics line: rates since the last tick, the peers' figures (read every
    /// `wireInterval` seconds), congestion.
    private func tickStats(
        _ ticker: inout LiveTicker, _ active: ActiveRun, now: ContinuousClock.Instant, elapsed: Double,
        wireInterval: Double, onStats: @Sendable (LiveStats) -> Void
    ) async {
        let counters = active.builder.counters
        let dt = (now - ticker.lastTick).seconds
        ticker.lastTick = now
        let readsWire = !ticker.wireRead || (now - ticker.wire.at).seconds >= wireInterval - 0.05
        if readsWire {
            let sent = await currentStats(active.setup.sending, counters: counters) ?? ticker.wire.sent
            let received = await currentStats(active.setup.receiving, counters: counters)
            ticker.wire = ticker.wire.next(sent: sent, received: received, now: now)
            ticker.wireRead = true
            latestStats.withLock { $0 = (ticker.wire.sent, ticker.wire.received) }
        }
        ticker.iceState = active.setup.sending?.states.iceConnection ?? "none"
        let totals = TickTotals(counters)
        var live = totals.liveStats(since: ticker.last, seconds: dt, elapsed: elapsed, wire: ticker.wire)
        live.wireRead = readsWire
        live.iceState = ticker.iceState
        live.sendsVideo = spec.send?.video != nil
        live.receivesVideo = spec.receive?.video != nil
        if let f = active.builder.congestion?.figures {
            live.congestion = (Double(f.targetBps) / 1000, Double(f.delayBps) / 1000, Double(f.lossBps) / 1000, f.reports)
            if f.reports == 0, elapsed >= 5, !ticker.warnedNoFeedback {
                ticker.warnedNoFeedback = true
                logger.warning(
                    "encode.bitrate {min, start, max} or adaptive_layers: no congestion feedback (transport-cc) has arrived, so the video's bitrate and layers stay as they started; the peer did not negotiate it"
                )
            }
        }
        let level = (
            squares: counters.receiveAudioSquares.load(ordering: .relaxed),
            samples: counters.receiveAudioSamples.load(ordering: .relaxed)
        )
        live.receiveAudioLevelDB = RunCounters.levelDB(from: ticker.lastLevel, to: level)
        ticker.lastLevel = level
        onStats(live)
        events.post("stats", live.eventFields)
        ticker.last = totals
    }

    /// Drains, stops the pipeline, ends the session, and sums the run up.
    private func finish(_ active: ActiveRun, options: RunOptions, clock: RunClock) async -> RunSummary {
        let builder = active.builder, setup = active.setup
        let duration = (ContinuousClock.now - clock.started).seconds
        let finalStats = await currentStats(setup.sending, counters: builder.counters) ?? WebRTCStats()
        let receiverStats = await currentStats(setup.receiving, counters: builder.counters) ?? WebRTCStats()
        let iceState = setup.sending?.states.iceConnection ?? "none"
        // Gates still waiting for the connection must not open (and replay cached frames into
        // a payloader) while the pipeline drains and goes to NULL.
        active.gates?.cancel()
        builder.supervisor.stop()
        await drain(pipeline: active.pipeline, builder: builder, timeout: options.drainTimeout)
        active.channels?.close()
        active.pipeline.setState(.null)
        active.stopped = true
        await active.endSession()
        var result = summary(
            counters: builder.counters, duration: duration, cpu: processCPUSeconds() - clock.cpu,
            sent: finalStats, received: receiverStats, iceState: iceState)
        if let k = builder.keyframeRequestCounts {
            result.network.keyframe_requests = k.passed
            result.network.keyframe_requests_coalesced = k.coalesced
        }
        result.network.keyframe_requests_unanswered = builder.unansweredKeyframeRequests
        if !builder.simulcastReport.isEmpty { result.send.video?.simulcast = builder.simulcastReport }
        result.filters = builder.swiftFilterStatistics.map {
            RunSummary.FilterReport(
                filter: $0.filter, element: $0.element, frames: $0.frames.load(ordering: .relaxed),
                dropped: $0.dropped.load(ordering: .relaxed), errors: $0.errors.load(ordering: .relaxed),
                events: $0.events, last_error: $0.lastError,
                last_event_fields: $0.lastEventFields.isEmpty ? nil : $0.lastEventFields)
        }
        result.data_channels = active.channels?.report ?? []
        result.sources = builder.supervisor.report()
        result.recordings = builder.state.withLock { $0.segmentNamers }.map {
            $0.finish()
            let written = $0.written
            return RunSummary.RecordingReport(path: $0.template.text, segments: written.segments, deleted: written.deleted)
        }
        setup.session?.fill(&result)
        return result
    }

    /// Why the remote side ended the session, if it says so within half a second.
    private static func endedByPeer(_ remote: any RemoteSession) async -> String? {
        for _ in 0..<5 {
            if let why = try? await remote.tick() { return why }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return nil
    }

    /// The data channels the file declares (a kind that needs one, such as the camera API,
    /// gets `required` when the file declares none).
    private func dataChannels(required: String?, onMessage: (@Sendable (String, String) -> Void)?) -> DataChannelHub? {
        var specs = spec.transport.dataChannels
        if let required, specs.isEmpty { specs = [DataChannelSpec(label: required)] }
        guard !specs.isEmpty else { return nil }
        return DataChannelHub(specs: specs, onMessage: onMessage ?? { _, _ in })
    }

    /// webrtcbin's statistics for a peer; without WebRTC, the encoded bytes stand in for
    /// the bytes sent.
    private func currentStats(_ peer: WebRTCPeer?, counters: RunCounters) async -> WebRTCStats? {
        if let peer {
            guard var stats = await peer.stats().map(WebRTCStats.init) else { return nil }
            stats.rtxPacketsSent = WebRTCStats.retransmittedPackets(in: peer.webrtcbin)
            stats.readJitterBuffers(in: peer.webrtcbin)
            return stats
        }
        var s = WebRTCStats()
        s.bytesSent = counters.sendVideoBytes.load(ordering: .relaxed)
        return s
    }

    // MARK: Live changes

    /// Replaces the filters of a branch of the running pipeline (insert, remove, reorder or
    /// reconfigure) without stopping it or renegotiating the WebRTC session.
    public func replaceFilters(_ side: BranchSide, _ media: MediaKind, with filters: [FilterSpec]) async throws(RunError) {
        guard let builder = live.withLock({ $0?.builder }) else { throw RunError("the pipeline is not running") }
        try await builder.replaceFilters(side: side, media: media, with: filters)
    }

    /// Sets new settings on a branch's running encoded filters: the same filters in the same
    /// order, other settings (`GraphBuilder.reconfigureEncodedFilters`).
    public func reconfigureEncodedFilters(_ side: BranchSide, _ media: MediaKind, with filters: [FilterSpec]) throws(RunError) {
        guard let builder = live.withLock({ $0?.builder }) else { throw RunError("the pipeline is not running") }
        try builder.reconfigureEncodedFilters(side: side, media: media, with: filters)
    }

    /// Replaces a send branch's encoded filters while it runs: new settings of the same
    /// filters in place, another list swapped in at an idle moment of the encoder's output
    /// (`GraphBuilder.replaceEncodedFilters`).
    public func replaceEncodedFilters(_ media: MediaKind, with filters: [FilterSpec]) async throws(RunError) {
        guard let builder = live.withLock({ $0?.builder }) else { throw RunError("the pipeline is not running") }
        try await builder.replaceEncodedFilters(media: media, with: filters)
    }

    /// The control handle of the run in progress (nil before it plays and after it ends).
    public var control: PipelineControl? { live.withLock { $0?.control } }

    /// Offers this run has made (1 after the initial negotiation; a renegotiation adds one).
    public var offersMade: Int { live.withLock { $0?.session?.offersMade } ?? 0 }

    /// The graph of the run in progress, as GStreamer's dot and as a text tree (nil before
    /// the pipeline is built and after the run).
    public func snapshot() -> (dot: String, tree: String)? {
        guard let pipeline = live.withLock({ $0?.builder.pipeline }) else { return nil }
        return (GraphPicture.dot(of: pipeline), GraphPicture.tree(of: pipeline))
    }

    /// How often the sending webrtcbin asked for negotiation during this run.
    public var negotiationRequests: Int { live.withLock { $0?.sender?.negotiationNeededCount } ?? 0 }

    /// The running pipeline's counters (nil when not running).
    public var counters: RunCounters? { live.withLock { $0?.builder.counters } }

    /// Statistics of every Swift filter element the run created so far.
    public var filterStatistics: [FilterStatistics] { live.withLock { $0?.builder.swiftFilterStatistics } ?? [] }

    // MARK: Negotiate

    private func waitForICE(_ peers: [WebRTCPeer]) async throws(RunError) {
        let timeout = spec.transport.ice.connectTimeout
        for peer in peers {
            let ok = await peer.wait(timeout: timeout) { $0.iceConnected || $0.iceFailed }
            if let e = failed { throw e }
            if ok && peer.states.iceConnected { continue }
            var why = "ICE did not connect within \(String(format: "%g", timeout)) s (state \(peer.states.iceConnection))"
            if peer.gatheredCandidateCount == 0 {
                why +=
                    ": the \(peer.label) gathered no candidates. libnice skips loopback and finds no other interface here;"
                    + " set transport.ice.addresses (e.g. [127.0.0.1]) to gather on a given address"
            } else if spec.transport.ice.policy == .relay {
                why += ": policy 'relay' allows only TURN candidates; check transport.ice.turn"
            } else {
                why += ": check transport.ice (addresses, stun, turn) and that the peers can reach each other"
            }
            throw RunError(why, at: spec.transport.ice.location ?? spec.transport.location)
        }
    }

    // MARK: Bus

    private func watchBus(
        _ pipeline: Pipeline, builder: GraphBuilder,
        onFilterEvent: (@Sendable (String, String, [String: Double]) -> Void)?
    ) -> BusWatch {
        let logger = logger
        let labels = builder.sourceLabel(of:), supervisor = builder.supervisor
        // Read on the bus's own thread: `sluice measure` gets a message per frame.
        return pipeline.bus.watch([.error, .latency, .warning, .element]) { [weak self] message in
            switch message.kind {
            case .error:
                let (text, debug) = message.parsedError ?? ("unknown error", nil)
                let label = message.sourceLineage.lazy.compactMap(labels).first
                logger.debug("\(label?.redact("error from \(message.sourceName): \(text) \(debug ?? "")") ?? "")")
                let reason = debug?.split(separator: "\n").last.map { " (\($0))" } ?? ""
                let said = "\(label?.text ?? message.sourceName): \(text)\(reason)"
                // A live source that had delivered is reconnected, not the end of the run.
                if supervisor.handleError(from: message.sourceLineage, reason: label?.redact(text + reason) ?? text) { return }
                self?.fail(RunError(label?.redact(said) ?? said))
            case .latency:
                // A jitter buffer now waits longer for retransmissions: sinks must know, and
                // so must a lip-synced playout.
                pipeline.recalculateLatency()
                builder.alignPlayout()
            case .warning:
                let (text, _) = message.parsedError ?? ("", nil)
                let label = message.sourceLineage.lazy.compactMap(labels).first
                logger.warning("\(label.map { $0.redact("\($0.text): \(text)") } ?? "\(message.sourceName): \(text)")")
            case .element:
                guard let s = message.structure else { break }
                if s.name == "sluice-filter-warning" {
                    logger.warning("\(s.get("message", as: String.self) ?? "a filter reported a problem")")
                } else if let e = FilterEventMessage(s) {
                    onFilterEvent?(e.filter, e.event, e.fields)
                    self?.events.postFilterEvent(filter: e.filter, event: e.event, fields: e.fields)
                }
            default:
                break
            }
        }
    }

    /// Opens the send branches' start gates once `peer`'s connection is up (ICE and DTLS: what
    /// webrtcbin waits for before RTP leaves). Should the state never say so, the gates open
    /// anyway when ICE's own deadline has passed, with a warning: media late, never stuck.
    private func openStartGates(when peer: WebRTCPeer?, builder: GraphBuilder) -> Task<Void, Never> {
        guard let peer else {
            builder.openStartGates()
            return Task {}
        }
        let limit = Double(spec.transport.ice.connectTimeout) + 5, logger = logger
        return Task.detached {
            let connected = await peer.wait(timeout: limit) { $0.connection == "connected" }
            if Task.isCancelled { return }
            if !connected { logger.warning("the connection did not report 'connected' within \(Int(limit)) s; sending anyway") }
            builder.counters.mark(StartUpStep.connected)
            builder.openStartGates()
        }
    }

    // MARK: Stop

    /// EOS into every source and every receive branch (RTP carries no end-of-stream), then
    /// waits until each receive sink has seen it, so files are finalized.
    private func drain(pipeline: Pipeline, builder: GraphBuilder, timeout: Double) async {
        let entrances = builder.receiveEntrances, unused = builder.unusedRecordingPads
        let eos = EndOfStream(arrivingAt: builder.receiveSinkPads) {
            _ = pipeline.sendEvent(.eos())
            for entrance in entrances { entrance.sendEvent(.eos()) }
            for pad in unused { pad.sendEvent(.eos()) }
        }
        await eos.wait(timeout: timeout)
        if !eos.isSent {
            logger.warning(
                "end-of-stream could not be sent within \(timeout) s (a branch is held inside webrtcbin, e.g. media the other peer did not accept); stopping anyway"
            )
            // The send holds state locks (the pipeline's, and webrtcbin's: a bin holding a
            // source counts as one), so nothing can go to NULL yet. Deactivating webrtcbin's
            // inputs needs no state lock: it flushes them, which releases the held thread.
            for pad in builder.webrtcInputs.values { pad.setActive(false) }
            await eos.waitUntilSent(timeout: 2)
        } else if eos.pending > 0 {
            logger.warning("end-of-stream did not reach every receive sink within \(timeout) s; stopping anyway")
        }
    }

    private func summary(
        counters: RunCounters, duration: Double, cpu: Double, sent: WebRTCStats,
        received: WebRTCStats, iceState: String
    ) -> RunSummary {
        let vFrames = counters.receiveVideoFrames.load(ordering: .relaxed)
        // GStreamer's DTLS key is a step of this run if it was made after the run started.
        if spec.transport.kind.usesWebRTC, let made = DTLSWarmUp.finishedAt { counters.mark(StartUpStep.dtlsKey, at: made) }
        let first = counters.firstFrameNanos.load(ordering: .relaxed)
        return RunSummary(
            pipeline: spec.file, duration_s: duration,
            send: .init(
                video: spec.send?.video.map { _ in
                    .init(
                        captured: counters.captureVideoFrames.load(ordering: .relaxed),
                        filtered: counters.filteredVideoFrames.load(ordering: .relaxed),
                        frames: counters.sendVideoFrames.load(ordering: .relaxed),
                        codec: counters.noted("send.video.codec"),
                        bytes: counters.sendVideoBytes.load(ordering: .relaxed),
                        passthrough: counters.noted("send.video.passthrough").map { _ in true })
                },
                audio: spec.send?.audio.map { _ in
                    .init(
                        buffers: counters.sendAudioBuffers.load(ordering: .relaxed),
                        codec: counters.noted("send.audio.codec"),
                        passthrough: counters.noted("send.audio.passthrough").map { _ in true })
                }),
            receive: .init(
                video: spec.receive?.video.map { _ in
                    let freezes = counters.receiveVideoFreezes.withLock { $0 }
                    return .init(
                        frames: vFrames,
                        width: counters.receiveVideoWidth.load(ordering: .relaxed),
                        height: counters.receiveVideoHeight.load(ordering: .relaxed),
                        fps: duration > 0 ? Double(vFrames) / duration : 0,
                        codec: counters.noted("receive.video.codec"), freezes: freezes.count,
                        freeze_ms: (freezes.totalMs * 10).rounded() / 10, longest_freeze_ms: (freezes.longestMs * 10).rounded() / 10)
                },
                audio: spec.receive?.audio.map { _ in
                    .init(
                        buffers: counters.receiveAudioBuffers.load(ordering: .relaxed),
                        codec: counters.noted("receive.audio.codec"))
                }),
            time_to_first_frame_ms: first > 0 ? Double(first) / 1e6 : nil,
            start_up_steps: counters.startUpSteps,
            ice_state: iceState,
            network: .init(
                bytes_sent: sent.bytesSent, packets_sent: sent.packetsSent,
                bytes_received: received.bytesReceived, packets_received: received.packetsReceived,
                packets_lost: sent.packetsLost, rtt_ms: sent.roundTripMs, jitter_ms: received.jitterMs,
                bitrate_kbps: duration > 0 ? Double(sent.bytesSent > 0 ? sent.bytesSent : received.bytesReceived) * 8 / 1000 / duration : 0,
                nack_count: sent.nackCount + received.nackCount, pli_count: sent.pliCount + received.pliCount,
                fir_count: sent.firCount + received.firCount, rtx_packets_sent: sent.rtxPacketsSent,
                rtx_repaired: received.rtxRepaired, jitter_buffer_latency_ms: received.jitterBufferLatencyMs),
            cpu_seconds: cpu, gstreamer_version: Gst.version)
    }
}

extension Duration {
    package var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
