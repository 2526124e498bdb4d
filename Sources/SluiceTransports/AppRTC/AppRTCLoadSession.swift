import GStreamer
import SluiceSignalling
import Synchronization
import SluiceRun
import SluiceMeasure
import SluiceLoad

/// One call member's session with an AppRTC-compatible room server: `join` the room, then
/// offer (the initiator) or answer the other member's offer (the joiner), candidates
/// trickled both ways as room messages; `leave` at the end (the server tells the other
/// member `bye`). Everything the server sends is read by one listener for the whole session.
package final class AppRTCLoadSession: LoadSession {
    private let server: String
    private let room: String
    private let timeout: Double

    private struct State {
        var client: AppRTCClient?
        var listener: Task<Void, Never>?
        /// Why the server's connection ended before this member left, if it did.
        var serverGone: String?
    }
    private let state = Mutex(State())

    /// A member of `room` on `server`; the other member's offer or answer must come within
    /// `timeout` seconds.
    package init(server: String, room: String, timeout: Double) {
        self.server = server
        self.room = room
        self.timeout = timeout
    }

    package func join(_ peer: WebRTCPeer, sending: any LoadSendSetup) async throws(LoadJoinFailure) {
        let joined: AppRTCClient.Joined
        do { joined = try await AppRTCClient.join(server: server, room: room, timeout: timeout) } catch {
            switch error.cause {
            case .unreachable: throw .unreachable(error.description)
            case .refused: throw .refused(error.description)
            case .malformed: throw .badAnswer(error.description)
            }
        }
        let client = AppRTCClient(joined: joined)
        peer.onLocalCandidate { c in client.send(.candidate(label: Int(c.mlineIndex), id: nil, candidate: c.candidate)) }
        let (descriptions, arrived) = AsyncStream<SignalingMessage>.makeStream()
        let listener = Task { [weak self] in
            for m in joined.messages { self?.handle(.message(m), peer: peer, descriptions: arrived) }
            for await event in client.events { self?.handle(event, peer: peer, descriptions: arrived) }
            arrived.finish()
        }
        state.withLock {
            $0.client = client
            $0.listener = listener
        }
        if joined.isInitiator {
            try await offer(peer, sending: sending, client: client, descriptions: descriptions)
        } else {
            try await answer(peer, sending: sending, client: client, descriptions: descriptions)
        }
    }

    /// The initiator: sets up to offer, sends the offer, applies the other member's answer.
    private func offer(
        _ peer: WebRTCPeer, sending: any LoadSendSetup, client: AppRTCClient, descriptions: AsyncStream<SignalingMessage>
    ) async throws(LoadJoinFailure) {
        let offer: SessionDescription
        do {
            try sending.setUpToOffer()
            offer = try await peer.createOffer()
            try await peer.setLocalDescription(offer)
        } catch {
            throw .badAnswer("the member could not make its offer: \(error)")
        }
        client.send(.offer(sdp: offer.sdp))
        guard case .answer(let sdp) = try await next(from: descriptions, waitingFor: "an answer") else {
            throw .badAnswer("room '\(room)': the other member sent an offer, but this member is the initiator")
        }
        if let problem = SDPCheck.problem(in: sdp) { throw .badAnswer("room '\(room)': the other member's answer is malformed: \(problem)") }
        try await LoadJoinFailure.apply(answer: sdp, to: peer)
    }

    /// The joiner: waits for the other member's offer, sets up to answer it, sends the answer.
    private func answer(
        _ peer: WebRTCPeer, sending: any LoadSendSetup, client: AppRTCClient, descriptions: AsyncStream<SignalingMessage>
    ) async throws(LoadJoinFailure) {
        guard case .offer(let sdp) = try await next(from: descriptions, waitingFor: "an offer") else {
            throw .badAnswer("room '\(room)': the other member sent an answer, but no offer was made")
        }
        if let problem = SDPCheck.problem(in: sdp) { throw .badAnswer("room '\(room)': the other member's offer is malformed: \(problem)") }
        do {
            let toApply = try sending.setUpToAnswer(sdp)
            try await peer.setRemoteDescription(try SessionDescription(kind: .offer, sdp: toApply))
            let answer = try await peer.createAnswer()
            try await peer.setLocalDescription(answer)
            client.send(.answer(sdp: answer.sdp))
        } catch let e as RunError {
            throw .badAnswer("room '\(room)': \(e.message)")
        } catch {
            throw .badAnswer("room '\(room)': the other member's offer could not be answered: \(error)")
        }
    }

    /// The other member's next offer or answer, within `timeout`.
    private func next(from descriptions: AsyncStream<SignalingMessage>, waitingFor what: String) async throws(LoadJoinFailure) -> SignalingMessage {
        let timeout = timeout
        let message = await withTaskGroup(of: SignalingMessage?.self) { group in
            group.addTask {
                for await m in descriptions { return m }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(timeout))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
        if let message { return message }
        if let gone = state.withLock({ $0.serverGone }) { throw .unreachable(gone) }
        throw .unreachable("no other member sent \(what) in room '\(room)' within \(LoadClient.seconds(timeout))")
    }

    /// What the server sends: candidates go to the peer, offers and answers to `join`.
    private func handle(_ event: AppRTCClient.Event, peer: WebRTCPeer, descriptions: AsyncStream<SignalingMessage>.Continuation) {
        switch event {
        case .message(.candidate(let label, _, let candidate)):
            guard SignalingMessage.candidateLabels.contains(label) else { return }
            peer.addRemoteCandidate(ICECandidate(mlineIndex: UInt32(label), candidate: candidate))
        case .message(.bye):
            // The other member left: its frames stop, and this member's own end follows
            // (both connected together and stay as long), or its media timeout tells.
            break
        case .message(let description):
            descriptions.yield(description)
        case .serverError(let text):
            state.withLock { $0.serverGone = $0.serverGone ?? "room server: \(text)" }
        case .closed(let reason):
            state.withLock { $0.serverGone = $0.serverGone ?? "the room server closed the connection" + (reason.map { ": \($0)" } ?? "") }
        }
    }

    /// The room server's connection ended (or it sent an error) while the member stays.
    package func keepAlive() async -> String? { state.withLock { $0.serverGone } }

    package func leave() async {
        let (client, listener) = state.withLock { s in
            defer { s.client = nil }
            return (s.client, s.listener)
        }
        await client?.leave()
        listener?.cancel()
    }
}
