import Foundation
import GStreamer
import Logging
import SluiceSignalling
import SluiceRun
import SluiceLoad

/// One load member of a Janus AudioBridge room: create a session, attach to the AudioBridge,
/// `join` under its own display name, then `configure` with its complete offer and apply
/// Janus's answer (`AudioBridgePlugin`, the exchange `sluice run` makes too); `leave` and
/// `destroy` at the end. A full room, a wrong pin or room are Janus's own errors.
package final class JanusAudioBridgeLoadSession: LoadSession {
    private let spec: JanusSpec
    private let plugin: AudioBridgePlugin
    private let timeout: Double
    private let connection = JanusLoadConnection()

    /// Member `display` of `spec`'s room whose requests wait at most `timeout` seconds.
    package init(spec: JanusSpec, display: String, timeout: Double) {
        self.spec = spec
        plugin = AudioBridgePlugin(spec: spec, display: display)
        self.timeout = timeout
    }

    package func join(_ peer: WebRTCPeer, sending: any LoadSendSetup) async throws(LoadJoinFailure) {
        let offer: String
        do {
            try sending.setUpToOffer()
            offer = try await peer.offerWithCandidates()
        } catch {
            throw .badAnswer("the member could not make its offer: \(error)")
        }
        let reply: JanusClient.Reply
        do throws(JanusClient.Failure) {
            let (client, handle) = try await connection.attach(plugin.plugin, spec: spec, timeout: timeout)
            reply = try await plugin.exchange(offer: offer, client: client, handle: handle, logger: Logger(label: "sluice.load"))
        } catch {
            throw JanusLoadSession.failure(error)
        }
        let answer: String
        do { answer = try JanusOfferSession.answer(in: reply, from: plugin) } catch { throw .badAnswer(error.description) }
        try await LoadJoinFailure.apply(answer: answer, to: peer)
    }

    package func leave() async { await connection.leave() }
}
