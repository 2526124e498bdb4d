import Foundation
import GStreamer
import SluiceSignalling
import Synchronization
import SluiceRun
import SluiceMeasure
import SluiceLoad

/// One WHEP viewer's or WHIP publisher's session: the client's complete offer POSTed to the
/// endpoint (`{client}` in it is the client's number), the answer applied, and the DELETE of
/// the session URL the server gave when the client leaves.
package final class OfferPostSession: LoadSession {
    /// A session for client `client` of `spec`'s endpoint.
    package static func make(for spec: PipelineSpec, client: Int, protocolName: String) throws(RunError) -> OfferPostSession {
        let settings = spec.transport.settings(as: EndpointSettings.self) ?? EndpointSettings(endpoint: "")
        let endpoint = settings.endpoint.replacingOccurrences(of: "{client}", with: String(client))
        do {
            return OfferPostSession(client: try WHIPClient(endpoint: endpoint, token: settings.token))
        } catch {
            throw RunError("\(protocolName): \(error.description)", at: spec.transport.location)
        }
    }

    private let client: WHIPClient
    private let sessionURL = Mutex<URL?>(nil)

    package init(client: WHIPClient) { self.client = client }

    package func join(_ peer: WebRTCPeer, sending: any LoadSendSetup) async throws(LoadJoinFailure) {
        let offer: String
        do { offer = try await peer.offerWithCandidates() } catch {
            throw .badAnswer("the client could not make its offer: \(error.message)")
        }
        let answer: String
        do {
            let (sdp, session) = try await client.post(offer: offer)
            sessionURL.withLock { $0 = session }
            answer = sdp
        } catch {
            switch error.status {
            case nil: throw .unreachable(error.description)
            case .some(200..<300): throw .badAnswer(error.description)
            case .some: throw .refused(error.description)
            }
        }
        try await LoadJoinFailure.apply(answer: answer, to: peer)
    }

    package func leave() async {
        guard
            let url = sessionURL.withLock({ u in
                defer { u = nil }; return u
            })
        else { return }
        await client.delete(session: url)
    }
}
