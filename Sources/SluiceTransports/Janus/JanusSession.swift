import Foundation
import GStreamer
import Logging
import SluiceSignalling
import Synchronization
import SluiceRun

/// A room of Janus's VideoRoom: the send section published over one PeerConnection, every
/// other publisher (or those `subscribe` names) received over another — one multistream
/// subscription that follows publishers as they come and go (Janus offers, Sluice answers,
/// each time). Events are handled one at a time, in order, on one task.
package final class JanusSession: RemoteSession {
    /// The publishing peer if the file sends, else the subscribing one.
    package var peer: WebRTCPeer { publisher ?? subscriber! }
    private let publisher: WebRTCPeer?
    private let subscriber: WebRTCPeer?
    private let spec: JanusSpec
    private let builder: GraphBuilder
    private let location: SourceLocation?
    private let connectTimeout: Double
    private let logger: Logger

    private enum Work: Sendable {
        case event(JanusClient.Event)
        case subscribe([JanusVideoRoom.Publisher])
    }
    private struct State {
        var client: JanusClient?
        var publisherHandle: Int64?
        var subscriberHandle: Int64?
        var privateID: Int64?
        /// Feeds subscribed to, by id (their names, for the log).
        var feeds: [Int64: String] = [:]
        var joinedAs: Int64?
    }
    private let state = Mutex(State())
    private let status = SessionStatus()
    private let work: AsyncStream<Work>.Continuation
    private let worker = Mutex<Task<Void, Never>?>(nil)
    private let pump = Mutex<Task<Void, Never>?>(nil)

    package init(
        publisher: WebRTCPeer?, subscriber: WebRTCPeer?, spec: JanusSpec, builder: GraphBuilder,
        transport: TransportSpec, logger: Logger
    ) {
        self.publisher = publisher
        self.subscriber = subscriber
        self.spec = spec
        self.builder = builder
        self.location = transport.location
        self.connectTimeout = JanusSpec.requestTimeout(transport)
        self.logger = logger
        let (stream, work) = AsyncStream<Work>.makeStream()
        self.work = work
        if subscriber != nil { builder.layerChoice.withLock { $0 = JanusLayerChoice(session: self) } }
        worker.withLock {
            $0 = Task { [weak self] in
                for await item in stream {
                    guard let self else { return }
                    await self.handle(item)
                }
            }
        }
    }

    private func fail(_ what: String) { status.fail(RunError("Janus: \(what)", at: location)) }

    fileprivate func describe(_ e: JanusClient.Failure) -> String {
        e.description + (JanusVideoRoom.advice(for: e.code).map { "; \($0)" } ?? "")
    }

    package func negotiate(stop: StopFlag, deadline: ContinuousClock.Instant?) async throws(RunError) -> Bool {
        let config = spec.clientConfiguration(timeout: connectTimeout)
        let client: JanusClient, handle: Int64, joined: JanusVideoRoom.Joined
        let room = JanusVideoRoom.RoomID(spec.room)
        do throws(JanusClient.Failure) {
            client = try await JanusClient.connect(config, logger: logger)
            state.withLock { $0.client = client }
            handle = try await client.attach(JanusVideoRoom.plugin)
            state.withLock { $0.publisherHandle = handle }
            let reply = try await client.message(
                JanusVideoRoom.join(room: room, display: spec.display ?? "sluice", pin: spec.pin),
                handle: handle)
            guard let j = JanusVideoRoom.joined(reply.data) else {
                throw JanusClient.Failure("Janus answered 'join' with something else: \(reply.data.text.prefix(200))")
            }
            joined = j
        } catch {
            throw RunError("Janus: \(describe(error))", at: location)
        }
        state.withLock {
            $0.privateID = joined.privateID
            $0.joinedAs = joined.id
        }
        logger.info("Janus: joined room \(room) as '\(spec.display ?? "sluice")' (id \(joined.id)); \(joined.publishers.count) publishing")
        pump.withLock {
            $0 = Task { [work] in
                for await e in client.events { work.yield(.event(e)) }
                work.yield(.event(.closed("the event stream ended")))
            }
        }
        if let publisher { try await publish(publisher, client: client, handle: handle, room: room) }
        if subscriber != nil { work.yield(.subscribe(joined.publishers)) }
        // A publisher is negotiated now; a pure subscriber once it receives someone.
        if publisher != nil { status.negotiated() }
        return try await status.waitUntilNegotiated(stop: stop, deadline: deadline)
    }

    /// Offers the send section (complete, candidates included) with `publish` and applies Janus's answer.
    private func publish(_ publisher: WebRTCPeer, client: JanusClient, handle: Int64, room: JanusVideoRoom.RoomID) async throws(RunError) {
        await builder.waitForSendCaps(logger: logger)
        let offer: String
        do { offer = try await publisher.offerWithCandidates() } catch {
            throw RunError("Janus: cannot make the offer to publish: \(error.message)", at: location)
        }
        let reply: JanusClient.Reply
        do {
            reply = try await client.message(
                JanusVideoRoom.publish(display: spec.display ?? "sluice"),
                jsep: .init(type: "offer", sdp: offer), handle: handle)
        } catch {
            throw RunError("Janus: \(describe(error))", at: location)
        }
        logger.debug("Janus: publish offer:\n\(offer)\nanswer:\n\(reply.jsep?.sdp ?? "(none)")")
        guard let answer = reply.jsep, answer.type == "answer" else {
            throw RunError("Janus: 'publish' was answered without an SDP answer: \(reply.data.text.prefix(200))", at: location)
        }
        if let problem = SDPCheck.problem(in: answer.sdp) {
            throw RunError("Janus: the SDP answer is malformed: \(problem)", at: location)
        }
        do {
            try await publisher.setRemoteDescription(try SessionDescription(kind: .answer, sdp: answer.sdp))
        } catch {
            throw RunError("Janus: Janus's answer cannot be applied: \(error)", at: location)
        }
        logger.info("Janus: publishing to room \(room)")
    }

    private func handle(_ item: Work) async {
        guard let client = state.withLock({ $0.client }), !status.isLeaving else { return }
        switch item {
        case .subscribe(let publishers):
            await subscribe(publishers, client: client)
        case .event(.plugin(let handle, let data, let jsep)):
            let (pub, sub) = state.withLock { ($0.publisherHandle, $0.subscriberHandle) }
            if let room = JanusVideoRoom.destroyedRoom(in: data) {
                // Everyone in the room is told; Janus then closes the PeerConnections.
                status.ended(by: "Janus: room \(room) was destroyed")
                return
            }
            if handle == pub {
                let new = JanusVideoRoom.publishers(in: data)
                if !new.isEmpty, subscriber != nil { await subscribe(new, client: client) }
                if let gone = JanusVideoRoom.gone(in: data) {
                    let name = state.withLock { $0.feeds.removeValue(forKey: gone) }
                    if let name { logger.info("Janus: '\(name)' left the room") }
                }
                if let code = data["error_code"]?.int {
                    fail("the room reported error \(code): \(data["error"]?.string ?? "")")
                }
            } else if handle == sub, let change = JanusVideoRoom.substreamChange(in: data) {
                builder.roomStreams.slot(mid: change.mid)?.record?.substream.withLock { $0 = change.substream }
                logger.info("Janus: now receiving substream \(change.substream) at mid \(change.mid)")
            } else if handle == sub, let jsep, jsep.type == "offer" {
                // Janus renegotiates on its own when a subscribed publisher leaves.
                await answer(data: data, offer: jsep, client: client)
            }
        case .event(.hangup(_, _)) where status.endedBy != nil:
            break // the room is gone: its PeerConnections close with it
        case .event(.hangup(let handle, let reason)):
            let which = handle == state.withLock({ $0.publisherHandle }) ? "the publishing" : "the subscribing"
            fail("Janus closed \(which) PeerConnection (\(reason))")
        case .event(.detached):
            break
        case .event(.webrtcUp(let handle)):
            let which = handle == state.withLock({ $0.publisherHandle }) ? "publishing" : "subscribing"
            logger.info("Janus: the \(which) PeerConnection is up")
        case .event(.timeout):
            fail("Janus timed the session out (keepalives did not arrive in time)")
        case .event(.closed(let why)):
            fail("the connection to Janus (\(spec.server)) closed\(why.map { ": \($0)" } ?? "")")
        }
    }

    /// Subscribes to those of `publishers` the file receives and this side does not yet.
    private func subscribe(_ publishers: [JanusVideoRoom.Publisher], client: JanusClient) async {
        let me = state.withLock { $0.joinedAs }
        let wanted = publishers.filter { p in
            p.id != me && !p.media.filter({ $0 == "audio" || $0 == "video" }).isEmpty
                && (spec.subscribe.map { $0.contains(p.name) || $0.contains(String(p.id)) } ?? true)
        }
        let new = state.withLock { s in wanted.filter { s.feeds[$0.id] == nil } }
        guard !new.isEmpty else { return }
        // At most 32 feeds on one connection: a flood of publishers cannot grow it without bound.
        let room = state.withLock { s -> Int in 32 - s.feeds.count }
        let taken = Array(new.prefix(max(0, room)))
        if taken.count < new.count {
            logger.warning("Janus: receiving at most 32 publishers; \(new.count - taken.count) not received")
        }
        guard !taken.isEmpty else { return }
        state.withLock { s in for p in taken { s.feeds[p.id] = p.name } }
        logger.info("Janus: receiving \(taken.map { "'\($0.name)' (\($0.media.joined(separator: ", ")))" }.joined(separator: ", "))")
        do throws(JanusClient.Failure) {
            let ids = taken.map(\.id)
            let reply: JanusClient.Reply
            if let handle = state.withLock({ $0.subscriberHandle }) {
                reply = try await client.message(JanusVideoRoom.add(feeds: ids, substream: spec.substream), handle: handle)
            } else {
                let handle = try await client.attach(JanusVideoRoom.plugin)
                state.withLock { $0.subscriberHandle = handle }
                let privateID = state.withLock { $0.privateID }
                reply = try await client.message(
                    JanusVideoRoom.subscribe(
                        room: .init(spec.room), feeds: ids, privateID: privateID, pin: spec.pin, substream: spec.substream),
                    handle: handle)
            }
            guard let offer = reply.jsep, offer.type == "offer" else {
                // Janus answers without an offer when nothing changed (the feed left meanwhile).
                logger.debug("Janus: subscription updated without an offer: \(reply.data.text.prefix(200))")
                return
            }
            await answer(data: reply.data, offer: offer, client: client)
        } catch {
            state.withLock { s in for p in taken { s.feeds[p.id] = nil } }
            if error.code == 428 {
                logger.info("Janus: \(describe(error))")
            } else {
                fail("subscribing: \(describe(error))")
            }
        }
    }

    /// Applies the subscription's offer (who sits at which MID first) and answers with `start`.
    private func answer(data: JSONValue, offer: JanusClient.JSEP, client: JanusClient) async {
        guard let subscriber, let handle = state.withLock({ $0.subscriberHandle }) else { return }
        let streams = JanusVideoRoom.streams(in: data)
        let removed = builder.roomStreams.assign(
            streams.compactMap { s in
                guard let media = MediaKind(rawValue: s.type) else { return nil }
                let name = s.active ? (s.feedDisplay ?? s.feedID.map { String($0) }) : nil
                return (mid: s.mid, publisher: name, media: media)
            })
        if !removed.isEmpty { logger.debug("Janus: streams of \(Set(removed).sorted()) removed") }
        builder.relayoutMosaic()
        if let problem = SDPCheck.problem(in: offer.sdp) {
            fail("the subscription's SDP offer is malformed: \(problem)")
            return
        }
        do {
            let answer = try await subscriber.answer(offer: offer.sdp)
            logger.debug("Janus: subscription offer:\n\(offer.sdp)\nanswer:\n\(answer)")
            _ = try await client.message(JanusVideoRoom.start, jsep: .init(type: "answer", sdp: answer), handle: handle)
            status.negotiated()
        } catch let e as JanusClient.Failure {
            fail("starting the subscription: \(describe(e))")
        } catch {
            fail("answering the subscription's offer: \(error)")
        }
    }

    package func tick() async throws(RunError) -> String? { try status.tick() }

    package func end() async {
        status.leave()
        builder.layerChoice.withLock { $0 = nil }
        let (client, pub, sub) = state.withLock { ($0.client, $0.publisherHandle, $0.subscriberHandle) }
        work.finish()
        worker.withLock { $0?.cancel() }
        guard let client else { return }
        if let pub { _ = try? await client.message(JanusVideoRoom.leave, handle: pub) }
        if let sub { await client.detach(sub) }
        if let pub { await client.detach(pub) }
        await client.close()
        pump.withLock { $0?.cancel() }
    }

    package var report: RunSummary.Session? {
        let role = publisher != nil ? (subscriber != nil ? "publisher+subscriber" : "publisher") : "subscriber"
        var s = RunSummary.Session(role: role, id: spec.room, ended_by_peer: status.endedBy)
        s.peer = spec.server
        return s
    }

    /// The session, and every publisher stream the room gave this run.
    package func fill(_ summary: inout RunSummary) {
        summary.session = report
        let room = builder.roomStreams.records
        guard !room.isEmpty else { return }
        summary.receive.streams = room.map { r in
            let video = r.media == .video
            return RunSummary.RoomStream(
                publisher: r.publisher, media: r.media.rawValue, codec: r.codec.withLock { $0 },
                frames: r.frames.load(ordering: .relaxed),
                width: video ? r.width.load(ordering: .relaxed) : nil,
                height: video ? r.height.load(ordering: .relaxed) : nil,
                left: r.left.load(ordering: .relaxed), substream: r.substream.withLock { $0 })
        }
    }
}

