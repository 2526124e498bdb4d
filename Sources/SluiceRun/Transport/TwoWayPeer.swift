import GStreamer

extension TransportContext {
    /// The one webrtcbin of a two-way peer (room, Jingle call): send branches on transceivers that say what they
    /// send (so the other peer's offer matches them), and, for the initiator, receive-only
    /// transceivers for what it only receives.
    package func twoWayPeer(initiator: Bool) throws(RunError) -> WebRTCPeer {
        let bin = try receivingBin("peer")
        for branch in spec.sendBranches {
            try builder.buildSend(branch, into: bin)
            let receives = (branch.media == .video ? spec.receive?.video : spec.receive?.audio) != nil
            // In 1.22 a requested pad's transceiver has no kind until caps flow: declare it.
            guard let pad = builder.webrtcInputs[branch.media],
                let transceiver = pad.objectProperty("transceiver", as: Object.self)
            else { continue }
            do {
                try transceiver.set("direction", fromString: receives ? "sendrecv" : "sendonly")
                let caps = builder.sendParameters[branch.media]?.caps ?? EncoderPresets.rtpCaps(for: branch.encode.codec)
                try transceiver.set("codec-preferences", value: try Caps(caps).asValue())
            } catch {
                throw RunError("cannot set up sending \(branch.media.rawValue): \(error.message)", at: branch.location)
            }
        }
        // What the peer takes of simulcast is known from its description (`PeerNegotiation`).
        builder.holdSimulcastLayers()
        if initiator {
            for branch in spec.receiveBranches
            where (branch.media == .video ? spec.send?.video : spec.send?.audio) == nil {
                try addReceiveOnly(branch.media, codecs: branch.codecs, to: bin, at: branch.location)
            }
        }
        return WebRTCPeer(bin, label: initiator ? "offerer" : "answerer")
    }
}
