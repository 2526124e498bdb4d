import Foundation
import Logging
import SluiceSignalling
import Synchronization

/// `sluice serve --cast NAME`: a Cast-style receiver. Senders (pychromecast, VLC, any open
/// CASTV2 sender) find it on the local network (`_googlecast._tcp`), connect over TLS, launch
/// the Default Media Receiver and load media URLs; what plays goes to the `intervideosink` /
/// `interaudiosink` channel that a served pipeline reads, so WHEP viewers see it.
public final class CastReceiver: Sendable {
    /// How the receiver is set up (`sluice serve --cast` and its options).
    public struct Options: Sendable {
        /// The name senders show for the receiver (the Cast friendly name, also its TLS certificate's common name).
        public var name: String
        /// The address the CASTV2 TLS server listens on (`0.0.0.0`: every IPv4 address).
        public var host = "0.0.0.0"
        /// The TCP port the CASTV2 TLS server listens on (8009, the Cast default).
        public var port = 8009
        /// The inter-element channel the served pipeline reads (`intervideosrc channel=…`).
        public var channel = "sluice-cast"
        /// The size, in pixels, the played video is scaled to on the channel (1280×720 by default).
        public var width = 1280, height = 720
        /// What may be loaded: `scheme:` (every URL of it) or URL prefixes (`http://10.0.0.5:8000/media/`).
        public var allow: [String] = []
        /// Options for a receiver called `name`, with the defaults for everything else.
        public init(name: String) { self.name = name }

        /// `WIDTHxHEIGHT` as two numbers (the caller checks their ranges); nil if it is not that.
        public static func dimensions(_ text: String) -> (width: Int, height: Int)? {
            let parts = text.split(separator: "x").map { Int($0) }
            guard parts.count == 2, let w = parts[0], let h = parts[1] else { return nil }
            return (w, h)
        }
    }

    /// The CASTV2 server senders connect to.
    public let server: CastServer
    /// The `_googlecast._tcp` instance advertised on the local network; nil if multicast DNS could not be used.
    public let instance: ServiceInstance?
    private let mdns: MDNSService?
    private let playback: CastPlayback

    private init(server: CastServer, instance: ServiceInstance?, mdns: MDNSService?, playback: CastPlayback) {
        self.server = server; self.instance = instance; self.mdns = mdns; self.playback = playback
    }

    /// Why `url` may not be played under `allow` (nil: it may).
    public static func refusal(_ url: String, allow: [String]) -> String? {
        guard url.count <= 2048, !url.contains(where: { $0.isWhitespace || $0 == "\"" || $0 == "'" || $0 == "\\" || !$0.isASCII }),
            let parsed = URL(string: url), let scheme = parsed.scheme?.lowercased()
        else {
            return "'\(url.prefix(80))' is not a URL Sluice plays"
        }
        guard ["file", "http", "https"].contains(scheme) else { return "scheme \(scheme) is not played (file, http, https only)" }
        if scheme != "file", parsed.host == nil { return "'\(url.prefix(80))' has no host" }
        if url.contains("/../") || url.hasSuffix("/..") { return "'..' in a URL is not played" }
        for entry in allow {
            if entry.hasSuffix(":"), entry.dropLast().lowercased() == scheme { return nil }
            if url.hasPrefix(entry) { return nil }
        }
        return "\(url.prefix(120)) is not allowed (--cast-allow lists what this receiver may fetch)"
    }

    /// Starts the TLS server with a new ECDSA certificate and advertises it over multicast DNS
    /// (a failure to advertise is only logged). Throws if the certificate cannot be made or the
    /// server cannot listen.
    public static func start(_ options: Options, logger: Logger) async throws -> CastReceiver {
        let certificate = try DTLSCertificate.generateECDSA(commonName: options.name)
        let serverBox = ServerBox()
        let playback = CastPlayback(channel: options.channel, width: options.width, height: options.height, logger: logger) { snapshot in
            serverBox.server?.playerChanged(snapshot)
        }
        let allow = options.allow
        let server = try await CastServer.start(
            .init(host: options.host, port: options.port, pem: certificate.pem),
            name: options.name, player: playback,
            refuse: { Self.refusal($0, allow: allow) }, logger: logger)
        serverBox.set(server)
        var instance: ServiceInstance?
        var mdns: MDNSService?
        do {
            let service = try await MDNSService.start()
            let id = UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
            let label = options.name.lowercased().map { $0.isLetter || $0.isNumber ? $0 : "-" }.prefix(40)
            let host = "\(String(label))-\(id.prefix(6)).local"
            instance = await service.advertise(
                ServiceInstance(
                    name: String(options.name.prefix(63)), type: "_googlecast._tcp", host: host, port: UInt16(clamping: server.port),
                    addresses: LANAdvertisement.addresses(for: options.host),
                    txt: [
                        "id": id, "cd": String(id.prefix(32)).uppercased(), "rm": "", "ve": "05", "md": "Sluice Cast Receiver",
                        "ic": "/setup/icon.png", "fn": options.name, "ca": "4101", "st": "0", "bs": String(id.prefix(12)).uppercased(),
                        "nf": "1", "rs": ""
                    ]))
            mdns = service
        } catch {
            logger.warning("Cast: cannot advertise on the local network (multicast DNS, UDP 5353): \(error)")
        }
        return CastReceiver(server: server, instance: instance, mdns: mdns, playback: playback)
    }

    /// Stops advertising, closes every sender's connection and stops what plays.
    public func stop() async {
        await mdns?.stop()
        await server.stop()
        await playback.perform(.stop)
    }
}

/// The server, set once it exists (the player's callback is made before it).
private final class ServerBox: Sendable {
    private let value = Mutex<CastServer?>(nil)
    var server: CastServer? { value.withLock { $0 } }
    func set(_ s: CastServer) { value.withLock { $0 = s } }
}
