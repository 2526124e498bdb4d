import Foundation
import GStreamer
import Logging
import SluiceSignalling
import Synchronization
import SluiceRun

/// Plays a camera through the camera API (modelled on Nest's Smart Device Management):
/// GenerateWebRtcStream with a complete recvonly audio + video + data channel offer, then
/// ExtendWebRtcStream half-way to each `expiresAt`, and StopWebRtcStream at the end.
package final class CameraSession: RemoteSession {
    package let peer: WebRTCPeer
    private let client: CameraClient
    private let location: SourceLocation?
    private let logger: Logger

    private struct State {
        var id: String?
        /// The session's id, kept for the summary after it ends.
        var reportedId: String?
        /// When the current lease was granted and when it runs out.
        var grantedAt = Date()
        var expiresAt = Date.distantFuture
        var extensions = 0
        var lastExtendError: String?
        var endedBy: String?
    }
    private let state = Mutex(State())

    package init(peer: WebRTCPeer, endpoint: EndpointSettings, at location: SourceLocation?, logger: Logger) throws(RunError) {
        self.peer = peer
        self.location = location
        self.logger = logger
        do { client = try CameraClient(device: endpoint.endpoint, token: endpoint.token) } catch {
            throw RunError("camera: \(error.description)", at: location)
        }
    }

    package func negotiate(stop: StopFlag, deadline: ContinuousClock.Instant?) async throws(RunError) -> Bool {
        do {
            let offer = try await peer.offerWithCandidates()
            if let problem = CameraAPI.offerProblem(offer) {
                // Our own offer must be what the API takes; say so rather than blame the camera.
                throw RunError("camera: Sluice built an offer the camera API refuses (\(problem.message)); please report this", at: location)
            }
            let stream = try await client.generate(offer: offer)
            state.withLock {
                $0.id = stream.mediaSessionId; $0.reportedId = stream.mediaSessionId; $0.grantedAt = Date(); $0.expiresAt = stream.expiresAt
            }
            try await peer.setRemoteDescription(try SessionDescription(kind: .answer, sdp: stream.answerSdp ?? ""))
            logger.info("camera stream \(stream.mediaSessionId) until \(CameraAPI.timestamp(stream.expiresAt))")
            return true
        } catch let e as CameraClient.Failure {
            throw RunError("camera: \(e.description)", at: location)
        } catch let e as NegotiationError {
            throw RunError("camera: \(e.message)", at: location)
        } catch let e as RunError {
            throw e
        } catch {
            throw RunError("camera: \(error)", at: location)
        }
    }

    /// Extends the lease once half of it has gone; stops the run when the camera ended the
    /// session or the lease ran out without an extension.
    package func tick() async throws(RunError) -> String? {
        let (id, granted, expires) = state.withLock { ($0.id, $0.grantedAt, $0.expiresAt) }
        guard let id else { return nil }
        let now = Date()
        if now >= expires {
            let why =
                "the stream expired at \(CameraAPI.timestamp(expires))"
                + (state.withLock { $0.lastExtendError }.map { " (extending failed: \($0))" } ?? "")
            state.withLock { $0.endedBy = why }
            return why
        }
        let halfway = granted.addingTimeInterval(expires.timeIntervalSince(granted) / 2)
        guard now >= halfway else { return nil }
        do {
            let extended = try await client.extend(id)
            state.withLock {
                $0.grantedAt = now; $0.expiresAt = extended.expiresAt; $0.extensions += 1; $0.lastExtendError = nil
            }
            logger.info("camera stream \(id) extended until \(CameraAPI.timestamp(extended.expiresAt))")
        } catch {
            if error.status == "NOT_FOUND" {
                let why = "the camera ended the stream (\(error.description))"
                state.withLock {
                    $0.endedBy = why; $0.id = nil
                }
                return why
            }
            // Keep trying until the lease runs out; the next tick retries.
            logger.warning("camera: extending failed, retrying: \(error.description)")
            state.withLock { $0.lastExtendError = error.description }
        }
        return nil
    }

    package func end() async {
        guard
            let id = state.withLock({ s in
                defer { s.id = nil }; return s.id
            })
        else { return }
        if let failure = await client.stop(id), failure.status != "NOT_FOUND" {
            logger.warning("camera: stopping the stream failed: \(failure.description)")
        }
    }

    package var report: RunSummary.Session? {
        state.withLock { RunSummary.Session(role: "viewer", id: $0.reportedId, extensions: $0.extensions, ended_by_peer: $0.endedBy) }
    }
}
