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

    public init(duration: Double? = nil, statsInterval: Double = 1, drainTimeout: Double = 5) {
        self.duration = duration; self.statsInterval = statsInterval; self.drainTimeout = drainTimeout
    }
}

/// Runs one pipeline spec: builds the graph, negotiates WebRTC, reports statistics while it
/// runs, and tears everything down (EOS, then NULL).
public final class PipelineRun: Sendable {
    public let spec: PipelineSpec
    private let logger: Logger
    private let failure = Mutex<RunError?>(nil)
    /// The graph and peers of the run in progress (for hot swap and inspection).
    private let live = Mutex<(builder: GraphBuilder, sender: WebRTCPeer?)?>(nil)
    private let offers = Atomic<Int>(0)

    public init(spec: PipelineSpec, logger: Logger = Logger(label: "sluice")) {
        self.spec = spec
        self.logger = logger
    }

    private func fail(_ e: RunError) { failure.withLock { if $0 == nil { $0 = e } } }
    private var failed: RunError? { failure.withLock { $0 } }

    /// Runs until `options.duration` elapses or `stop` is set, and returns the summary.
    /// Throws `RunError` for runtime failures (missing elements, negotiation, ICE timeout,
    /// errors posted by elements).
    public func run(options: RunOptions = RunOptions(), stop: StopFlag = StopFlag(),
                    onStats: @escaping @Sendable (LiveStats) -> Void = { _ in }) async throws(RunError) -> RunSummary {
        Gst.initialize()
        let started = ContinuousClock.now
        let cpuStart = processCPUSeconds()
        let counters = RunCounters(start: started)
        let pipeline = Pipeline(name: "sluice")
        let builder = GraphBuilder(spec: spec, pipeline: pipeline, counters: counters)
        defer { live.withLock { $0 = nil } }

        let peers: (sender: WebRTCPeer, receiver: WebRTCPeer)?
        var player: WebRTCPeer?
        switch spec.transport.kind {
        case .loopback:
            peers = try buildLoopback(pipeline: pipeline, builder: builder)
        case .noTransport:
            peers = nil
            for branch in [spec.send?.video, spec.send?.audio].compactMap({ $0 }) {
                try builder.buildSend(branch, into: nil)
            }
        case .server:
            throw RunError("this file is for `sluice serve` (transport kind server): serve it with "
                + "`sluice serve --pipeline \(spec.file)` or `--receive \(spec.file)`", at: spec.transport.location)
        case .whep:
            peers = nil
            player = try buildPlayer(pipeline: pipeline, builder: builder)
        case .whip:
            peers = nil
            let bin = try makeWebRTCBin("publish")
            do { try pipeline.add(bin) } catch { throw RunError(error.message) }
            if !spec.transport.ice.addresses.isEmpty {
                do { try ICEAgent.addLocalAddresses(spec.transport.ice.addresses, to: bin) } catch {
                    throw RunError("transport.ice.addresses: \(error.message)", at: spec.transport.ice.location)
                }
            }
            for branch in [spec.send?.video, spec.send?.audio].compactMap({ $0 }) {
                try builder.buildSend(branch, into: bin)
            }
            player = WebRTCPeer(bin, label: "publisher")
        }
        let busTask = watchBus(pipeline)
        defer { busTask.cancel() }

        var stopped = false
        defer {
            if !stopped { pipeline.setState(.null) }
        }

        if pipeline.setState(.playing) == .failure {
            try? await Task.sleep(for: .milliseconds(100))
            throw failed ?? RunError("the pipeline could not start (GStreamer refused the PLAYING state)")
        }

        live.withLock { $0 = (builder, peers?.sender) }
        if let peers {
            try await negotiate(sender: peers.sender, receiver: peers.receiver)
            try await waitForICE([peers.sender, peers.receiver])
        }
        var whepSession: (client: WHIPClient, session: URL)?
        if let player {
            whepSession = try await play(player)
            try await waitForICE([player])
        }
        let sessionEnded = StopFlag()
        defer {
            // On a failure, still tell the server (best effort) so it does not keep a viewer.
            if let s = whepSession, !sessionEnded.isSet { Task.detached { await s.client.delete(session: s.session) } }
        }

        // Running: tick statistics until duration, stop or failure.
        var lastTick = ContinuousClock.now
        var last = (send: 0, recv: 0, audio: 0, bytes: 0)
        var lastStats = WebRTCStats()
        let statsPeer = peers?.sender ?? player
        var iceState = statsPeer?.states.iceConnection ?? "none"
        while true {
            if let e = builder.asyncError ?? failed {
                // Tear down as cleanly as a normal stop: end-of-stream first (bounded), so
                // elements such as the DTLS connections shut down before NULL. Going straight
                // to NULL from an error left webrtcbin's DTLS connections alive in 1.22.
                await drain(pipeline: pipeline, builder: builder, timeout: 1)
                throw e
            }
            let now = ContinuousClock.now
            let elapsed = (now - started).seconds
            if stop.isSet { break }
            if let d = options.duration, elapsed >= d { break }
            let sendBranches = [spec.send?.video, spec.send?.audio].compactMap { $0 }.count
            if sendBranches > 0, counters.endedSendBranches.load(ordering: .relaxed) >= sendBranches {
                logger.info("every send branch reached the end of its source; stopping")
                // Let what is in flight cross the jitter buffer before draining.
                try? await Task.sleep(for: .milliseconds(spec.transport.latencyMs * 2 + 100))
                break
            }
            if (now - lastTick).seconds >= options.statsInterval {
                let dt = (now - lastTick).seconds
                lastTick = now
                let stats = await currentStats(peers?.sender ?? player, counters: counters) ?? lastStats
                let recvStats = await currentStats(peers?.receiver ?? player, counters: counters)
                iceState = statsPeer?.states.iceConnection ?? "none"
                let cur = (send: counters.sendVideoFrames.load(ordering: .relaxed),
                           recv: counters.receiveVideoFrames.load(ordering: .relaxed),
                           audio: counters.receiveAudioBuffers.load(ordering: .relaxed),
                           // A receive-only run (WHEP) counts what arrives.
                           bytes: stats.bytesSent > 0 ? stats.bytesSent : (recvStats?.bytesReceived ?? 0))
                onStats(LiveStats(elapsed: elapsed, sendFps: Double(cur.send - last.send) / dt,
                                  receiveFps: Double(cur.recv - last.recv) / dt,
                                  receiveAudioPerSecond: Double(cur.audio - last.audio) / dt,
                                  bitrateKbps: Double(max(0, cur.bytes - last.bytes)) * 8 / 1000 / dt,
                                  roundTripMs: stats.roundTripMs ?? recvStats?.roundTripMs,
                                  iceState: iceState))
                last = cur
                lastStats = stats
            }
            // 5 wake-ups a second: enough for Ctrl-C and failures to act within 200 ms, few
            // enough not to show in the process's CPU time next to the media threads.
            try? await Task.sleep(for: .milliseconds(200))
        }

        let duration = (ContinuousClock.now - started).seconds
        let finalStats = await currentStats(peers?.sender ?? player, counters: counters) ?? lastStats
        let receiverStats = await currentStats(peers?.receiver ?? player, counters: counters) ?? WebRTCStats()
        iceState = statsPeer?.states.iceConnection ?? "none"
        await drain(pipeline: pipeline, builder: builder, timeout: options.drainTimeout)
        pipeline.setState(.null)
        stopped = true
        if let s = whepSession {
            await s.client.delete(session: s.session)
            sessionEnded.set()
        }
        let cpu = processCPUSeconds() - cpuStart
        var result = summary(counters: counters, duration: duration, cpu: cpu, sent: finalStats,
                             received: receiverStats, iceState: iceState)
        result.filters = builder.swiftFilterStatistics.map {
            RunSummary.FilterReport(filter: $0.filter, element: $0.element, frames: $0.frames.load(ordering: .relaxed),
                                    dropped: $0.dropped.load(ordering: .relaxed), errors: $0.errors.load(ordering: .relaxed),
                                    events: $0.events, last_error: $0.lastError)
        }
        return result
    }

