import Foundation
import GStreamer
import SluiceSignalling
import Synchronization
import SluiceRun
import SluiceMeasure
import SluiceLoad

/// `transport.kind: camera` under load: each client is a viewer of one camera API device
/// (Nest SDM style, as `sluice serve` offers every stream): GenerateWebRtcStream with a
/// complete recvonly audio + video + data channel offer, ExtendWebRtcStream half-way through
/// each lease while it stays, StopWebRtcStream when it leaves.
package struct CameraLoadAdapter: LoadAdapter {
    package let kind = TransportKind.camera
    package let roles: Set<LoadRole> = [.viewer]

    /// The camera API takes audio, video and a data channel, in that order, whatever the file
    /// receives (what it does not receive is not counted).
    package func viewerOffer(for spec: PipelineSpec) -> LoadViewerOffer { LoadViewerOffer(media: [.audio, .video], dataChannel: "sluice") }

    package func session(for spec: PipelineSpec, role: LoadRole, client: Int) throws(RunError) -> any LoadSession {
        let settings = spec.transport.settings(as: EndpointSettings.self) ?? EndpointSettings(endpoint: "")
        do {
            return CameraLoadSession(client: try CameraClient(device: settings.endpoint, token: settings.token))
        } catch {
            throw RunError("camera: \(error.description)", at: spec.transport.location)
        }
    }
}

/// One load viewer's camera stream: generated with the client's offer, extended half-way
/// through each lease, stopped at the end.
package final class CameraLoadSession: LoadSession {
    private struct Lease {
        var id: String?
        var grantedAt = Date()
        var expiresAt = Date.distantFuture
    }
    private let client: CameraClient
    private let lease = Mutex(Lease())

    package init(client: CameraClient) { self.client = client }

    package func join(_ peer: WebRTCPeer, sending: any LoadSendSetup) async throws(LoadJoinFailure) {
        let offer: String
        do { offer = try await peer.offerWithCandidates() } catch {
            throw .badAnswer("the client could not make its offer: \(error.message)")
        }
        if let problem = CameraAPI.offerProblem(offer) {
            throw .badAnswer("Sluice built an offer the camera API refuses (\(problem.message)); please report this")
        }
        let stream: CameraClient.Stream
        do { stream = try await client.generate(offer: offer) } catch {
            throw error.status == nil ? .unreachable(error.description) : .refused(error.description)
        }
        lease.withLock { $0 = Lease(id: stream.mediaSessionId, grantedAt: Date(), expiresAt: stream.expiresAt) }
        guard let answer = stream.answerSdp else { throw .badAnswer("the camera answered GenerateWebRtcStream without answerSdp") }
        if let problem = SDPCheck.problem(in: answer) { throw .badAnswer("the camera's answer is malformed: \(problem)") }
        try await LoadJoinFailure.apply(answer: answer, to: peer)
    }

    /// Extends the lease once half of it has gone; the stream is over when the camera no
    /// longer knows it or the lease ran out.
    package func keepAlive() async -> String? {
        let current = lease.withLock { $0 }
        guard let id = current.id else { return nil }
        let now = Date()
        if now >= current.expiresAt { return "the camera stream expired at \(CameraAPI.timestamp(current.expiresAt))" }
        guard now >= current.grantedAt.addingTimeInterval(current.expiresAt.timeIntervalSince(current.grantedAt) / 2) else { return nil }
        do {
            let extended = try await client.extend(id)
            lease.withLock {
                $0.grantedAt = now; $0.expiresAt = extended.expiresAt
            }
        } catch {
            if error.status == "NOT_FOUND" { return "the camera ended the stream (\(error.description))" }
            // Tried again at the next call, until the lease runs out.
        }
        return nil
    }

    package func leave() async {
        guard
            let id = lease.withLock({ l in
                defer { l.id = nil }; return l.id
            })
        else { return }
        _ = await client.stop(id)
    }
}
