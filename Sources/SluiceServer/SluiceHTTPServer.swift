import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import HummingbirdWebSocket
import Logging
import ServiceLifecycle
import Sluice
import SluiceSignalling
import Synchronization

/// `sluice serve`'s HTTP and WebSocket server: WHEP viewers of the served streams
/// (`+WHEP`), WHIP publishers and the relay (`+WHIP`), AppRTC-compatible rooms
/// (`POST /join/<room>`, WebSocket `/ws`, `POST /message/<room>/<client>`,
/// `POST /leave/<room>/<client>`, `/status.json`), the camera API (`+Camera`), the control
/// API at `/api/v1` (`+Control`), `/metrics`, `/healthz` and `/readyz` (`+Operate`) and the
/// page (`+Page`). `ServeHost` wires it together with the rest of `sluice serve`.
///
/// The rooms' rules live in `SluiceSignalling.RoomRegistry`; this type only carries them
/// over HTTP and WebSocket.
public struct SluiceHTTPServer: Sendable {
    /// What `sluice serve`'s options set: where it listens, its token, the ICE servers it
    /// announces, TLS, and the control API's access.
    public struct Configuration: Sendable {
        /// The address to listen on (`--host`, `127.0.0.1` by default).
        public var host: String
        /// The TCP port to listen on (`--port`, 8443 by default).
        public var port: Int
        /// Bearer token every protected route needs (see `router()`); nil: no authentication.
        public var token: String?
        /// ICE servers announced in `Link: rel="ice-server"` headers.
        public var stun: [String]
        /// TURN servers (`turn://user:pass@host:port`, `--turn`) announced in the same `Link` headers.
        public var turn: [String]
        /// PEM certificate chain and private key files: serve HTTPS and WSS instead of HTTP.
        public var tls: (certificate: String, key: String)?
        /// Who may use the control API (`/api/v1`); by default `token` is its admin token.
        public var control: ControlAPIAccess
        /// The folder the control API may create pipelines from (`--pipelines-dir`).
        public var pipelinesFolder: String?
        /// This replica's name in its sessions' URLs (`--instance`), for a proxy in front of
        /// several replicas.
        public var replica = ReplicaRoute.single
        /// JWTs the protected routes accept besides `token` (`--jwks`); the control API's
        /// access gets the same verifier.
        public var jwt: JWTVerifier? {
            didSet { control.jwt = jwt }
        }
        /// Called once the server listens, with the port it is bound to (so `listening on`
        /// is said only once it is true).
        public var onListening: (@Sendable (Int) async -> Void)?
        /// Where relayed publishers are recorded (`--relay-record`), if they are.
        public var relayRecording: RelayRecording.Settings?
        /// A configuration with these options. Without `control`, `token` (if any) is the control
        /// API's only admin token; either way the access is bound to `host`, so an API without an
        /// admin token accepts changes only on a loopback address.
        public init(
            host: String = "127.0.0.1", port: Int = 8443, token: String? = nil,
            stun: [String] = [], turn: [String] = [], tls: (certificate: String, key: String)? = nil,
            control: ControlAPIAccess? = nil, pipelinesFolder: String? = nil
        ) {
            self.host = host; self.port = port; self.token = token; self.stun = stun; self.turn = turn; self.tls = tls
            self.control = (control ?? ControlAPIAccess(adminTokens: token.map { [$0] } ?? [])).bound(to: host)
            self.pipelinesFolder = pipelinesFolder
        }
        /// `https`/`http` (and `wss`/`ws` for the room socket).
        var secure: Bool { tls != nil }
    }

    /// The options the server was made with.
    public let configuration: Configuration
    /// The AppRTC-style rooms (`/join`, `/ws`, `/message`, `/leave`) and their rules.
    public let rooms: RoomRegistry
    /// Pipelines served to WHEP viewers, by stream name (the control API adds and stops them).
    public let streams: StreamDirectory
    /// Receive pipelines for WHIP publishers.
    public let ingest: WHIPIngest
    /// Camera API media sessions.
    public let cameras: CameraSessions
    /// WHEP viewers of a stream's recording (`/whep/<stream>?at=<time>`), each with its own pipeline.
    public let playbacks = RecordingPlaybacks()
    let sockets = SocketCount()
    /// Set on SIGTERM: no new sessions while the live ones finish.
    public let drain = DrainState()
    /// What `/metrics` reports: the process, the server, and each served stream.
    public let metrics = SluiceMetrics()
    let logger: Logger