    /// webrtcbin's statistics for a peer; without WebRTC, the encoded bytes stand in for
    /// the bytes sent.
    private func currentStats(_ peer: WebRTCPeer?, counters: RunCounters) async -> WebRTCStats? {
        if let peer { return await peer.stats().map(WebRTCStats.init) }
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

    /// Offers this run has made (1 after the initial negotiation; a renegotiation adds one).
    public var offersMade: Int { offers.load(ordering: .relaxed) }

    /// How often the sending webrtcbin asked for negotiation during this run.
    public var negotiationRequests: Int { live.withLock { $0?.sender?.negotiationNeededCount } ?? 0 }

    /// The running pipeline's counters (nil when not running).
    public var counters: RunCounters? { live.withLock { $0?.builder.counters } }

    /// Statistics of every Swift filter element the run created so far.
    public var filterStatistics: [FilterStatistics] { live.withLock { $0?.builder.swiftFilterStatistics } ?? [] }

    // MARK: Build

    private func makeWebRTCBin(_ name: String) throws(RunError) -> Element {
        let t = spec.transport
        let bin: Element
        do { bin = try Element.make("webrtcbin", name: name) } catch {
            throw RunError(KnownElements.missingHint(for: "webrtcbin"), at: t.location)
        }
        do {
            try bin.set("bundle-policy", fromString: t.bundlePolicy.rawValue)
            try bin.set("latency", UInt32(t.latencyMs))
            if let stun = t.ice.stun { try bin.set("stun-server", stun) }
            if let turn = t.ice.turn.first { try bin.set("turn-server", turn) }
            for extra in t.ice.turn.dropFirst() { _ = try bin.emit("add-turn-server", extra) }
            if bin.hasProperty("ice-transport-policy") {
                try bin.set("ice-transport-policy", fromString: t.ice.policy.rawValue)
            }
        } catch {
            throw RunError("cannot configure webrtcbin: \(error.message)", at: t.location)
        }
        ICEAgent.disableUPnP(on: bin)
        return bin
    }

    private func buildLoopback(pipeline: Pipeline, builder: GraphBuilder) throws(RunError) -> (WebRTCPeer, WebRTCPeer) {
        let sendBin = try makeWebRTCBin("send")
        let recvBin = try makeWebRTCBin("recv")
        do { try pipeline.add([sendBin, recvBin]) } catch { throw RunError(error.message) }
        let sender = WebRTCPeer(sendBin, label: "sender")
        let receiver = WebRTCPeer(recvBin, label: "receiver")

        if !spec.transport.ice.addresses.isEmpty {
            for bin in [sendBin, recvBin] {
                do { try ICEAgent.addLocalAddresses(spec.transport.ice.addresses, to: bin) } catch {
                    throw RunError("transport.ice.addresses: \(error.message)", at: spec.transport.ice.location)
                }
            }
        }
        // Loopback signalling: candidates go straight to the other peer (queued by the peer
        // until its remote description is set).
        sender.onLocalCandidate { [weak receiver] c in receiver?.addRemoteCandidate(c) }
        receiver.onLocalCandidate { [weak sender] c in sender?.addRemoteCandidate(c) }

        // Weak: the builder owns the pipeline, which owns recvBin and so this handler.
        recvBin.connect("pad-added") { [weak builder] (args: borrowing SignalArguments) in
            guard let pad = args.object(1, as: Pad.self) else { return }
            builder?.buildReceive(for: pad)
        }

        // A receive side that only accepts some codecs declares them up front, the way a
        // remote peer's capabilities would constrain the answer.
        for branch in [spec.receive?.video, spec.receive?.audio].compactMap({ $0 }) where !branch.codecs.isEmpty {
            let caps = branch.codecs.map(EncoderPresets.rtpCaps(for:)).joined(separator: ";")
            do {
                let c = try Caps(caps)
                _ = try recvBin.emit("add-transceiver", "recvonly", c)
            } catch {
                throw RunError("cannot declare accepted codecs: \(error.message)", at: branch.location)
            }
        }

        for branch in [spec.send?.video, spec.send?.audio].compactMap({ $0 }) {
            try builder.buildSend(branch, into: sendBin)
        }
        try builder.prepareRecordings()
        return (sender, receiver)
    }

    // MARK: WHEP

    /// A receive-only webrtcbin for the receive section, with a transceiver per branch that
    /// offers every codec the branch accepts.
    private func buildPlayer(pipeline: Pipeline, builder: GraphBuilder) throws(RunError) -> WebRTCPeer {
        let bin = try makeWebRTCBin("play")
        do { try pipeline.add(bin) } catch { throw RunError(error.message) }
        if !spec.transport.ice.addresses.isEmpty {
            do { try ICEAgent.addLocalAddresses(spec.transport.ice.addresses, to: bin) } catch {
                throw RunError("transport.ice.addresses: \(error.message)", at: spec.transport.ice.location)
            }
        }
        bin.connect("pad-added") { [weak builder] (args: borrowing SignalArguments) in
            guard let pad = args.object(1, as: Pad.self) else { return }
            builder?.buildReceive(for: pad)
        }
        for branch in [spec.receive?.video, spec.receive?.audio].compactMap({ $0 }) {
            let codecs = branch.codecs.isEmpty ? Codec.allCases.filter { $0.media == branch.media } : branch.codecs
            do {
                let caps = try Caps(codecs.map(EncoderPresets.rtpCaps(for:)).joined(separator: ";"))
                _ = try bin.emit("add-transceiver", "recvonly", caps)
            } catch {
                throw RunError("cannot set up receiving \(branch.media.rawValue): \(error.message)", at: branch.location)
            }
        }
        return WebRTCPeer(bin, label: "player")
    }

    /// Offers to the WHEP/WHIP endpoint and applies its answer; returns the session to delete.
    private func play(_ player: WebRTCPeer) async throws(RunError) -> (client: WHIPClient, session: URL) {
        let endpoint = spec.transport.endpoint ?? ""
        let what = spec.transport.kind == .whip ? "WHIP" : "WHEP"
        do {
            let client = try WHIPClient(endpoint: endpoint, token: spec.transport.token)
            let offer = try await player.offerWithCandidates()
            let (answer, session) = try await client.post(offer: offer)
            try await player.setRemoteDescription(try SessionDescription(kind: .answer, sdp: answer))
            return (client, session)
        } catch let e as WHIPClient.Failure {
            throw RunError("\(what): \(e.description)", at: spec.transport.location)
        } catch let e as NegotiationError {
            throw RunError("\(what): \(e.message)", at: spec.transport.location)
        } catch {
            throw RunError("\(what): \(error)", at: spec.transport.location)
        }
    }

    // MARK: Negotiate

    private func negotiate(sender: WebRTCPeer, receiver: WebRTCPeer) async throws(RunError) {
        do {
            offers.add(1, ordering: .relaxed)
            let offer = try await sender.createOffer()
            let offered = SDPSummary(offer.sdp).media.filter { !$0.rejected }.count
            let branches = [spec.send?.video, spec.send?.audio].compactMap { $0 }.count
            if offered < branches {
                throw RunError("the offer describes \(offered) of \(branches) send branches: webrtcbin could not read the encoded caps", at: spec.transport.location)
            }
            try await sender.setLocalDescription(offer)
            var restricted: [String: [String]] = [:]
            for b in [spec.receive?.video, spec.receive?.audio].compactMap({ $0 }) where !b.codecs.isEmpty {
                restricted[b.media.rawValue] = b.codecs.map(\.encodingName)
            }
            if let refused = SDPSummary.incompatibilities(offer: SDPSummary(offer.sdp), accepts: restricted).first {
                throw RunError(refused + "; make send.<media>.encode.codec one the receiver accepts", at: spec.transport.location)
            }
            try await receiver.setRemoteDescription(offer)
            let answer = try await receiver.createAnswer()
            try await receiver.setLocalDescription(answer)
            try await sender.setRemoteDescription(answer)
            logger.debug("offer:\n\(offer.sdp)\nanswer:\n\(answer.sdp)")

            var accepts: [String: [String]] = [:]
            for b in [spec.receive?.video, spec.receive?.audio].compactMap({ $0 }) {
                accepts[b.media.rawValue] = (b.codecs.isEmpty ? Codec.allCases.filter { $0.media == b.media } : b.codecs).map(\.encodingName)
            }
            let rejected = SDPSummary.rejections(offer: SDPSummary(offer.sdp), answer: SDPSummary(answer.sdp),
                                                 answererAccepts: accepts)
            if let first = rejected.first {
                throw RunError(first + "; make send.<media>.encode.codec one the receiver accepts", at: spec.transport.location)
            }
        } catch let e as NegotiationError {
            throw RunError("negotiation failed: \(e.message)", at: spec.transport.location)
        } catch let e as RunError {
            throw e
        } catch {
            throw RunError("negotiation failed: \(error)")
        }
    }

    private func waitForICE(_ peers: [WebRTCPeer]) async throws(RunError) {
        let timeout = spec.transport.ice.connectTimeout
        for peer in peers {
            let ok = await peer.wait(timeout: timeout) { $0.iceConnected || $0.iceFailed }
            if let e = failed { throw e }
            if ok && peer.states.iceConnected { continue }
            var why = "ICE did not connect within \(String(format: "%g", timeout)) s (state \(peer.states.iceConnection))"
            if peer.gatheredCandidateCount == 0 {
                why += ": the \(peer.label) gathered no candidates. libnice skips loopback and finds no other interface here;"
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

    private func watchBus(_ pipeline: Pipeline) -> Task<Void, Never> {
        let bus = pipeline.bus
        let logger = logger
        return Task.detached { [weak self] in
            for await message in bus.messages() {
                switch message.kind {
                case .error:
                    let (text, debug) = message.parsedError ?? ("unknown error", nil)
                    logger.debug("error from \(message.sourceName): \(text) \(debug ?? "")")
                    let reason = debug?.split(separator: "\n").last.map { " (\($0))" } ?? ""
                    self?.fail(RunError("\(message.sourceName): \(text)\(reason)"))
                case .warning:
                    let (text, _) = message.parsedError ?? ("", nil)
                    logger.warning("\(message.sourceName): \(text)")
                case .element:
                    if let s = message.structure, s.name == "sluice-filter-warning" {
                        logger.warning("\(s.get("message", as: String.self) ?? "a filter reported a problem")")
                    }
                default:
                    break
                }
            }
        }
    }

    // MARK: Stop

    /// EOS into every source and every receive branch (RTP carries no end-of-stream), then
    /// waits until each receive sink has seen it, so files are finalized.
    private func drain(pipeline: Pipeline, builder: GraphBuilder, timeout: Double) async {
        let sinks = builder.receiveSinkPads
        let remaining = Atomic<Int>(sinks.count)
        var probes: [(Pad, UInt)] = []
        for pad in sinks {
            let id = pad.addProbe(.eventDownstream) { (info: borrowing Pad.ProbeInfo) in
                if info.event == .eos { remaining.subtract(1, ordering: .relaxed) ; return .remove }
                return .ok
            }
            probes.append((pad, id))
        }
        _ = pipeline.sendEvent(.eos())
        for entrance in builder.receiveEntrances { entrance.sendEvent(.eos()) }
        for pad in builder.unusedRecordingPads { pad.sendEvent(.eos()) }
        let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
        while remaining.load(ordering: .relaxed) > 0 && ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        if remaining.load(ordering: .relaxed) > 0 {
            logger.warning("end-of-stream did not reach every receive sink within \(timeout) s; stopping anyway")
        }
    }

    private func summary(counters: RunCounters, duration: Double, cpu: Double, sent: WebRTCStats,
                         received: WebRTCStats, iceState: String) -> RunSummary {
        let vFrames = counters.receiveVideoFrames.load(ordering: .relaxed)
        let first = counters.firstFrameNanos.load(ordering: .relaxed)
        return RunSummary(
            pipeline: spec.file, duration_s: duration,
            send: .init(
                video: spec.send?.video.map { _ in .init(captured: counters.captureVideoFrames.load(ordering: .relaxed),
                                                         filtered: counters.filteredVideoFrames.load(ordering: .relaxed),
                                                         frames: counters.sendVideoFrames.load(ordering: .relaxed),
                                                         codec: counters.noted("send.video.codec"),
                                                         bytes: counters.sendVideoBytes.load(ordering: .relaxed)) },
                audio: spec.send?.audio.map { _ in .init(buffers: counters.sendAudioBuffers.load(ordering: .relaxed),
                                                         codec: counters.noted("send.audio.codec")) }),
            receive: .init(
                video: spec.receive?.video.map { _ in .init(frames: vFrames,
                                                            width: counters.receiveVideoWidth.load(ordering: .relaxed),
                                                            height: counters.receiveVideoHeight.load(ordering: .relaxed),
                                                            fps: duration > 0 ? Double(vFrames) / duration : 0,
                                                            codec: counters.noted("receive.video.codec")) },
                audio: spec.receive?.audio.map { _ in .init(buffers: counters.receiveAudioBuffers.load(ordering: .relaxed),
                                                            codec: counters.noted("receive.audio.codec")) }),
            time_to_first_frame_ms: first > 0 ? Double(first) / 1e6 : nil,
            ice_state: iceState,
            network: .init(bytes_sent: sent.bytesSent, packets_sent: sent.packetsSent,
                           bytes_received: received.bytesReceived, packets_received: received.packetsReceived,
                           packets_lost: sent.packetsLost, rtt_ms: sent.roundTripMs, jitter_ms: received.jitterMs,
                           bitrate_kbps: duration > 0 ? Double(sent.bytesSent > 0 ? sent.bytesSent : received.bytesReceived) * 8 / 1000 / duration : 0),
            cpu_seconds: cpu, gstreamer_version: Gst.version)
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
