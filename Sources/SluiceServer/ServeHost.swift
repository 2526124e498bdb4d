import Foundation
import Logging
import NIOCore
import Sluice
import SluiceSignalling

/// Everything `sluice serve` runs in one process, wired together: the served streams (WHEP),
/// the WHIP receivers and relay, the HTTP server (`SluiceHTTPServer`: rooms, camera API,
/// control API, `/metrics`), the local-network advertisement, the companion runs and the
/// Cast receiver. Runs until the server has drained after SIGTERM, then stops the rest.
///
/// What it starts is told to `report` as it happens; what stops it is thrown as `Failure`
/// (or whatever `load` throws).
public struct ServeHost {
    /// What to serve and how (the options of `sluice serve`).
    public struct Options: Sendable {
        /// The address and port to listen on.
        public var host = "127.0.0.1", port = 8443
        /// Pipeline files whose send section is served to WHEP viewers.
        public var pipelines: [String] = []
        /// Pipeline files whose receive section takes WHIP publishers.
        public var receivePipelines: [String] = []
        /// Pipeline files run alongside in this process until they stop.
        public var companions: [String] = []
        /// Whether WHIP publishers of other names are relayed to WHEP viewers.
        public var relay = false
        /// Where relayed publishers are recorded (`--relay-record`), if they are.
        public var relayRecording: RelayRecording.Settings?
        /// Bearer token the protected routes need.
        public var token: String?
        /// STUN and TURN servers every webrtcbin uses and the Link headers announce.
        public var stun: [String] = [], turn: [String] = []
        /// How every session's ICE agent reaches viewers: public addresses (1:1 NAT), ports,
        /// TCP candidates.
        public var ice = ServeICE()
        /// This replica's name in session URLs (`--instance`); `.single` without replicas.
        public var replica = ReplicaRoute.single
        /// PEM certificate chain and key files: HTTPS and WSS.
        public var tls: (certificate: String, key: String)?
        /// PEM files of the DTLS certificate every WebRTC session presents (the key may be in
        /// the certificate's file); nil: a new one per run.
        public var dtlsCertificate: (certificate: String, key: String?)?
        /// Seconds a camera API stream lives unless extended.
        public var cameraLifetime: Double = 300
        /// Seconds SIGTERM waits for sessions to finish.
        public var drainTimeout: Double = 10
        /// Control API tokens that may change pipelines (default: `token`) and that may read.
        public var adminTokens: [String] = [], viewerTokens: [String] = []
        /// Whether anyone may read the control API without a token.
        public var publicRead = false
        /// JWTs accepted besides the static tokens (`--jwks`), if any.
        public var jwt: JWTOptions?
        /// Seconds between readings of each viewer's WebRTC statistics; 0: none.
        public var viewerStatsInterval: Double = 5
        /// Threads pushing each stream to its viewers (`ViewerLimits.lanes`); nil: four per core.
        public var viewerLanes: Int?
        /// The folder the control API may start pipeline files from.
        public var pipelinesFolder: String?
        /// The name to advertise on the local network under (DNS-SD), if any.
        public var advertise: String?
        /// The Cast receiver to be, if any.
        public var cast: CastReceiver.Options?

        /// The defaults of `sluice serve`.
        public init() {}
    }

    /// A line about what the host started.
    public enum Notice: Sendable {
        /// What now runs (standard output).
        case info(String)
        /// Something that did not start, without which the server runs on (standard error).
        case warning(String)
    }

    /// Why the host stopped before or while serving.
    public struct Failure: Error, CustomStringConvertible {
        /// `usage`: an option's file or setting is unusable; `runtime`: something failed to run.
        public enum Kind: Sendable { case usage, runtime }
        /// Which kind of failure.
        public let kind: Kind
        /// What went wrong, in a sentence.
        public let description: String
    }

    /// The options.
    public let options: Options
    private let load: (String) throws -> PipelineSpec
    let report: @Sendable (Notice) -> Void

    /// A host for `options`; `load` reads a pipeline file (its errors are thrown through
    /// unchanged), `report` hears what starts.
    public init(options: Options, load: @escaping (String) throws -> PipelineSpec, report: @escaping @Sendable (Notice) -> Void) {
        SluiceTransports.registerBuiltIns()
        self.options = options; self.load = load; self.report = report
    }

    /// Starts everything, serves until the server has drained, then stops the rest.
    public func run() async throws {
        let recipe = try webRTCRecipe()
        let (directory, served) = try startStreams(recipe: recipe)
        let receivers = try whipReceivers()
        let verifier = try await loadJWT()
        let refresh = refreshJWT(verifier)
        defer { refresh?.cancel() }
        let server = try makeServer(directory: directory, receivers: receivers, recipe: recipe, jwt: verifier)
        let lan = await advertise(served)
        defer { if let lan { Task { await lan.stop() } } }
        let companionRuns = try startCompanions()
        let castReceiver = try await startCast()
        do { try await server.run(drainTimeout: options.drainTimeout) } catch let e as TLSFileError {
            throw Failure(kind: .usage, description: "\(e)")
        } catch let e as IOError where e.errnoCode == EADDRINUSE {
            throw Failure(
                kind: .runtime,
                description:
                    "cannot listen on \(options.host):\(options.port): the port is in use (another sluice serve?). Stop that process, or choose a free port with --port"
            )
        }
        await castReceiver?.stop()
        await companionRuns?.stop()
        await lan?.stop()
    }
}

