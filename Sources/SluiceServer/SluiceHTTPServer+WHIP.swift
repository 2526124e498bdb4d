import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import Sluice
import SluiceSignalling
import Synchronization

/// WHIP ingest: publishers send media into the server's receive pipelines.
/// `POST /whip/<name>` (SDP offer) → `201 Created`, `Location: /whip/<name>/<session>`, the
/// answer; `DELETE` on the session ends it (its receive pipeline drains, files are finalized).
/// `GET /whip.json` lists the sessions and what each has received.
public final class WHIPIngest: Sendable {
    /// A receive pipeline publishers can send to, and the addresses its ICE gathers on.
    public struct Receiver: Sendable {
        /// The receive pipeline each publisher to `/whip/<spec.name>` gets a copy of; its name is the
        /// one in the URL.
        public var spec: PipelineSpec
        /// The local addresses its publishers' ICE gathers host candidates on (empty: libnice
        /// enumerates the interfaces itself, loopback excepted).
        public var iceAddresses: [String]
        /// A receiver for `spec`, gathering on `iceAddresses`.
        public init(spec: PipelineSpec, iceAddresses: [String]) { self.spec = spec; self.iceAddresses = iceAddresses }
    }

    let receivers: [String: Receiver]
    /// With `--relay`: publishers to names without a receive pipeline are forwarded to WHEP
    /// viewers (ICE on these addresses).
    let relayAddresses: [String]?
    /// With `--relay-record`: where relayed publishers are recorded.
    let relayRecording: RelayRecording.Settings?
    private let relays = Mutex<[String: RelayStream]>([:])
    private let sessions = Mutex<[String: (name: String, session: PublishSession)]>([:])
    /// Sessions being stopped (still listed until they are).
    private let stopping = Mutex<Set<String>>([])
    /// What ended sessions received, per receive pipeline: (sessions, video frames, audio buffers).
    private let totals = Mutex<[String: (sessions: Int, video: Int, audio: Int)]>([:])

    /// Publishers removed without DELETE, by reason (`silent`, `ice-failed`, `never-connected`).
    private let reaped = Mutex<[String: Int]>([:])
    private let reaper = Mutex<Task<Void, Never>?>(nil)

    deinit { reaper.withLock { $0?.cancel() } }

