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
        let p = try c.twoWayPeer(initiator: joined.isInitiator)
        // The second peer answers: what it sends waits for the offer's payload types.
        if !joined.isInitiator { c.builder.holdSend() }
        let remote = RoomSession(peer: p, joined: joined, builder: c.builder, spec: spec, logger: c.logger)
        return TransportSetup(player: p, remote: remote,
                              opensChannels: joined.isInitiator ? p.webrtcbin : nil,
                              acceptsChannels: joined.isInitiator ? nil : p.webrtcbin)
    }
}
