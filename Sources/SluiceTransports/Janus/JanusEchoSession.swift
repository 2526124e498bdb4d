import Foundation
import GStreamer
import Logging
import SluiceRun
import SluiceSignalling
import Synchronization

/// Janus's EchoTest: one PeerConnection whose send section Janus sends straight back. Sluice
/// offers (every send branch sendrecv, complete with candidates) with the request that starts
/// the echo, and applies Janus's answer; afterwards only hangups and the connection matter.
package final class JanusEchoSession: RemoteSession {
    private let peer: WebRTCPeer
    private let spec: JanusSpec
    private let location: SourceLocation?
    private let connectTimeout: Double
    private let logger: Logger
    private let client = Mutex<JanusClient?>(nil)
    private let handle = Mutex<Int64?>(nil)
    private let status = SessionStatus()
    private let pump = Mutex<Task<Void, Never>?>(nil)
    private let media: (audio: Bool, video: Bool)
    private let builder: GraphBuilder

    package init(
        peer: WebRTCPeer, spec: JanusSpec, builder: GraphBuilder, transport: TransportSpec,
        media: (audio: Bool, video: Bool), logger: Logger
    ) {
        self.peer = peer
        self.builder = builder
        self.spec = spec
        self.location = transport.location
        self.connectTimeout = JanusSpec.requestTimeout(transport)
        self.media = media
        self.logger = logger
    }

    package func negotiate(stop: StopFlag, deadline: ContinuousClock.Instant?) async throws(RunError) -> Bool {
        let config = spec.clientConfiguration(timeout: connectTimeout)
        await builder.waitForSendCaps(logger: logger)
        let offer: String
        do { offer = try await peer.offerWithCandidates() } catch {
            throw RunError("Janus: cannot make the offer for the EchoTest: \(error.message)", at: location)
        }
        let reply: JanusClient.Reply
        do throws(JanusClient.Failure) {
            let client = try await JanusClient.connect(config, logger: logger)
            self.client.withLock { $0 = client }
            let handle = try await client.attach(JanusEchoTest.plugin)
            self.handle.withLock { $0 = handle }
            watch(client, handle: handle)
            reply = try await client.message(
                JanusEchoTest.start(audio: media.audio, video: media.video),
                jsep: .init(type: "offer", sdp: offer), handle: handle)
        } catch {
            throw RunError("Janus: \(error.description)", at: location)
        }
        try await apply(reply)
        status.negotiated()
        logger.info("Janus: the EchoTest sends back \([media.audio ? "audio" : nil, media.video ? "video" : nil].compactMap { $0 }.joined(separator: " and "))")
        return try await status.waitUntilNegotiated(stop: stop, deadline: deadline)
    }

    /// Applies the EchoTest's answer; throws with the plugin's complaint when it has no answer.
    private func apply(_ reply: JanusClient.Reply) async throws(RunError) {
        if let refusal = JanusEchoTest.refusal(reply.data) {
            throw RunError("Janus: the EchoTest refused the offer: \(refusal)", at: location)
        }
        guard JanusEchoTest.accepted(reply.data), let answer = reply.jsep, answer.type == "answer" else {
            throw RunError("Janus: the EchoTest answered without an SDP answer: \(reply.data.text.prefix(200))", at: location)
        }
        if let problem = SDPCheck.problem(in: answer.sdp) {
            throw RunError("Janus: the EchoTest's SDP answer is malformed: \(problem)", at: location)
        }
        logger.debug("Janus: EchoTest answer:\n\(answer.sdp)")
        do {
            try await peer.setRemoteDescription(try SessionDescription(kind: .answer, sdp: answer.sdp))
        } catch {
            throw RunError("Janus: the EchoTest's answer cannot be applied: \(error)", at: location)
        }
    }

    /// Follows what Janus sends unasked: a hangup or the connection closing fails the run.
    private func watch(_ client: JanusClient, handle: Int64) {
        pump.withLock {
            $0 = Task { [status, spec, location, logger] in
                for await event in client.events {
                    switch event {
                    case .hangup(let h, let reason) where h == handle:
                        status.fail(RunError("Janus: Janus closed the EchoTest's PeerConnection (\(reason))", at: location))
                    case .webrtcUp(let h) where h == handle:
                        logger.info("Janus: the EchoTest's PeerConnection is up")
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
        if let handle = handle.withLock({ $0 }) { await client.detach(handle) }
        await client.close()
        pump.withLock { $0?.cancel() }
    }

    package var report: RunSummary.Session? {
        var s = RunSummary.Session(role: "echo", id: JanusEchoTest.plugin, ended_by_peer: status.endedBy)
        s.peer = spec.server
        return s
    }
}