    /// Checks publishers about once a second: one that vanished without DELETE is ended
    /// within 10 s, as its DELETE would have (its receive pipeline drains).
    private func startReaper() {
        reaper.withLock { task in
            guard task == nil else { return }
            task = Task.detached { [weak self] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(1))
                    guard let self else { return }
                    await self.reap()
                }
            }
        }
    }

    private func reap() async {
        let dead = sessions.withLock { t in t.compactMap { id, v in v.session.deadReason().map { (v.name, id, $0) } } }
        let deadRelays = relays.withLock { t in t.compactMap { name, r in r.deadReason().map { (name, r.id, $0) } } }
        for (name, id, why) in dead + deadRelays { _ = await stop(name, id, reapedAs: why) }
    }

    /// How publishers' and relay viewers' webrtcbins are made (STUN, TURN, certificate);
    /// addresses and latency come from each receiver.
    let recipe: WebRTCRecipe

    /// WHIP ingest into `receivers` (one per name; a repeated name keeps the first). With
    /// `relayAddresses` (`--relay`), a publisher to any other valid name is relayed to WHEP viewers
    /// of that name, ICE gathering on those addresses; without it such a publisher gets `404`.
    /// `recipe` sets STUN, TURN and the certificate for every webrtcbin; with `relayRecording`
    /// every relayed publisher is also recorded.
    public init(
        _ receivers: [Receiver], relayAddresses: [String]? = nil, recipe: WebRTCRecipe = WebRTCRecipe(),
        relayRecording: RelayRecording.Settings? = nil
    ) {
        self.receivers = Dictionary(receivers.map { ($0.spec.name, $0) }, uniquingKeysWith: { a, _ in a })
        self.relayAddresses = relayAddresses
        self.relayRecording = relayRecording
        self.recipe = recipe
    }

    private func recipe(addresses: [String], latencyMs: Int? = nil) -> WebRTCRecipe {
        var r = recipe
        r.addresses = addresses
        if let latencyMs { r.latencyMs = latencyMs }
        return r
    }

    /// The relayed publisher of `name`, if one is publishing.
    public func relay(named name: String) -> RelayStream? { relays.withLock { $0[name] } }
    /// The names with a relayed publisher now, sorted.
    public var relayNames: [String] { relays.withLock { $0.keys.sorted() } }

    private func startRelay(_ name: String, offer: String, addresses: [String]) async throws(WHIP.HTTPError) -> (id: String, answer: String) {
        let conflict = WHIP.HTTPError(409, "'\(name)' already has a publisher; DELETE its session first or publish under another name")
        if relays.withLock({ $0[name] != nil }) { throw conflict }
        let relay: RelayStream
        do { relay = try RelayStream(name: name, recipe: recipe(addresses: addresses), recording: relayRecording) } catch {
            throw WHIP.HTTPError(500, error.message)
        }
        // Checked again as it is taken: two publishers may race for the name.
        let taken = relays.withLock { t -> Bool in
            if t[name] != nil { return true }
            t[name] = relay
            return false
        }
        if taken { throw conflict }
        do {
            let answer = try await relay.answer(offer: offer)
            startReaper()
            return (relay.id, answer)
        } catch {
            relays.withLock { t in if t[name] === relay { t[name] = nil } }
            await relay.stop()
            throw WHIP.HTTPError(422, error.message)
        }
    }

    /// The number of WHIP publishers into receive pipelines now, those being stopped included
    /// (relayed publishers are not counted).
    public var sessionCount: Int { sessions.withLock { $0.count } }

    func start(_ name: String, offer: String) async throws(WHIP.HTTPError) -> (id: String, answer: String) {
        // Simulcast that cannot be taken is the publisher's error, whoever it publishes to.
        do { _ = try SimulcastOffer.parse(offer) } catch { throw WHIP.HTTPError(400, "\(error)") }
        if receivers[name] == nil, let relayAddresses {
            guard SluiceHTTPServer.validRoom(name) else { throw WHIP.HTTPError(400, "stream names are 1 to 128 letters, digits, '-' or '_'") }
            return try await startRelay(name, offer: offer, addresses: relayAddresses)
        }
        guard let r = receivers[name] else { throw WHIP.HTTPError(404, "no receive pipeline named '\(name)'") }
        let session: PublishSession
        do { session = try PublishSession(receive: r.spec, recipe: recipe(addresses: r.iceAddresses, latencyMs: r.spec.transport.latencyMs)) } catch {
            throw WHIP.HTTPError(500, error.message)
        }
        do {
            let answer = try await session.answer(offer: offer)
            sessions.withLock { $0[session.id] = (name, session) }
            startReaper()
            return (session.id, answer)
        } catch {
            throw WHIP.HTTPError(422, error.message)
        }
    }

    /// Ends a publisher or relay as its DELETE would. What it received and why it was
    /// reaped (`reapedAs`) are counted before it leaves the session list, so `/whip.json`
    /// never shows it gone but not yet counted.
    func stop(_ name: String, _ id: String, reapedAs reason: String? = nil) async -> Bool {
        if let relay = relays.withLock({ t -> RelayStream? in
            guard let r = t[name], r.id == id else { return nil }
            return t.removeValue(forKey: name)
        }) {
            await relay.stop()
            totals.withLock { t in
                var x = t[name] ?? (0, 0, 0)
                x.sessions += 1; x.video += relay.relayedVideoFrames
                t[name] = x
            }
            if let reason { reaped.withLock { $0[reason, default: 0] += 1 } }
            return true
        }
        // Listed until stopped; `stopping` makes a DELETE racing the reaper a 404.
        guard let s = sessions.withLock({ t -> PublishSession? in t[id]?.name == name ? t[id]?.session : nil }),
            stopping.withLock({ $0.insert(id).inserted })
        else { return false }
        await s.stop()
        totals.withLock { t in
            var x = t[name] ?? (0, 0, 0)
            x.sessions += 1; x.video += s.receivedVideoFrames; x.audio += s.receivedAudioBuffers
            t[name] = x
        }
        if let reason { reaped.withLock { $0[reason, default: 0] += 1 } }
        sessions.withLock { _ = $0.removeValue(forKey: id) }
        stopping.withLock { _ = $0.remove(id) }
        return true
    }

    /// Ends every publisher and relay as its DELETE would (receive pipelines drain, files
    /// are finalized): the end of a graceful drain.
    func stopAll() async {
        let live = sessions.withLock { t in t.map { ($0.value.name, $0.key) } } + relays.withLock { t in t.map { ($0.key, $0.value.id) } }
        await withTaskGroup(of: Void.self) { group in
            for (name, id) in live { group.addTask { _ = await self.stop(name, id) } }
        }
    }

    /// Publishers removed without DELETE so far, by reason.
    var reapedCounts: [String: Int] { reaped.withLock { $0 } }
    /// Relayed publishers now, and their viewers.
    var relayCounts: (relays: Int, viewers: Int) { relays.withLock { t in (t.count, t.values.reduce(0) { $0 + $1.viewerCount }) } }
    /// What ended sessions received, per receive pipeline.
    var endedTotals: [String: (sessions: Int, video: Int, audio: Int)] { totals.withLock { $0 } }

    /// `{"sessions": [{id, stream, video_frames, audio_buffers}], "ended": {stream: {sessions, video_frames, audio_buffers}}}`
    var listing: String {
        let rows = sessions.withLock { t in
            t.map {
                [
                    "id": $0.key, "stream": $0.value.name, "video_frames": $0.value.session.receivedVideoFrames,
                    "video_width": $0.value.session.receivedVideoSize.width,
                    "video_height": $0.value.session.receivedVideoSize.height,
                    "audio_buffers": $0.value.session.receivedAudioBuffers
                ] as [String: Any]
            }
        }
        let ended = totals.withLock { t in
            t.mapValues { ["sessions": $0.sessions, "video_frames": $0.video, "audio_buffers": $0.audio] }
        }
        let relayed = relays.withLock { t in
            t.values.map {
                [
                    "id": $0.id, "stream": $0.name, "live": $0.isLive, "viewers": $0.viewerCount,
                    "video_frames": $0.relayedVideoFrames
                ] as [String: Any]
            }
        }
        let object: [String: Any] = ["sessions": rows, "relays": relayed, "ended": ended, "reaped": reaped.withLock { $0 }]
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }
}