/// The control API's simulcast layer choice, by `configure` on the subscription. Holds the
/// session weakly: the session holds the builder that holds this.
private struct JanusLayerChoice: SimulcastLayerChoosing {
    weak var session: JanusSession?
    var largestLayer: Int { 2 }
    func chooseLayer(_ layer: Int, publisher: String?) async throws(ControlError) -> [String] {
        guard let session else { throw ControlError(.conflict, "the Janus session has ended") }
        return try await session.chooseLayer(layer, publisher: publisher)
    }
}

extension JanusSession {
    /// `configure` with `substream` for the MIDs of the received video (of `publisher`).
    fileprivate func chooseLayer(_ layer: Int, publisher: String?) async throws(ControlError) -> [String] {
        let streams = builder.roomStreams.mids(of: .video, publisher: publisher)
        guard !streams.isEmpty else {
            throw ControlError(.notFound, publisher.map { "no video of publisher '\($0)' is received" } ?? "no video is received yet")
        }
        guard let (client, handle) = state.withLock({ s in s.client.flatMap { c in s.subscriberHandle.map { (c, $0) } } }) else {
            throw ControlError(.conflict, "the Janus subscription is not set up yet")
        }
        do throws(JanusClient.Failure) {
            _ = try await client.message(JanusVideoRoom.configure(mids: streams.map(\.mid), substream: layer), handle: handle)
        } catch {
            throw ControlError(.conflict, "Janus refused the substream: \(describe(error))")
        }
        logger.info("Janus: asked for substream \(layer) of \(Set(streams.map(\.publisher)).sorted().joined(separator: ", "))")
        return Array(Set(streams.map(\.publisher))).sorted()
    }
}
