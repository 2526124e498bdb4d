import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import ServiceLifecycle
import Sluice
import SluiceSignalling
import Synchronization

/// The camera API (modelled on Nest's Smart Device Management): every `--pipeline` stream is
/// also a camera device of that name. `POST /enterprises/<project>/devices/<id>:executeCommand`
/// takes GenerateWebRtcStream / ExtendWebRtcStream / StopWebRtcStream; a stream ends at its
/// `expiresAt` unless extended.
public final class CameraSessions: Sendable {
    let sessions: CameraAPI.Sessions
    /// mediaSessionId → (device, WHEP viewer id in the device's hub).
    private let viewers = Mutex<[String: (device: String, viewer: String)]>([:])

    /// No camera sessions yet; each stream `GenerateWebRtcStream` starts lasts `lifetime` seconds
    /// (`CameraAPI.lifetime`, 300, by default) unless `ExtendWebRtcStream` extends it.
    public init(lifetime: TimeInterval = CameraAPI.lifetime) { sessions = CameraAPI.Sessions(lifetime: lifetime) }

    /// The number of camera sessions open now.
    public var count: Int { sessions.count }

    func add(_ session: CameraAPI.Session, viewer: String) { viewers.withLock { $0[session.id] = (session.device, viewer) } }
    func take(_ id: String) -> (device: String, viewer: String)? { viewers.withLock { $0.removeValue(forKey: id) } }

    /// Ends every camera session and its viewer (the end of a drain).
    func removeAll(from streams: StreamDirectory) {
        for s in sessions.expire(now: .distantFuture) {
            if let v = take(s.id) { streams[v.device]?.removeViewer(v.viewer) }
        }
    }
}

/// Ends camera streams whose time is up (checked every `interval` seconds).
struct CameraExpiryService: Service {
    let cameras: CameraSessions
    let streams: StreamDirectory
    let interval: Double

    func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            try? await Task.sleep(for: .milliseconds(Int(interval * 1000)))
            for s in cameras.sessions.expire() {
                if let v = cameras.take(s.id) { streams[v.device]?.removeViewer(v.viewer) }
            }
        }
    }
}

extension SluiceHTTPServer {
    func addCameraRoutes(to router: Routes) {
        let streams = streams, cameras = cameras, drain = drain
        router.post("/enterprises/:project/devices/:command") { request, context -> Response in
            let path = context.parameters.get("command") ?? ""
            let suffix = ":executeCommand"
            guard path.hasSuffix(suffix) else {
                return Self.cameraError(.notFound("Method not found: \(path)"))
            }
            let device = String(path.dropLast(suffix.count))
            let body = (try? await request.body.collect(upTo: 256 * 1024)).map { Data(buffer: $0) } ?? Data()
            let command: CameraAPI.Command
            switch CameraAPI.command(from: body) {
            case .failure(let e): return Self.cameraError(e)
            case .success(let c): command = c
            }
            guard let hub = streams[device] else {
                return Self.cameraError(.notFound("Device \(device) not found"))
            }
            switch command {
            case .generate(let offer):
                if drain.isDraining { return Self.cameraError(CameraAPI.draining) }
                if let problem = CameraAPI.offerProblem(offer) { return Self.cameraError(problem) }
                do {
                    let (viewer, answer) = try await hub.addViewer(offer: offer)
                    let session = cameras.sessions.create(device: device)
                    cameras.add(session, viewer: viewer)
                    return Self.json(CameraAPI.generateResponse(answer: answer, session: session))
                } catch let e as RunError {
                    return Self.cameraError(.invalid("Invalid offerSdp: \(e.message)"))
                }
            case .extend(let id):
                guard let session = cameras.sessions.extend(id, device: device) else {
                    return Self.cameraError(.notFound("Media session \(id) not found or expired"))
                }
                return Self.json(CameraAPI.extendResponse(session: session))
            case .stop(let id):
                guard cameras.sessions.stop(id, device: device), let v = cameras.take(id) else {
                    return Self.cameraError(.notFound("Media session \(id) not found"))
                }
                hub.removeViewer(v.viewer)
                return Self.json("{}")
            }
        }
    }

    static func cameraError(_ e: CameraAPI.APIError) -> Response {
        json(e.body, status: .init(code: e.code))
    }
}

extension CameraAPI {
    /// What Google's APIs answer without credentials, and with credentials that do not reach
    /// the device.
    static let unauthenticated = APIError(
        401, "UNAUTHENTICATED",
        "Request is missing a valid authentication credential: send Authorization: Bearer <token>.")
    static let permissionDenied = APIError(403, "PERMISSION_DENIED", "The caller does not have permission")
    /// New streams while the server drains (Google's APIs answer 503 UNAVAILABLE when a
    /// request should be retried later).
    static let draining = APIError(503, "UNAVAILABLE", "The server is shutting down; retry against another instance.")
}