extension SluiceHTTPServer {
    func addWHIPRoutes(to router: Routes) {
        let ingest = ingest, configuration = configuration, replica = configuration.replica
        let links = WHIP.linkHeaders(stun: configuration.stun, turn: configuration.turn)

        router.get("/whip.json") { _, _ -> Response in Self.json(ingest.listing) }

        router.post("/whip/:name") { request, context -> Response in
            let name = context.parameters.get("name") ?? ""
            let offer: String
            switch await Self.readOffer(request) {
            case .failure(let e): return Self.problem(e)
            case .success(let sdp): offer = sdp
            }
            do {
                let (id, answer) = try await ingest.start(name, offer: offer)
                return Self.created(answer: answer, session: "/whip/\(name)/\(replica.external(id))", id: id, links: links)
            } catch let e as WHIP.HTTPError {
                return Self.problem(e)
            }
        }

        router.patch("/whip/:name/:session") { _, _ -> Response in
            return Self.problem(
                WHIP.HTTPError(
                    405, "this server takes complete offers; trickle ICE is not needed",
                    headers: ["Allow": "POST, DELETE"]))
        }

        router.delete("/whip/:name/:session") { _, context -> Response in
            let name = context.parameters.get("name") ?? "", id: String
            switch replica.session(context.parameters.get("session") ?? "") {
            case .failure(let e): return Self.problem(e)
            case .success(let session): id = session
            }
            guard await ingest.stop(name, id) else { return Self.problem(WHIP.HTTPError(404, "no session '\(id)' on '\(name)'")) }
            return Response(status: .ok)
        }
    }
}
