import Foundation
import GStreamer
import SluiceSignalling
import SluiceRun
import SluiceMeasure
import SluiceLoad

/// One load publisher in a Janus VideoRoom: create a session, attach to the VideoRoom,
/// `join` as a publisher under its own display name, `publish` its complete offer and apply
/// Janus's answer; `leave` and `destroy` at the end. A room that is full (its `publishers`
/// setting), a wrong pin or room are Janus's own errors: the client is refused with them.
package final class JanusPublisherLoadSession: LoadSession {
    private let spec: JanusSpec
    private let display: String
    private let timeout: Double
    private let connection = JanusLoadConnection()

    /// A publisher named `display` in `spec`'s room whose requests wait at most `timeout` seconds.
    package init(spec: JanusSpec, display: String, timeout: Double) {
        self.spec = spec
        self.display = display
        self.timeout = timeout
    }

    package func join(_ peer: WebRTCPeer, sending: any LoadSendSetup) async throws(LoadJoinFailure) {
        let client: JanusClient, handle: Int64
        do throws(JanusClient.Failure) {
            (client, handle) = try await connection.attach(JanusVideoRoom.plugin, spec: spec, timeout: timeout)
            let reply = try await client.message(
                JanusVideoRoom.join(room: .init(spec.room), display: display, pin: spec.pin), handle: handle)
            guard JanusVideoRoom.joined(reply.data) != nil else {
                throw JanusClient.Failure("Janus answered 'join' with something else: \(reply.data.text.prefix(200))")
            }
        } catch {
            throw JanusLoadSession.failure(error)
        }
        let offer: String
        do { offer = try await peer.offerWithCandidates() } catch {
            throw .badAnswer("the client could not make its offer: \(error.message)")
        }
        let answer: JanusClient.Reply
        do {
            answer = try await client.message(JanusVideoRoom.publish(display: display), jsep: .init(type: "offer", sdp: offer), handle: handle)
        } catch {
            throw JanusLoadSession.failure(error)
        }
        guard let jsep = answer.jsep, jsep.type == "answer" else {
            throw .badAnswer("Janus answered 'publish' without an SDP answer: \(answer.data.text.prefix(200))")
        }
        if let problem = SDPCheck.problem(in: jsep.sdp) { throw .badAnswer("Janus's answer is malformed: \(problem)") }
        do {
            try await peer.setRemoteDescription(try SessionDescription(kind: .answer, sdp: jsep.sdp))
        } catch {
            throw .badAnswer("Janus's answer could not be applied: \(error)")
        }
    }

    package func leave() async { await connection.leave() }
}
