import Foundation
import GStreamer
import Logging
import SluiceSignalling
import Synchronization
import SluiceRun

/// A session through an AppRTC-compatible room: the server made this peer the initiator
/// (it offers) or the joiner (it answers); offer, answer and trickled candidates travel as
/// room messages; `bye` from the other peer ends the run.
package final class RoomSession: RemoteSession {
    package let peer: WebRTCPeer
    private let client: AppRTCClient
    private let joined: AppRTCClient.Joined
    private let negotiation: PeerNegotiation
    private let location: SourceLocation?
    private let logger: Logger

    private struct State {
        /// The offer this peer made (initiator).
        var offer: String?
    }
    private let state = Mutex(State())
    private let status = SessionStatus()
    /// The run's graph: the initiator offers once its send branches have caps (their SSRCs).
    private let builder: GraphBuilder
    private let listener = Mutex<Task<Void, Never>?>(nil)

    package init(peer: WebRTCPeer, joined: AppRTCClient.Joined, builder: GraphBuilder, spec: PipelineSpec, logger: Logger) {
        self.peer = peer
        self.builder = builder
        self.joined = joined
        self.negotiation = PeerNegotiation(peer: peer, builder: builder, spec: spec, session: "room '\(joined.room)'")
        self.location = spec.transport.location
        self.logger = logger
        let client = AppRTCClient(joined: joined, logger: logger)
        self.client = client
        peer.onLocalCandidate { c in client.send(.candidate(label: Int(c.mlineIndex), id: nil, candidate: c.candidate)) }
    }

    /// Starts handling the room's messages (the join's and the stream's, which buffers them
    /// until then). Not in `init`: an offer that came with the join was applied while the
    /// pipeline was still on its way to PLAYING, and webrtcbin refused it now and then
    /// ("set-remote-description failed", seen in CI with a simulcast sender answering).
    private func listen() {
        listener.withLock {
            guard $0 == nil else { return }
            $0 = Task { [weak self, joined, client] in
                for m in joined.messages { await self?.handle(.message(m)) }
                for await event in client.events {
                    guard let self else { return }
                    await self.handle(event)
                }
            }
        }
    }

    private func fail(_ message: String) {
        status.fail(RunError(message, at: location))
    }

    private func handle(_ event: AppRTCClient.Event) async {
        switch event {
        case .message(.offer(let sdp)):
            guard !joined.isInitiator else { return fail("room '\(joined.room)': the other peer sent an offer, but this peer is the initiator") }
            await answer(sdp)
        case .message(.answer(let sdp)):
            guard joined.isInitiator else { return fail("room '\(joined.room)': the other peer sent an answer, but no offer was made") }
            logger.debug("room '\(joined.room)': our offer:\n\(state.withLock { $0.offer } ?? "")\nthe answer:\n\(sdp)")
            do {
                try await negotiation.apply(answer: sdp, to: state.withLock { $0.offer } ?? "")
                status.negotiated()
            } catch {
                fail(error.message)
            }
        case .message(.candidate(let label, _, let candidate)):
            guard SignalingMessage.candidateLabels.contains(label) else { return logger.warning("ignoring a candidate for m-line \(label)") }
            peer.addRemoteCandidate(ICECandidate(mlineIndex: UInt32(label), candidate: candidate))
        case .message(.bye):
            status.ended(by: "the other peer left room '\(joined.room)'")
        case .serverError(let text):
            fail("room server: \(text)")
        case .closed(let reason):
            if !status.isLeaving { fail("the room server closed the connection" + (reason.map { ": \($0)" } ?? "")) }
        }
    }

    private func answer(_ sdp: String) async {
        do {
            let answer = try await negotiation.answer(sdp)
            logger.debug("room '\(joined.room)': the offer:\n\(sdp)\nour answer:\n\(answer)")
            client.send(.answer(sdp: answer))
            status.negotiated()
        } catch {
            fail(error.message)
        }
    }

    package func negotiate(stop: StopFlag, deadline: ContinuousClock.Instant?) async throws(RunError) -> Bool {
        listen()
        if joined.isInitiator {
            await builder.waitForSendCaps(logger: logger)
            do {
                let offer = try await peer.createOffer()
                try await peer.setLocalDescription(offer)
                let sent = SimulcastOffer.namingTrack(in: offer.sdp, stream: "sluice", track: "video")
                state.withLock { $0.offer = sent }
                client.send(.offer(sdp: sent))
            } catch {
                throw RunError("room '\(joined.room)': \(error.message)", at: location)
            }
            logger.info("room '\(joined.room)': offered; waiting for the other peer")
        }
        return try await status.waitUntilNegotiated(stop: stop, deadline: deadline)
    }

    package func tick() async throws(RunError) -> String? { try status.tick() }

    package func end() async {
        status.leave()
        await client.leave()
        listener.withLock { $0?.cancel() }
    }

    package var report: RunSummary.Session? {
        RunSummary.Session(
            role: joined.isInitiator ? "offerer" : "answerer", id: joined.room,
            ended_by_peer: status.endedBy)
    }
}
