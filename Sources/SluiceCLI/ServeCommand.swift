import ArgumentParser
import Foundation
import Sluice
import SluiceServer

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve WHEP streams and WHIP ingest, AppRTC rooms, the camera API, the control API and /metrics over HTTP.",
        discussion: """
            Binds 127.0.0.1:8443 by default. With --pipeline, each file's send section is served to \
            WHEP viewers at POST /whep/<name> (one encoder per stream, however many viewers); \
            GET /streams.json lists them. With --receive or --relay, WHIP publishers post to \
            /whip/<name>. Rooms: POST /join/<room>, WebSocket /ws, POST /message/<room>/<client>, \
            POST /leave/<room>/<client>; GET /status.json. The camera API at \
            POST /enterprises/<project>/devices/<command>; the control API at /api/v1 \
            (/openapi.yaml). GET /metrics (Prometheus), /healthz and /readyz; SIGTERM drains \
            (--drain-timeout).
            """)

    @Option(help: "Address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "Port to listen on.")
    var port = 8443

    @Option(name: .customLong("pipeline"), help: "A pipeline file to serve over WHEP (repeatable).")
    var pipelines: [String] = []

    @Option(name: .customLong("receive"), help: "A pipeline file whose receive section takes WHIP publishers at POST /whip/<name> (repeatable).")
    var receivePipelines: [String] = []

    @Flag(help: "Forward WHIP publishers of names without a --receive pipeline to WHEP viewers at /whep/<name>, without decoding or re-encoding.")
    var relay = false

    @Option(
        name: .customLong("relay-record"),
        help:
            "With --relay: record each relayed publisher, as it arrives (a simulcast publisher's top layer), to segments named like a record sink's path, e.g. 'rec/{name}-%Y%m%d-%H%M%S.mkv'."
    )
    var relayRecord: String?

    @Option(name: .customLong("relay-record-segment"), help: "Seconds per --relay-record segment (a new file at the first keyframe after them).")
    var relayRecordSegment: Double = 60

    @Option(help: "Bearer token every route but the page, /status.json and the rooms requires (WHEP, WHIP, relay, camera API, the JSON lists).")
    var token: String?

    @Option(help: "STUN server to announce in Link headers (stun://host:port; repeatable).")
    var stun: [String] = []

    @Option(help: "TURN server to announce (turn://user:pass@host:port; repeatable).")
    var turn: [String] = []

    @Option(
        name: .customLong("ice-public-address"),
        help: "A public address a 1:1 NAT forwards to this host: every ICE host candidate is also announced with it (repeatable).")
    var icePublicAddresses: [String] = []

    @Option(name: .customLong("ice-port-range"), help: "The local ports ICE may bind, MIN-MAX (forward them in the NAT), e.g. 40000-40099.")
    var icePortRange: String?

    @Flag(name: .customLong("ice-tcp"), help: "Also offer passive ICE-TCP candidates, for viewers whose UDP is blocked.")
    var iceTCP = false

    @Option(
        help:
            "This replica's name in WHEP/WHIP session URLs, so a proxy in front of several replicas routes a session's PATCH and DELETE to it (deploy/nginx/replicas.conf)."
    )
    var instance: String?

    @Option(help: "PEM certificate (chain) file: serve HTTPS and WSS. Needs --key.")
    var cert: String?

    @Option(help: "PEM private key file for --cert.")
    var key: String?

    @Option(
        name: .customLong("dtls-cert"),
        help:
            "PEM file with the DTLS certificate (and its key, unless --dtls-key) every WebRTC session presents, so fingerprints stay stable across restarts. Default: a new ECDSA P-256 certificate per run."
    )
    var dtlsCert: String?

    @Option(name: .customLong("dtls-key"), help: "PEM private key for --dtls-cert, if not in the same file.")
    var dtlsKey: String?

    @Option(name: .customLong("camera-lifetime"), help: "Seconds a camera API stream lives unless extended (the API's default: 300).")
    var cameraLifetime: Double = 300

    @Option(
        name: .customLong("drain-timeout"),
        help:
            "Seconds SIGTERM waits for viewers and publishers to finish (no new sessions meanwhile; /readyz fails) before ending the rest and exiting 0. A second SIGTERM ends them at once."
    )
    var drainTimeout: Double = 10

    @Option(
        name: .customLong("admin-token"),
        help: "Bearer token that may create, change and stop pipelines through the control API at /api/v1 (repeatable; default: --token).")
    var adminTokens: [String] = []

    @Option(name: .customLong("viewer-token"), help: "Bearer token that may read the control API (repeatable).")
    var viewerTokens: [String] = []

    @Flag(name: .customLong("public-read"), help: "Let anyone read the control API (GET) without a token.")
    var publicRead = false

    @Option(
        help:
            "JSON Web Key Set (a file, or an http(s) URL reloaded every --jwks-refresh seconds): bearer JWTs signed by its keys (RS256, ES256, EdDSA) are accepted besides --token, with what their sluice_permissions claim grants."
    )
    var jwks: String?

    @Option(name: .customLong("jwt-issuer"), help: "The issuer ('iss') every JWT must name.")
    var jwtIssuer: String?

    @Option(name: .customLong("jwt-audience"), help: "The audience every JWT's 'aud' must include.")
    var jwtAudience: String?

    @Option(name: .customLong("jwks-refresh"), help: "Seconds between reloads of a --jwks URL (identity providers rotate their keys).")
    var jwksRefresh: Double = 300

    @Option(
        name: .customLong("viewer-stats-interval"),
        help:
            "Seconds between readings of each viewer's WebRTC statistics for /metrics (packets sent and lost, RTT, jitter, NACK/PLI/FIR, retransmissions); 0 turns them off."
    )
    var viewerStatsInterval: Double = 5

    @Option(
        name: .customLong("viewer-lanes"),
        help:
            "Threads that push each stream to its viewers, each carrying a share of them (default: four per core); 0 gives every viewer a thread of its own."
    )
    var viewerLanes: Int?

    @Option(name: .customLong("pipelines-dir"), help: "Folder whose pipeline files the control API may start by path (POST /api/v1/pipelines {\"path\": ...}).")
    var pipelinesDir: String?

    @Option(
        help:
            "Advertise the server on the local network under this name (DNS-SD `_sluice._tcp` over multicast DNS, with its streams and codecs in TXT); `sluice discover` lists such servers."
    )
    var advertise: String?

    @Option(
        name: .customLong("run"),
        help:
            "Also run this pipeline file inside the server's process until it stops (repeatable): with intervideosink/intervideosrc channels it feeds a served pipeline, e.g. a Janus room's mosaic to WHEP viewers (Pipelines/janus-room-bridge.yaml with Pipelines/room-bridge.yaml)."
    )
    var companions: [String] = []

    @Option(
        help:
            "Be a Cast receiver named NAME: advertise `_googlecast._tcp`, accept senders (pychromecast, VLC) over TLS on --cast-port, and play what they load into the channel `intervideosrc channel=sluice-cast` reads (Pipelines/cast-receiver.yaml serves it to WHEP viewers)."
    )
    var cast: String?

    @Option(name: .customLong("cast-port"), help: "The Cast receiver's TLS port.")
    var castPort: Int = 8009

    @Option(
        name: .customLong("cast-allow"),
        help: "What Cast senders may load: a scheme (`file:`, `https:`) or a URL prefix (`http://10.0.0.5:8000/media/`); repeatable. Nothing else is fetched.")
    var castAllow: [String] = []

    @Option(name: .customLong("cast-size"), help: "The picture size cast media is scaled to, WIDTHxHEIGHT (match the served pipeline's intervideosrc caps).")
    var castSize: String = "1280x720"

    @OptionGroup var global: GlobalOptions

    func validate() throws {
        guard (1...65535).contains(castPort) else { throw ValidationError("--cast-port must be between 1 and 65535") }
        guard let size = CastReceiver.Options.dimensions(castSize), (16...3840).contains(size.width), (16...2160).contains(size.height) else {
            throw ValidationError("--cast-size is WIDTHxHEIGHT, e.g. 1280x720")
        }
        if cast != nil, castAllow.isEmpty {
            throw ValidationError("--cast needs --cast-allow: the schemes or URL prefixes senders may load (e.g. --cast-allow https: --cast-allow file:)")
        }
        guard (1...65535).contains(port) else { throw ValidationError("--port must be between 1 and 65535") }
        if (cert == nil) != (key == nil) { throw ValidationError("--cert and --key go together: give both for HTTPS, or neither") }
        guard cameraLifetime >= 1, cameraLifetime <= 86400 else { throw ValidationError("--camera-lifetime must be between 1 and 86400 seconds") }
        guard drainTimeout >= 0, drainTimeout <= 3600 else { throw ValidationError("--drain-timeout must be between 0 and 3600 seconds") }
        if let icePortRange, case .failure(let problem) = ICEPortRange.parse(icePortRange) {
            throw ValidationError("--ice-port-range: \(problem.message)")
        }
        if let bad = icePublicAddresses.first(where: { !IPAddressLiteral.isValid($0) }) {
            throw ValidationError("--ice-public-address '\(bad)' is not an IP address; give the NAT's public IPv4 or IPv6 address")
        }
        do { _ = try ReplicaRoute(instance: instance) } catch { throw ValidationError(error.description) }
        if jwks == nil, jwtIssuer != nil || jwtAudience != nil {
            throw ValidationError("--jwt-issuer and --jwt-audience check JWTs: give the keys that sign them with --jwks FILE|URL")
        }
        guard (10...86400).contains(jwksRefresh) else { throw ValidationError("--jwks-refresh must be between 10 and 86400 seconds") }
        guard viewerStatsInterval == 0 || (0.5...3600).contains(viewerStatsInterval) else {
            throw ValidationError("--viewer-stats-interval must be 0 (off) or between 0.5 and 3600 seconds")
        }
        if let relayRecord {
            guard relay else { throw ValidationError("--relay-record records relayed publishers: add --relay") }
            do { _ = try RelayRecording.Settings(path: relayRecord, segmentSeconds: relayRecordSegment) } catch {
                throw ValidationError("--relay-record: \(error.message)")
            }
        }
        if let viewerLanes, !(0...256).contains(viewerLanes) {
            throw ValidationError("--viewer-lanes must be between 0 (a thread per viewer) and 256")
        }
    }

    func run() async throws {
        DTLSWarmUp.begin() // GStreamer\'s one-time DTLS key, made while the file loads
        global.bootstrapLogging()
        BuiltInRegistration.ensure() // Swift filters for pipelines created at run time
        let host = ServeHost(options: hostOptions(), load: { try loadOrExit($0, overrides: []) }) { notice in
            switch notice {
            case .info(let line): printLine(line)
            case .warning(let line): printError("warning: \(line)")
            }
        }
        do { try await host.run() } catch let failure as ServeHost.Failure {
            printError("error: \(failure)")
            throw ExitCode(failure.kind == .usage ? 2 : 3)
        }
    }

    /// The options, as `ServeHost` takes them.
    func hostOptions() -> ServeHost.Options {
        var o = ServeHost.Options()
        o.host = host; o.port = port
        o.pipelines = pipelines; o.receivePipelines = receivePipelines; o.companions = companions
        o.relay = relay; o.token = token; o.stun = stun; o.turn = turn
        o.relayRecording = relayRecord.flatMap { try? RelayRecording.Settings(path: $0, segmentSeconds: relayRecordSegment) } // checked in validate()
        o.ice.publicAddresses = icePublicAddresses; o.ice.tcp = iceTCP
        o.replica = (try? ReplicaRoute(instance: instance)) ?? .single // checked in validate()
        if let icePortRange, case .success(let range) = ICEPortRange.parse(icePortRange) { o.ice.portRange = range }
        o.tls = cert.flatMap { c in key.map { (certificate: c, key: $0) } }
        o.dtlsCertificate = dtlsCert.map { (certificate: $0, key: dtlsKey) }
        o.cameraLifetime = cameraLifetime; o.drainTimeout = drainTimeout
        o.adminTokens = adminTokens; o.viewerTokens = viewerTokens; o.publicRead = publicRead
        o.viewerStatsInterval = viewerStatsInterval; o.viewerLanes = viewerLanes; o.pipelinesFolder = pipelinesDir; o.advertise = advertise
        o.jwt = jwks.map {
            ServeHost.JWTOptions(source: JWKSSource($0, refresh: jwksRefresh), policy: .init(issuer: jwtIssuer, audience: jwtAudience))
        }
        if let cast {
            var options = CastReceiver.Options(name: cast)
            options.host = host
            options.port = castPort
            options.allow = castAllow
            // Checked in validate().
            if let size = CastReceiver.Options.dimensions(castSize) { (options.width, options.height) = size }
            o.cast = options
        }
        return o
    }
}
