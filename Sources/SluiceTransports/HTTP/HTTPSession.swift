import Foundation
import Logging
import GStreamer
import SluiceRun
import SluiceSignalling
import Synchronization

/// WHEP playing or WHIP publishing: one complete offer POSTed, the answer applied, the
/// session URL DELETEd at the end.
package final class HTTPSession: RemoteSession {
    package let peer: WebRTCPeer
    private let client: WHIPClient
    private let what: String
    private let location: SourceLocation?
    private let sessionURL = Mutex<URL?>(nil)
    private let logger: Logger
    /// Told the answer once it is applied (a publisher keeps the simulcast layers it takes).
    private let answered: @Sendable (String) -> Void

    /// `protocolName`: WHIP or WHEP, for messages. `location`: the file's `transport:`.
    /// `answered`: told the server's answer once it is applied.
    package init(
        peer: WebRTCPeer, protocolName: String, endpoint: EndpointSettings, at location: SourceLocation?,
        logger: Logger, answered: @escaping @Sendable (String) -> Void = { _ in }
    ) throws(RunError) {
        self.peer = peer
        self.answered = answered
        self.logger = logger
        self.what = protocolName
        self.location = location
        do { client = try WHIPClient(endpoint: endpoint.endpoint, token: endpoint.token) } catch {
            throw RunError("\(protocolName): \(error.description)", at: location)
        }
    }

    package func negotiate(stop: StopFlag, deadline: ContinuousClock.Instant?) async throws(RunError) -> Bool {
        do {
            let offer = SimulcastOffer.namingTrack(in: try await peer.offerWithCandidates(), stream: "sluice", track: "video")
            let (answer, session) = try await client.post(offer: offer)
            logger.debug("\(what) offer:\n\(offer)\nanswer:\n\(answer)")
            sessionURL.withLock { $0 = session }
            try await peer.setRemoteDescription(try SessionDescription(kind: .answer, sdp: answer))
            answered(answer)
            return true
        } catch let e as WHIPClient.Failure {
            throw RunError("\(what): \(e.description)", at: location)
        } catch let e as NegotiationError {
            throw RunError("\(what): \(e.message)", at: location)
        } catch {
            throw RunError("\(what): \(error)", at: location)
        }
    }

    package func tick() async throws(RunError) -> String? { nil }

    package func end() async {
        if let url = sessionURL.withLock({ u in
            defer { u = nil }; return u
        }) {
            await client.delete(session: url)
        }
    }

    package var report: RunSummary.Session? { nil }
}
