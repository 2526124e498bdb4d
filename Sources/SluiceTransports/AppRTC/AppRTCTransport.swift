import GStreamer
import SluiceSignalling
import SluiceRun

extension TransportKind {
    /// Meet the other peer in a room of an AppRTC-compatible server (`endpoint`, `room`):
    /// the first to join offers, the second answers. Both sections may be present.
    public static let apprtc = TransportKind(rawValue: "apprtc")
}

/// `kind: apprtc`: the room server and the room.
package struct AppRTCSettings: KindSettings, Equatable {
    /// The room server's URL.
    package var endpoint: String
    package var room: String
}

/// `kind: apprtc`: joins `room` on an AppRTC-compatible room server; whoever joins first
/// offers, the second answers; messages travel over the server's WebSocket.
package struct AppRTCTransport: Transport {
    package let kind = TransportKind.apprtc
    package let keys = ["endpoint", "room"]
    /// Simulcast goes to a peer whose answer takes it; a peer that takes one stream gets the
    /// top layer alone (`PeerNegotiation`).
    package let abilities: TransportAbilities = [.webRTC, .dataChannels, .simulcast]

    package func decodeSettings(_ map: [SpecEntry], at location: SourceLocation, with decoder: inout SpecDecoder) -> (any KindSettings)? {
        let endpoint = decoder.decodeEndpoint(
            map, kind: kind, example: "http://127.0.0.1:8443 (the server; the room goes in 'room')",
            at: location)
        guard let room = map.entry("room") else {
            decoder.fail("transport kind 'apprtc' needs a 'room' to join", at: location)
            return nil
        }
        guard let name = decoder.nonEmptyText(room) else { return nil }
        guard name.count <= 128, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
            decoder.fail("room names are 1 to 128 letters, digits, '-' or '_', got '\(name)'", at: room.value.location)
            return nil
        }
        return endpoint.map { AppRTCSettings(endpoint: $0, room: name) }
    }

    package func prepare(_ c: TransportContext) async throws(RunError) -> TransportSetup {
        let spec = c.spec
        let joined: AppRTCClient.Joined
        do {
            let settings = spec.transport.settings(as: AppRTCSettings.self)
            joined = try await AppRTCClient.join(server: settings?.endpoint ?? "", room: settings?.room ?? "")
        } catch {
            throw RunError("apprtc: \(error.description)", at: spec.transport.location)
        }
        c.logger.info("room '\(joined.room)': joined as \(joined.isInitiator ? "initiator (offers)" : "second peer (answers)")")
        let p = try c.twoWayPeer(initiator: joined.isInitiator)
        // The second peer answers: what it sends waits for the offer's payload types.
        if !joined.isInitiator { c.builder.holdSend() }
        let remote = RoomSession(peer: p, joined: joined, builder: c.builder, spec: spec, logger: c.logger)
        return TransportSetup(
            peer: p, session: remote,
            opensChannels: joined.isInitiator ? p.webrtcbin : nil,
            acceptsChannels: joined.isInitiator ? nil : p.webrtcbin)
    }
}