    /// A server with these options. `streams` are adopted into `directory` (a stream whose name is
    /// taken is left out); `receivers` and `relayAddresses` make the WHIP ingest (see
    /// `WHIPIngest.init`); `webrtc` sets STUN, TURN and the certificate of the WHIP webrtcbins;
    /// camera streams last `cameraLifetime` seconds unless extended. Nothing listens until `run`.
    public init(
        configuration: Configuration = Configuration(), rooms: RoomRegistry = RoomRegistry(),
        streams: [StreamHub] = [], directory: StreamDirectory = StreamDirectory(), receivers: [WHIPIngest.Receiver] = [], relayAddresses: [String]? = nil,
        webrtc: WebRTCRecipe = WebRTCRecipe(),
        cameraLifetime: TimeInterval = CameraAPI.lifetime, logger: Logger = Logger(label: "sluice.serve")
    ) {
        SluiceTransports.registerBuiltIns()
        self.configuration = configuration
        self.rooms = rooms
        self.cameras = CameraSessions(lifetime: cameraLifetime)
        self.ingest = WHIPIngest(receivers, relayAddresses: relayAddresses, recipe: webrtc, relayRecording: configuration.relayRecording)
        self.streams = directory
        for hub in streams { try? directory.adopt(hub, source: hub.spec.file) }
        self.logger = logger
        metrics.add(ProcessMetrics())
        metrics.add(ServerMetrics(rooms: rooms, sockets: sockets, cameras: cameras, drain: drain, ingest: ingest))
        metrics.add(directory)
    }

    /// Open WebSocket connections.
    public var openSockets: Int { sockets.value }

