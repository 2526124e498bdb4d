import Foundation
import GStreamer
import Logging
import SluiceRun
import SluiceSignalling
import Synchronization

/// One PeerConnection with a Janus plugin that answers Sluice's offer (`JanusOfferPlugin`:
/// EchoTest, AudioBridge). Sluice offers (complete with candidates) with the plugin's
/// requests, and applies Janus's answer; afterwards only hangups and the connection matter.
package final class JanusOfferSession: RemoteSession {
    private let peer: WebRTCPeer
    private let spec: JanusSpec
    private let location: SourceLocation?
    private let connectTimeout: Double
    private let logger: Logger
    private let client = Mutex<JanusClient?>(nil)
    private let handle = Mutex<Int64?>(nil)
    private let status = SessionStatus()
    private let pump = Mutex<Task<Void, Never>?>(nil)
    private let plugin: any JanusOfferPlugin
    private let builder: GraphBuilder

    package init(
        peer: WebRTCPeer, spec: JanusSpec, plugin: any JanusOfferPlugin, builder: GraphBuilder, transport: TransportSpec,
        logger: Logger
    ) {
        self.peer = peer
        self.builder = builder
        self.spec = spec
        self.plugin = plugin
        self.location = transport.location
        self.connectTimeout = JanusSpec.requestTimeout(transport)
        self.logger = logger
    }

    package func negotiate(stop: StopFlag, deadline: ContinuousClock.Instant?) async throws(RunError) -> Bool {
        let config = spec.clientConfiguration(timeout: connectTimeout)
        await builder.waitForSendCaps(logger: logger)
        let offer: String
        do { offer = try await peer.offerWithCandidates() } catch {
            throw RunError("Janus: cannot make the offer for \(plugin.name): \(error.message)", at: location)
        }
        let reply: JanusClient.Reply
        do throws(JanusClient.Failure) {
            let client = try await JanusClient.connect(config, logger: logger)
            self.client.withLock { $0 = client }
            let handle = try await client.attach(plugin.plugin)
            self.handle.withLock { $0 = handle }
            watch(client, handle: handle)
            reply = try await plugin.exchange(offer: offer, client: client, handle: handle, logger: logger)
        } catch {
            throw RunError("Janus: \(error.description)", at: location)
        }
        try await apply(reply)
        status.negotiated()
        logger.info("Janus: \(plugin.started)")
        return try await status.waitUntilNegotiated(stop: stop, deadline: deadline)
    }

    /// Applies the plugin's answer; throws with the plugin's complaint when it has no answer.
    private func apply(_ reply: JanusClient.Reply) async throws(RunError) {
        let sdp: String
        do { sdp = try JanusOfferSession.answer(in: reply, from: plugin) } catch { throw RunError("Janus: \(error)", at: location) }
        logger.debug("Janus: \(plugin.name)'s answer:\n\(sdp)")
        do {
            try await peer.setRemoteDescription(try SessionDescription(kind: .answer, sdp: sdp))
        } catch {
            throw RunError("Janus: \(plugin.name)'s answer cannot be applied: \(error)", at: location)
        }
    }

    /// The SDP answer in the reply to the offer; a refusal, a reply without an answer or a
    /// malformed answer is thrown as what to tell the user.
    package static func answer(in reply: JanusClient.Reply, from plugin: any JanusOfferPlugin) throws(JanusClient.Failure) -> String {
        if let refusal = JanusEchoTest.refusal(reply.data) {
            throw JanusClient.Failure("\(plugin.name) refused the offer: \(refusal)")
        }
        guard plugin.accepted(reply.data), let answer = reply.jsep, answer.type == "answer" else {
            throw JanusClient.Failure("\(plugin.name) answered without an SDP answer: \(reply.data.text.prefix(200))")
        }
        if let problem = SDPCheck.problem(in: answer.sdp) {
            throw JanusClient.Failure("\(plugin.name)'s SDP answer is malformed: \(problem)")
        }
        return answer.sdp
    }

    /// Follows what Janus sends unasked: a hangup or the connection closing fails the run.
    private func watch(_ client: JanusClient, handle: Int64) {
        pump.withLock {
            $0 = Task { [status, spec, plugin, location, logger] in
                for await event in client.events {
                    switch event {
                    case .hangup(let h, let reason) where h == handle:
                        status.fail(RunError("Janus: Janus closed the PeerConnection with \(plugin.name) (\(reason))", at: location))
                    case .webrtcUp(let h) where h == handle:
                        logger.info("Janus: the PeerConnection with \(plugin.name) is up")
                    case .timeout:
                        status.fail(RunError("Janus: Janus timed the session out (keepalives did not arrive in time)", at: location))
                    case .closed(let why):
                        status.fail(RunError("Janus: the connection to Janus (\(spec.server)) closed\(why.map { ": \($0)" } ?? "")", at: location))
                    default:
                        break
                    }
                }
            }
        }
    }

    package func tick() async throws(RunError) -> String? { try status.tick() }

    package func end() async {
        status.leave()
        guard let client = client.withLock({ $0 }) else { return }
        if let handle = handle.withLock({ $0 }) {
            if let leave = plugin.leave { _ = try? await client.message(leave, handle: handle) }
            await client.detach(handle)
        }
        await client.close()
        pump.withLock { $0?.cancel() }
    }

    package var report: RunSummary.Session? {
        var s = RunSummary.Session(role: plugin.role, id: plugin.plugin, ended_by_peer: status.endedBy)
        s.peer = spec.server
        return s
    }
}
