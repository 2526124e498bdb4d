import GStreamer
import SluiceSignalling

/// `kind: apprtc`: joins `room` on an AppRTC-compatible room server; whoever joins first
/// offers, the second answers; messages travel over the server's WebSocket.
struct AppRTCTransport: Transport {
    func prepare(_ c: TransportContext) async throws(RunError) -> TransportSetup {
        let spec = c.spec
        let joined: AppRTCClient.Joined
        do {
            joined = try await AppRTCClient.join(server: spec.transport.endpoint ?? "", room: spec.transport.room ?? "")
        } catch {
            throw RunError("apprtc: \(error.description)", at: spec.transport.location)
        }
        c.logger.info("room '\(joined.room)': joined as \(joined.isInitiator ? "initiator (offers)" : "second peer (answers)")")
        let p = try roomPeer(c, initiator: joined.isInitiator)
        // The second peer answers: what it sends waits for the offer's payload types.
        if !joined.isInitiator { c.builder.holdSend() }
        let remote = RoomSession(peer: p, joined: joined, accepts: RoomSession.accepts(spec),
                                 builder: c.builder, location: spec.transport.location, logger: c.logger)
        return TransportSetup(player: p, remote: remote,
                              opensChannels: joined.isInitiator ? p.webrtcbin : nil,
                              acceptsChannels: joined.isInitiator ? nil : p.webrtcbin)
    }

    /// The one webrtcbin of a room peer: send branches on transceivers that say what they
    /// send (so the other peer's offer matches them), and, for the initiator, receive-only
    /// transceivers for what it only receives.
    private func roomPeer(_ c: TransportContext, initiator: Bool) throws(RunError) -> WebRTCPeer {
        let spec = c.spec
        let bin = try c.receivingBin("peer")
        for branch in [spec.send?.video, spec.send?.audio].compactMap({ $0 }) {
            try c.builder.buildSend(branch, into: bin)
            let receives = (branch.media == .video ? spec.receive?.video : spec.receive?.audio) != nil
            // In 1.22 a requested pad's transceiver has no kind until caps flow: declare it.
            guard let pad = c.builder.webrtcInputs[branch.media],
                  let transceiver = pad.objectProperty("transceiver", as: Object.self) else { continue }
            do {
                try transceiver.set("direction", fromString: receives ? "sendrecv" : "sendonly")
                let caps = c.builder.sendParameters[branch.media]?.caps ?? EncoderPresets.rtpCaps(for: branch.encode.codec)
                try transceiver.set("codec-preferences", value: try Caps(caps).asValue())
            } catch {
                throw RunError("cannot set up sending \(branch.media.rawValue): \(error.message)", at: branch.location)
            }
        }
        if initiator {
            for branch in [spec.receive?.video, spec.receive?.audio].compactMap({ $0 })
            where (branch.media == .video ? spec.send?.video : spec.send?.audio) == nil {
                try c.addReceiveOnly(branch.media, codecs: branch.codecs, to: bin, at: branch.location)
            }
        }
        return WebRTCPeer(bin, label: initiator ? "offerer" : "answerer")
    }
}