    /// The Hummingbird application: build it, then `runService()` it (or test it).
    /// Throws when the TLS certificate or key cannot be read.
    public func application() throws -> some ApplicationProtocol {
        let router = router()
        let plain = HTTPServerBuilder.http1WebSocketUpgrade(webSocketRouter: router, configuration: .init(maxFrameSize: 1 << 20))
        return Application(
            router: router,
            server: try configuration.tls.map { try .tls(plain, tlsConfiguration: try Self.tlsConfiguration($0)) } ?? plain,
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "sluice"),
            services: [CameraExpiryService(cameras: cameras, streams: streams, interval: 0.25)],
            onServerRunning: { [configuration] channel in
                await configuration.onListening?(channel.localAddress?.port ?? configuration.port)
            },
            logger: logger)
    }

    typealias Routes = RouterGroup<BasicWebSocketRequestContext>

    /// Every route the server answers, registered in groups. Authentication is the groups'
    /// business (`BearerTokenMiddleware`, with `--token`), never a handler's:
    ///
    /// - **public**: the web page `GET /` (it holds no data: it fetches everything else with
    ///   the token typed into it), `GET /status.json` (the health and readiness document:
    ///   counters only, no names, ids or SDP), and the AppRTC rooms (`/join`, `/message`,
    ///   `/leave`, WebSocket `/ws`). The rooms are a rendezvous where two peers swap their own
    ///   offers, answers and candidates; the server never puts its media into a room, so a
    ///   room hands out none of the server's streams. AppRTC has no authentication (its
    ///   clients, Sluice's `AppRTCClient` and the room transport included, send no token, and
    ///   browsers cannot set headers on a WebSocket): the room name is the shared secret.
    ///   Also `GET /healthz` and `GET /readyz`, for orchestrators' probes (a status word).
    /// - **protected, WHIP/WHEP errors** (plain text, `WWW-Authenticate: Bearer` on 401):
    ///   WHEP (`/whep/...`, served pipelines and relayed publishers), WHIP (`/whip/...`) and
    ///   the data the page polls (`/streams.json`, `/whip.json`, `/receivers.json`),
    ///   `/metrics` and the pipelines' pictures (`/pipelines/<name>/graph.svg`).
    /// - **protected, camera API errors** (Google's JSON, 401 `UNAUTHENTICATED` /
    ///   403 `PERMISSION_DENIED`): `/enterprises/<project>/devices/<id>:executeCommand`.
    ///
    /// A new route goes into one of these groups; `AuthenticationTests` walks `router.routes`
    /// and fails for any route that answers without a token and is not on its public list.
    func router() -> Router<BasicWebSocketRequestContext> {
        let router = Router(context: BasicWebSocketRequestContext.self)
        // Requests, errors and durations per route, into `/metrics` once the process has
        // bootstrapped swift-metrics (`SluiceMetrics.bootstrapSwiftMetrics`; a no-op before).
        router.add(middleware: MetricsMiddleware())
        let routeMethods = RouteMethods()
        router.add(middleware: MethodNotAllowedMiddleware(routes: routeMethods))
        let token = configuration.token

        let drain = drain
        let open = router.group().add(
            middleware: DrainMiddleware(drain: drain) {
                Self.json(AppRTC.result("SERVER_DRAINING"), status: .serviceUnavailable)
            })
        addPageRoutes(to: open)
        addRoomRoutes(to: open)
        addProbeRoutes(to: open)

        let jwt = configuration.jwt
        let media = router.group().add(
            middleware: BearerTokenMiddleware(token: token, jwt: jwt) { refusal in Self.mediaRefusal(refusal) }
        ).add(
            middleware: DrainMiddleware(drain: drain) {
                Self.problem(WHIP.HTTPError(503, "the server is draining (shutting down): no new sessions; retry against another instance"))
            })
        addWHEPRoutes(to: media)
        addWHIPRoutes(to: media)
        addPageDataRoutes(to: media)
        addMetricsRoute(to: media)
        addGraphRoutes(to: media)

        let camera = router.group().add(
            middleware: BearerTokenMiddleware(token: token, jwt: jwt) { refusal in
                switch refusal {
                case .missing, .invalidToken: Self.cameraError(CameraAPI.unauthenticated)
                case .invalid, .notPermitted: Self.cameraError(CameraAPI.permissionDenied)
                }
            })
        addCameraRoutes(to: camera)
        addControlRoutes(to: router)
        routeMethods.set(router.routes.map { (path: $0.path.description, method: $0.method) })
        return router
    }

    /// The media group's refusals, in problem+json (RFC 9457): 401 for no token or a JWT
    /// that did not verify, 403 for another static token or a JWT without the permission.
    static func mediaRefusal(_ refusal: BearerTokenMiddleware<BasicWebSocketRequestContext>.Refusal) -> Response {
        switch refusal {
        case .missing: Problem.response(.unauthorized, "a bearer token is required: send Authorization: Bearer <token>")
        case .invalid: Problem.response(.forbidden, "the bearer token is not valid for this endpoint")
        case .invalidToken(let reason): Problem.response(.unauthorized, reason)
        case .notPermitted(let asked): Problem.response(.forbidden, "the token's sluice_permissions do not grant \(asked)")
        }
    }

    /// A server TLS configuration from PEM files, with errors that name the file.
    static func tlsConfiguration(_ files: (certificate: String, key: String)) throws -> TLSConfiguration {
        let chain: [NIOSSLCertificate]
        do { chain = try NIOSSLCertificate.fromPEMFile(files.certificate) } catch {
            throw TLSFileError(message: "cannot read the certificate \(files.certificate) (a PEM file): \(error)")
        }
        guard !chain.isEmpty else { throw TLSFileError(message: "\(files.certificate) holds no PEM certificate") }
        let key: NIOSSLPrivateKey
        do { key = try NIOSSLPrivateKey(file: files.key, format: .pem) } catch {
            throw TLSFileError(message: "cannot read the private key \(files.key) (a PEM file): \(error)")
        }
        return TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
    }

    /// Runs until SIGTERM, which drains (see `drainSessions`) for at most `drainTimeout`
    /// seconds and stops, or SIGINT, which ends the sessions at once and stops.
    public func run(drainTimeout: Double = 10) async throws {
        let group = ServiceGroup(
            configuration: .init(
                services: [
                    .init(service: try application()),
                    .init(
                        service: DrainService(server: self, timeout: drainTimeout, logger: logger),
                        successTerminationBehavior: .gracefullyShutdownGroup)
                ],
                gracefulShutdownSignals: [.sigint], logger: logger))
        try await group.run()
    }

    // MARK: Rooms

    /// A Host value safe to echo into a URL: host[:port] of letters, digits, '.', '-', ':', '[' and ']'.
    static func validAuthority(_ s: String) -> Bool {
        !s.isEmpty && s.count <= 255 && s.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || ".-:[]".contains($0)) }
    }

    /// A room name the server accepts: 1 to 128 letters, digits, `-` or `_`.
    static func validRoom(_ s: String) -> Bool {
        !s.isEmpty && s.count <= 128 && s.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
    }

    private func addRoomRoutes(to router: Routes) {
        let rooms = rooms, configuration = configuration, sockets = sockets, cameras = cameras

        router.post("/join/:room") { request, context -> Response in
            let room = context.parameters.get("room") ?? ""
            guard Self.validRoom(room) else { return Self.json(AppRTC.result("INVALID_ROOM"), status: .badRequest) }
            // The WebSocket is where the client reached us (the Host it asked for), so the
            // URL works behind another name or an ephemeral port.
            let base =
                request.head.authority.flatMap { Self.validAuthority($0) ? $0 : nil }
                ?? "\(configuration.host):\(configuration.port)"
            let (ws, http) = configuration.secure ? ("wss", "https") : ("ws", "http")
            return Self.json(AppRTC.joinResponse(rooms.join(room: room), wssURL: "\(ws)://\(base)/ws", wssPostURL: "\(http)://\(base)"))
        }

        router.post("/message/:room/:client") { request, context -> Response in
            let room = context.parameters.get("room") ?? "", client = context.parameters.get("client") ?? ""
            let body: ByteBuffer
            do { body = try await request.body.collect(upTo: AppRTC.maxMessageBytes) } catch {
                return Self.json(AppRTC.result("MESSAGE_TOO_LARGE"), status: .contentTooLarge)
            }
            do {
                try rooms.send(room: room, from: client, message: String(buffer: body), requireRegistered: false)
                return Self.json(AppRTC.result("SUCCESS"))
            } catch let e as RoomRegistry.Failure {
                return Self.json(AppRTC.result(Self.resultWord(e)), status: Self.status(e))
            }
        }

        router.post("/leave/:room/:client") { _, context -> Response in
            rooms.leave(room: context.parameters.get("room") ?? "", client: context.parameters.get("client") ?? "")
            return Self.json(AppRTC.result("SUCCESS"))
        }

        router.get("/status.json") { _, _ -> Response in
            let c = rooms.counts
            return Self.json(#"{"camera_sessions":\#(cameras.count),"clients":\#(c.clients),"rooms":\#(c.rooms),"sockets":\#(sockets.value)}"#)
        }

        addRoomSocket(to: router)
    }

    /// A room socket's place: the room and client it registered as.
    private struct RoomMembership {
        var room: String
        var client: String
    }

    /// `/ws`: the AppRTC room socket (register, then send), one writer per socket.
    private func addRoomSocket(to router: Routes) {
        let rooms = rooms, sockets = sockets
        router.ws("/ws") { _, _ in
            .upgrade([:])
        } onUpgrade: { inbound, outbound, _ in
            sockets.add(1)
            defer { sockets.add(-1) }
            // Everything written to this socket goes through one stream, so messages relayed
            // from other connections and our own replies never interleave mid-frame.
            let (outbox, post) = AsyncStream<String>.makeStream()
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await text in outbox { try await outbound.write(.text(text)) }
                }
                var membership: RoomMembership?
                do {
                    for try await message in inbound.messages(maxSize: 1 << 20) {
                        guard case .text(let text) = message else {
                            post.yield(AppRTC.error("binary frames are not part of the protocol"))
                            continue
                        }
                        Self.handleRoomCommand(text, rooms: rooms, membership: &membership, post: post)
                    }
                } catch {
                    // A broken connection ends the loop like a close does.
                }
                // The socket is gone (closed, or the client vanished): leave, so the other
                // peer gets `bye` and the room does not keep a ghost.
                if let m = membership { rooms.leave(room: m.room, client: m.client) }
                post.finish()
                group.cancelAll()
            }
        }
    }

    /// One text frame of a room socket: `register` (once), then `send`; errors go back on it.
    private static func handleRoomCommand(
        _ text: String, rooms: RoomRegistry, membership: inout RoomMembership?,
        post: AsyncStream<String>.Continuation
    ) {
        switch AppRTC.command(from: text) {
        case .failure(let e):
            post.yield(AppRTC.error(e.message))
        case .success(.register(let room, let client)):
            guard membership == nil else {
                post.yield(AppRTC.error(RoomRegistry.Failure.alreadyRegistered.description))
                return
            }
            do {
                try rooms.register(room: room, client: client) { post.yield($0) }
                membership = RoomMembership(room: room, client: client)
            } catch {
                post.yield(AppRTC.error(error.description))
            }
        case .success(.send(let msg)):
            guard let m = membership else {
                post.yield(AppRTC.error(RoomRegistry.Failure.notRegistered.description))
                return
            }
            do { try rooms.send(room: m.room, from: m.client, message: msg, requireRegistered: true) } catch {
                post.yield(AppRTC.error(error.description))
            }
        }
    }

    private static func resultWord(_ e: RoomRegistry.Failure) -> String {
        switch e {
        case .unknownRoom: "UNKNOWN_ROOM"
        case .unknownClient: "UNKNOWN_CLIENT"
        case .tooLarge: "MESSAGE_TOO_LARGE"
        case .notRegistered, .alreadyRegistered: "INVALID_REQUEST"
        }
    }

    private static func status(_ e: RoomRegistry.Failure) -> HTTPResponse.Status {
        switch e {
        case .unknownRoom, .unknownClient: .notFound
        case .tooLarge: .contentTooLarge
        case .notRegistered, .alreadyRegistered: .badRequest
        }
    }

    static func json(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}

/// Open WebSocket connections, counted for the status document and leak checks.
final class SocketCount: Sendable {
    private let n = Atomic<Int>(0)
    func add(_ d: Int) { n.add(d, ordering: .relaxed) }
    var value: Int { n.load(ordering: .relaxed) }
}

/// A TLS certificate or key file that cannot be used.
public struct TLSFileError: Error, CustomStringConvertible {
    /// What is wrong, naming the file: unreadable, not PEM, or no certificate in it.
    public var message: String
    /// The message itself.
    public var description: String { message }
}
