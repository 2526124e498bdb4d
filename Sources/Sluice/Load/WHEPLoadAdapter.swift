import Foundation
import GStreamer
import SluiceSignalling
import Synchronization

/// `transport.kind: whep` under load: each client POSTs its complete recvonly offer to the
/// endpoint, applies the answer and DELETEs its session when it leaves.
struct WHEPLoadAdapter: LoadAdapter {
    let kind = TransportKind.whep
    let role = LoadRole.viewer

    func session(for spec: PipelineSpec, client: Int) throws(RunError) -> any LoadSession {
        let settings = spec.transport.settings(as: EndpointSettings.self) ?? EndpointSettings(endpoint: "")
        do {
            return WHEPLoadSession(client: try WHIPClient(endpoint: settings.endpoint, token: settings.token))
        } catch {
            throw RunError("WHEP: \(error.description)", at: spec.transport.location)
        }
    }
}

/// One WHEP viewer's session: the POST, then the DELETE of the URL the server gave.
final class WHEPLoadSession: LoadSession {
    private let client: WHIPClient
    private let sessionURL = Mutex<URL?>(nil)

    init(client: WHIPClient) { self.client = client }

    func join(_ peer: WebRTCPeer) async throws(LoadJoinFailure) {
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
        do {
            try await peer.setRemoteDescription(try SessionDescription(kind: .answer, sdp: answer))
        } catch let e as NegotiationError {
            throw .badAnswer("the answer could not be applied: \(e.message)")
        } catch {
            throw .badAnswer("the answer could not be applied: \(error)")
        }
    }

    func leave() async {
        guard
            let url = sessionURL.withLock({ u in
                defer { u = nil }; return u
            })
        else { return }
        await client.delete(session: url)
    }
}
