import GStreamer
import SluiceSignalling

/// The offer/answer steps two-way sessions share (a room, a Jingle call): answering an offer
/// with the file's send branches moved to the offer's payload parameters, and applying an
/// answer after checking the peers share a codec for each medium.
package struct PeerNegotiation: Sendable {
    package let peer: WebRTCPeer
    /// The graph whose send branches an offer may move to other payload parameters.
    package let builder: GraphBuilder
    /// Codecs this side can take, per medium (an absent medium takes anything).
    package let accepts: [String: [String]]
    /// How errors name the session: "room 'lobby'", "the call with bob@example.org".
    package let session: String
    package let location: SourceLocation?

    package init(peer: WebRTCPeer, builder: GraphBuilder, spec: PipelineSpec, session: String) {
        self.peer = peer
        self.builder = builder
        self.accepts = Self.accepts(spec)
        self.session = session
        self.location = spec.transport.location
    }

    /// Applies `offer`, makes and applies the answer, releases the held send branches, and
    /// returns the answer's SDP as the peer should read it (with the simulcast layers it takes).
    package func answer(_ offer: String) async throws(RunError) -> String {
        do {
            if let refused = SDPSummary.incompatibilities(offer: SDPSummary(offer), accepts: accepts).first {
                throw RunError(refused + "; the peers of \(session) share no codec for that medium", at: location)
            }
            try followOffer(offer)
            try await peer.setRemoteDescription(try SessionDescription(kind: .offer, sdp: offer))
            let answer = try await peer.createAnswer()
            try await peer.setLocalDescription(answer)
            // Only an offer that asks for simulcast (`a=simulcast:recv`) gets layers, and the
            // answer the peer reads says which (webrtcbin's names them all).
            let layers = builder.keepSimulcastLayers(takenIn: offer)
            builder.releaseSend()
            guard !layers.isEmpty else { return answer.sdp }
            return SimulcastAcceptance.answer(answer.sdp, to: offer, taking: layers, mid: nil)
        } catch {
            throw RunError(describe(error, reading: "offer"), at: location)
        }
    }

    /// Applies the other peer's `answer` to `offer` (the one this side made).
    package func apply(answer: String, to offer: String) async throws(RunError) {
        do {
            try await peer.setRemoteDescription(try SessionDescription(kind: .answer, sdp: answer))
        } catch {
            throw RunError(describe(error, reading: "answer"), at: location)
        }
        if let first = SDPSummary.rejections(offer: SDPSummary(offer), answer: SDPSummary(answer), answererAccepts: [:]).first {
            throw RunError(first + "; the peers of \(session) share no codec for that medium", at: location)
        }
        builder.keepSimulcastLayers(takenIn: answer)
    }

    /// Sends each medium with the payload type, MID and MID extension id the offer chose
    /// for it (the branches were built with Sluice's own before the offer came).
    private func followOffer(_ sdp: String) throws(RunError) {
        let sends = builder.sendParameters
        let outputs = MediaKind.allCases.compactMap { m in sends[m].map { (media: m, codec: $0.codec) } }
        // No plan: the offer takes none of what this peer sends (it only sends itself); the
        // codec check has already refused offers that share no codec.
        guard !outputs.isEmpty, let plan = try? ViewerPlan(offer: sdp, outputs: outputs) else { return }
        for track in plan.tracks {
            do { try builder.retargetSend(track.media, to: track.parameters) } catch {
                throw RunError("\(session): \(error.message)", at: location)
            }
        }
    }

    /// A failed step with the other peer's `what` (offer or answer), in the user's words.
    package func describe(_ error: any Error, reading what: String) -> String {
        switch error {
        case let e as GstError: "\(session): the other peer's \(what): \(e.message)"
        case let e as NegotiationError: "\(session): \(e.message)"
        case let e as RunError: e.message
        default: "\(session): \(error)"
        }
    }

    /// What each medium can take on this side: the send codec where it sends, the declared
    /// (or every) codec where it receives.
    package static func accepts(_ spec: PipelineSpec) -> [String: [String]] {
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