extension ServeHost {
    /// One recipe for every webrtcbin the server makes: viewers, publishers and relays all
    /// use the STUN and TURN servers, the ICE settings and the DTLS certificate.
    func webRTCRecipe() throws -> WebRTCRecipe {
        var recipe = WebRTCRecipe(stun: options.stun.first, turn: options.turn)
        recipe.publicAddresses = options.ice.publicAddresses
        recipe.portRange = options.ice.portRange
        recipe.iceTCP = options.ice.tcp
        if let files = options.dtlsCertificate {
            do { recipe.certificate = try DTLSCertificate(certificateFile: files.certificate, keyFile: files.key) } catch {
                throw Failure(kind: .usage, description: "--dtls-cert \(files.certificate): \(error)")
            }
            report(.info("sluice serve: DTLS certificate \(recipe.certificate.keyKind), fingerprint sha-256 \(recipe.certificate.fingerprint)"))
        }
        return recipe
    }

    /// The served streams, each started as its file is read.
    func startStreams(recipe: WebRTCRecipe) throws -> (StreamDirectory, [PipelineSpec]) {
        var viewerLimits = ViewerLimits()
        viewerLimits.statsInterval = options.viewerStatsInterval
        if let lanes = options.viewerLanes { viewerLimits.lanes = lanes }
        let directory = StreamDirectory(recipe: recipe, defaultAddresses: [options.host], viewerLimits: viewerLimits)
        var served: [PipelineSpec] = []
        for file in options.pipelines {
            let spec = try load(file)
            do { try directory.start(spec, source: file) } catch {
                throw Failure(kind: .runtime, description: "\(error)")
            }
            report(.info("sluice serve: stream '\(spec.name)' from \(file) at /whep/\(spec.name)"))
            served.append(spec)
        }
        return (directory, served)
    }

    /// The pipelines WHIP publishers go through.
    func whipReceivers() throws -> [WHIPIngest.Receiver] {
        var receivers: [WHIPIngest.Receiver] = []
        for file in options.receivePipelines {
            let spec = try load(file)
            let addresses = spec.transport.ice.addresses.isEmpty ? [options.host] : spec.transport.ice.addresses
            receivers.append(.init(spec: spec, iceAddresses: addresses))
            report(.info("sluice serve: WHIP publishers to /whip/\(spec.name) go through \(file)"))
        }
        return receivers
    }

    /// The HTTP server, its swift-metrics bootstrapped into its registry.
    func makeServer(
        directory: StreamDirectory, receivers: [WHIPIngest.Receiver], recipe: WebRTCRecipe, jwt: JWTVerifier?
    ) throws -> SluiceHTTPServer {
        let o = options
        let adminTokens = o.adminTokens.isEmpty ? (o.token.map { [$0] } ?? []) : o.adminTokens
        let access = ControlAPIAccess(adminTokens: adminTokens, viewerTokens: o.viewerTokens, publicRead: o.publicRead)
        if let folder = o.pipelinesFolder, !FileManager.default.fileExists(atPath: folder) {
            throw Failure(kind: .usage, description: "--pipelines-dir \(folder) does not exist")
        }
        var configuration = SluiceHTTPServer.Configuration(
            host: o.host, port: o.port, token: o.token, stun: o.stun, turn: o.turn,
            tls: o.tls, control: access, pipelinesFolder: o.pipelinesFolder)
        configuration.replica = o.replica
        configuration.jwt = jwt
        configuration.relayRecording = o.relayRecording
        let report = report, scheme = o.tls == nil ? "http" : "https", host = o.host
        configuration.onListening = { port in
            report(.info("sluice serve: listening on \(scheme)://\(host):\(port); control API at /api/v1 (/openapi.yaml)"))
        }
        if o.relay { report(.info("sluice serve: WHIP publishers to other names are relayed to WHEP viewers at /whep/<name>")) }
        if let recording = o.relayRecording { report(.info("sluice serve: relayed publishers are recorded to \(recording.path)")) }
        let server = SluiceHTTPServer(
            configuration: configuration, directory: directory, receivers: receivers,
            relayAddresses: o.relay ? [o.host] : nil, webrtc: recipe, cameraLifetime: o.cameraLifetime)
        server.metrics.bootstrapSwiftMetrics()
        return server
    }

    /// The local-network advertisement, if asked for and multicast DNS works.
    func advertise(_ served: [PipelineSpec]) async -> MDNSService? {
        guard let name = options.advertise else { return nil }
        do {
            let service = try await MDNSService.start()
            let instance = await service.advertise(
                LANAdvertisement.instance(
                    name: name, host: options.host, port: options.port,
                    streams: served))
            report(.info("sluice serve: advertised on the local network as '\(instance.name)' (\(LANAdvertisement.serviceType), \(instance.host))"))
            return service
        } catch {
            report(.warning("cannot advertise on the local network (multicast DNS, UDP 5353): \(error)"))
            return nil
        }
    }

    /// The companion runs, once all their files are read.
    func startCompanions() throws -> CompanionRuns? {
        var specs: [PipelineSpec] = []
        for file in options.companions {
            let spec = try load(file)
            report(.info("sluice serve: running \(file) alongside"))
            specs.append(spec)
        }
        return specs.isEmpty ? nil : CompanionRuns(specs, logger: Logger(label: "sluice.run"))
    }

    /// The Cast receiver, if asked for.
    func startCast() async throws -> CastReceiver? {
        guard let options = options.cast else { return nil }
        do {
            let receiver = try await CastReceiver.start(options, logger: Logger(label: "sluice.cast"))
            report(
                .info(
                    "sluice serve: Cast receiver '\(options.name)' on TLS port \(receiver.server.port)\(receiver.instance.map { " (_googlecast._tcp, \($0.host))" } ?? ""); plays into channel \(options.channel)"
                ))
            return receiver
        } catch {
            throw Failure(kind: .usage, description: "cannot start the Cast receiver on port \(options.port): \(error)")
        }
    }
}
