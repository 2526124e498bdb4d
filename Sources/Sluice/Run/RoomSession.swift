import Foundation
import GStreamer
import Logging
import SluiceSignalling
import Synchronization

/// A session through an AppRTC-compatible room: the server made this peer the initiator
/// (it offers) or the joiner (it answers); offer, answer and trickled candidates travel as
/// room messages; `bye` from the other peer ends the run.
final class RoomSession: RemoteSession {
    let peer: WebRTCPeer
    private let client: AppRTCClient
    private let joined: AppRTCClient.Joined
    /// Codecs this side can take, per medium (an absent medium takes anything).
    private let accepts: [String: [String]]
    /// The graph whose send branches an offer may move to other payload parameters.
    private let builder: GraphBuilder
    private let location: SourceLocation?
    private let logger: Logger

    private struct State {
        var negotiated = false
        /// The offer this peer made (initiator).
        var offer: String?
        var failure: RunError?
        var endedBy: String?
        var leaving = false
    }
    private let state = Mutex(State())
    private let listener = Mutex<Task<Void, Never>?>(nil)

    init(peer: WebRTCPeer, joined: AppRTCClient.Joined, accepts: [String: [String]], builder: GraphBuilder,
         location: SourceLocation?, logger: Logger) {
        self.peer = peer
        self.builder = builder
        self.joined = joined
        self.accepts = accepts
        self.location = location
        self.logger = logger
        let client = AppRTCClient(joined: joined, logger: logger)
        self.client = client
        peer.onLocalCandidate { c in client.send(.candidate(label: Int(c.mlineIndex), id: nil, candidate: c.candidate)) }
        let early = joined.messages
        listener.withLock {
            $0 = Task { [weak self] in
                for m in early { await self?.handle(.message(m)) }
                for await event in client.events {
                    guard let self else { return }
                    await self.handle(event)
                }
            }
        }
    }

    private func fail(_ message: String) {
        state.withLock { if $0.failure == nil { $0.failure = RunError(message, at: location) } }
    }

    private func handle(_ event: AppRTCClient.Event) async {
        switch event {
        case .message(.offer(let sdp)):
            guard !joined.isInitiator else { return fail("room '\(joined.room)': the other peer sent an offer, but this peer is the initiator") }
            await answer(sdp)
        case .message(.answer(let sdp)):
            guard joined.isInitiator else { return fail("room '\(joined.room)': the other peer sent an answer, but no offer was made") }
            do {
                let answer = try SessionDescription(kind: .answer, sdp: sdp)
                try await peer.setRemoteDescription(answer)
                let offer = state.withLock { $0.offer } ?? ""
                if let first = SDPSummary.rejections(offer: SDPSummary(offer), answer: SDPSummary(sdp), answererAccepts: [:]).first {
                    return fail(first + "; the peers in room '\(joined.room)' share no codec for that medium")
                }
                state.withLock { $0.negotiated = true }
            } catch {
                fail(describe(error, reading: "answer"))
            }
        case .message(.candidate(let label, _, let candidate)):
            guard label >= 0, label < 1024 else { return logger.warning("ignoring a candidate for m-line \(label)") }
            peer.addRemoteCandidate(ICECandidate(mlineIndex: UInt32(label), candidate: candidate))
        case .message(.bye):
            state.withLock { if $0.endedBy == nil { $0.endedBy = "the other peer left room '\(joined.room)'" } }
        case .serverError(let text):
            fail("room server: \(text)")
        case .closed(let reason):
            let leaving = state.withLock { $0.leaving }
            if !leaving { fail("the room server closed the connection" + (reason.map { ": \($0)" } ?? "")) }
        }
    }

