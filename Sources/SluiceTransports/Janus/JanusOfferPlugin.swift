import Logging
import SluiceSignalling

/// A Janus plugin that answers an offer Sluice makes on one PeerConnection: how to send the
/// offer (the plugin's requests) and what its reply must say. `JanusOfferSession` runs it
/// for `sluice run`; a load member of an AudioBridge room runs the same exchange.
package protocol JanusOfferPlugin: Sendable {
    /// The plugin's name, for `attach`.
    var plugin: String { get }
    /// The session's role in a run's summary.
    var role: String { get }
    /// The plugin as messages name it ("the EchoTest", "AudioBridge room 1234").
    var name: String { get }
    /// What the log says once the plugin answered.
    var started: String { get }
    /// The request that leaves, before the handle is detached, if the plugin has one.
    var leave: JSONValue? { get }
    /// Sends `offer` with the plugin's requests; returns the reply that carries the answer.
    func exchange(offer: String, client: JanusClient, handle: Int64, logger: Logger) async throws(JanusClient.Failure) -> JanusClient.Reply
    /// Whether the reply to the offer says the plugin took it.
    func accepted(_ data: JSONValue) -> Bool
}

/// Janus's EchoTest: the offer goes with the request that starts the echo of each medium sent.
package struct EchoTestPlugin: JanusOfferPlugin {
    /// Whether the run sends audio and video, the media the EchoTest is asked to send back.
    package var audio: Bool, video: Bool
    package var plugin: String { JanusEchoTest.plugin }
    package var role: String { "echo" }
    package var name: String { "the EchoTest" }
    package var leave: JSONValue? { nil }
    package var started: String {
        "the EchoTest sends back \([audio ? "audio" : nil, video ? "video" : nil].compactMap { $0 }.joined(separator: " and "))"
    }

    package func exchange(offer: String, client: JanusClient, handle: Int64, logger: Logger) async throws(JanusClient.Failure) -> JanusClient.Reply {
        try await client.message(JanusEchoTest.start(audio: audio, video: video), jsep: .init(type: "offer", sdp: offer), handle: handle)
    }

    package func accepted(_ data: JSONValue) -> Bool { JanusEchoTest.accepted(data) }
}

/// Janus's AudioBridge: `join` the room, then `configure` unmuted with the offer. Janus mixes
/// every participant's audio and sends each the mix of the others.
package struct AudioBridgePlugin: JanusOfferPlugin {
    /// The room, the name others see, the room's pin, and Janus's buffer for this participant.
    package var room: String, display: String?, pin: String?, prebuffer: Int?
    package var plugin: String { JanusAudioBridge.plugin }
    package var role: String { "audiobridge" }
    package var name: String { "AudioBridge room \(room)" }
    package var leave: JSONValue? { JanusAudioBridge.leave }
    package var started: String { "in AudioBridge room \(room): the room hears this run's audio, and this run hears the room's mix" }

    package init(spec: JanusSpec, display: String? = nil) {
        room = spec.room
        self.display = display ?? spec.display
        pin = spec.pin
        prebuffer = spec.prebuffer
    }

    package func exchange(offer: String, client: JanusClient, handle: Int64, logger: Logger) async throws(JanusClient.Failure) -> JanusClient.Reply {
        let joined = try await client.message(
            JanusAudioBridge.join(room: .init(room), display: display, pin: pin, prebuffer: prebuffer), handle: handle)
        guard JanusAudioBridge.joinedID(joined.data) != nil else {
            throw JanusClient.Failure("\(name) answered 'join' without 'joined': \(joined.data.text.prefix(200))")
        }
        let others = JanusAudioBridge.participants(in: joined.data)
        logger.info("Janus: joined \(name) with \(others.count) other participant\(others.count == 1 ? "" : "s")")
        return try await client.message(JanusAudioBridge.configure, jsep: .init(type: "offer", sdp: offer), handle: handle)
    }

    package func accepted(_ data: JSONValue) -> Bool { JanusAudioBridge.accepted(data) }
}