    private func answer(_ sdp: String) async {
        do {
            if let refused = SDPSummary.incompatibilities(offer: SDPSummary(sdp), accepts: accepts).first {
                return fail(refused + "; the peers in room '\(joined.room)' share no codec for that medium")
            }
            try followOffer(sdp)
            try await peer.setRemoteDescription(try SessionDescription(kind: .offer, sdp: sdp))
            let answer = try await peer.createAnswer()
            try await peer.setLocalDescription(answer)
            builder.releaseSend()
            client.send(.answer(sdp: answer.sdp))
            state.withLock { $0.negotiated = true }
        } catch {
            fail(describe(error, reading: "offer"))
        }
    }

    /// Sends each medium with the payload type, MID and MID extension id the offer chose
    /// for it (the branches were built with Sluice's own before the offer came).
    private func followOffer(_ sdp: String) throws(RunError) {
        let sends = builder.sendParameters
        let outputs = MediaKind.allCases.compactMap { m in sends[m].map { (media: m, codec: $0.codec) } }
        // No plan: the offer takes none of what this peer sends (it only sends itself); the
        // codec check above has already refused offers that share no codec.
        guard !outputs.isEmpty, let plan = try? ViewerPlan(offer: sdp, outputs: outputs) else { return }
        for track in plan.tracks {
            do { try builder.retargetSend(track.media, to: track.parameters) } catch {
                throw RunError("room '\(joined.room)': \(error.message)", at: location)
            }
        }
    }

    /// A failed step with the other peer's `what` (offer or answer), in the user's words.
    private func describe(_ error: any Error, reading what: String) -> String {
        switch error {
        case let e as GstError: "room '\(joined.room)': the other peer's \(what): \(e.message)"
        case let e as NegotiationError: "room '\(joined.room)': \(e.message)"
        case let e as RunError: e.message
        default: "room '\(joined.room)': \(error)"
        }
    }

    func negotiate(stop: StopFlag, deadline: ContinuousClock.Instant?) async throws(RunError) -> Bool {
        if joined.isInitiator {
            do {
                let offer = try await peer.createOffer()
                try await peer.setLocalDescription(offer)
                state.withLock { $0.offer = offer.sdp }
                client.send(.offer(sdp: offer.sdp))
            } catch {
                throw RunError("room '\(joined.room)': \(error.message)", at: location)
            }
            logger.info("room '\(joined.room)': offered; waiting for the other peer")
        }
        // Bounded by the run's own end (duration or Ctrl-C): a room's first peer waits for
        // the second as long as the run lasts.
        while true {
            let s = state.withLock { $0 }
            if let e = s.failure { throw e }
            if s.negotiated { return true }
            if s.endedBy != nil || stop.isSet { return false }
            if let deadline, ContinuousClock.now >= deadline { return false }
            try? await Task.sleep(for: .milliseconds(50))
        }
    }

    func tick() async throws(RunError) -> String? {
        let s = state.withLock { $0 }
        if let e = s.failure { throw e }
        return s.endedBy
    }

    func end() async {
        state.withLock { $0.leaving = true }
        await client.leave()
        listener.withLock { $0?.cancel() }
    }

    var report: RunSummary.Session? {
        RunSummary.Session(role: joined.isInitiator ? "offerer" : "answerer", id: joined.room,
                           ended_by_peer: state.withLock { $0.endedBy })
    }

    /// What each medium can take on this side: the send codec where it sends, the declared
    /// (or every) codec where it receives.
    static func accepts(_ spec: PipelineSpec) -> [String: [String]] {
        var out: [String: [String]] = [:]
        for media in MediaKind.allCases {
            let send = media == .video ? spec.send?.video : spec.send?.audio
            let receive = media == .video ? spec.receive?.video : spec.receive?.audio
            var codecs: [Codec] = []
            if let send { codecs.append(send.encode.codec) }
            if let receive { codecs += receive.codecs.isEmpty ? Codec.allCases.filter { $0.media == media } : receive.codecs }
            if !codecs.isEmpty { out[media.rawValue] = Array(Set(codecs.map(\.encodingName))).sorted() }
        }
        return out
    }
}
