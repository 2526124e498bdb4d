import Foundation

/// `transport:` and `transport.ice:`.
extension SpecDecoder {
    static let transportKeys = ["kind", "ice", "latency", "bundle", "endpoint", "token", "room", "peer", "stream", "data_channels", "dtls",
                                "server", "jid", "password", "allow", "tls", "ca", "display", "pin", "secret", "subscribe", "name", "port", "size"]
    static let dtlsKeys = ["certificate", "key"]
    static let dataChannelKeys = ["label", "ordered", "max_retransmits", "print", "stdin"]
    static let iceKeys = ["addresses", "stun", "turn", "policy", "connect_timeout"]

    mutating func decodeTransport(_ entry: SpecEntry?) -> TransportSpec {
        var transport = TransportSpec()
        guard let entry else { return transport }
        transport.location = entry.keyLocation
        transport.ice.location = entry.keyLocation
        guard let map = mapping(entry) else { return transport }
        checkKeys(map, allowed: Self.transportKeys, context: "in transport")

        if let kind = map.entry("kind"), let value: TransportKind = choice(kind, what: "transport kind") {
            transport.kind = value
        }
        if let ice = map.entry("ice") { transport.ice = decodeICE(ice) }
        if let latency = map.entry("latency"), let text = text(latency) {
            if let ms = SpecScalars.milliseconds(text) {
                if (0...10000).contains(ms) {
                    transport.latencyMs = ms
                } else {
                    fail("'latency' must be between 0 and 10000 ms, got \(ms)", at: latency.value.location)
                }
            } else {
                fail("invalid latency '\(text)'; write milliseconds as an integer (50) or with a unit (50ms, 0.2s)",
                     at: latency.value.location)
            }
        }
        if let bundle = map.entry("bundle"), let value: BundlePolicy = choice(bundle, what: "bundle policy") {
            transport.bundlePolicy = value
        }
        let endpoint = map.entry("endpoint"), token = map.entry("token"), room = map.entry("room")
        let kind = transport.kind
        if [.whep, .whip, .apprtc, .camera].contains(kind) {
            let example = switch kind {
            case .apprtc: "http://127.0.0.1:8443 (the server; the room goes in 'room')"
            case .camera: "http://127.0.0.1:8443/enterprises/PROJECT/devices/NAME"
            default: "http://127.0.0.1:8443/\(kind.rawValue)/NAME"
            }
            if let endpoint, let url = nonEmptyText(endpoint) {
                if !(url.hasPrefix("http://") || url.hasPrefix("https://")) {
                    fail("'endpoint' must be an http:// or https:// URL, got '\(url)'", at: endpoint.value.location)
                } else if kind == .camera, !url.contains("/devices/") {
                    fail("a camera endpoint is a device URL ending in /devices/NAME, e.g. \(example)", at: endpoint.value.location)
                } else {
                    transport.endpoint = url
                }
            } else if endpoint == nil {
                fail("transport kind '\(kind.rawValue)' needs an 'endpoint' (e.g. \(example))", at: entry.keyLocation)
            }
        } else if let endpoint {
            fail("'endpoint' only applies to transport kinds whep, whip, apprtc and camera", at: endpoint.keyLocation)
        }
        if let token, kind != .janus {
            if [.whep, .whip, .camera].contains(kind) {
                if let t = nonEmptyText(token) { transport.token = t }
            } else {
                fail("'token' only applies to transport kinds whep, whip, camera and janus", at: token.keyLocation)
            }
        }
        if kind == .apprtc {
            if let room, let name = nonEmptyText(room) {
                if name.count <= 128, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) {
                    transport.room = name
                } else {
                    fail("room names are 1 to 128 letters, digits, '-' or '_', got '\(name)'", at: room.value.location)
                }
            } else if room == nil {
                fail("transport kind 'apprtc' needs a 'room' to join", at: entry.keyLocation)
            }
        } else if let room, kind != .janus {
            fail("'room' only applies to transport kinds apprtc and janus", at: room.keyLocation)
        }
        if kind == .janus { transport.janus = decodeJanus(map, at: entry.keyLocation) } else {
            for key in JanusKeys.only where map.entry(key) != nil {
                fail("'\(key)' only applies to transport kind janus", at: map.entry(key)?.keyLocation ?? entry.keyLocation)
            }
        }
        if kind == .cast { transport.cast = decodeCast(map, at: entry.keyLocation) } else {
            for key in CastKeys.only where map.entry(key) != nil {
                fail("'\(key)' only applies to transport kind cast", at: map.entry(key)?.keyLocation ?? entry.keyLocation)
            }
        }
        if kind == .xmpp { transport.xmpp = decodeXMPP(map, at: entry.keyLocation) } else {
            for key in XMPPKeys.only where map.entry(key) != nil && !(key == "server" && kind == .janus) && !(key == "allow" && kind == .cast) {
                fail("'\(key)' only applies to transport kind xmpp", at: map.entry(key)?.keyLocation ?? entry.keyLocation)
            }
        }
        for (key, entry) in [("peer", map.entry("peer")), ("stream", map.entry("stream"))] where kind != .xmpp || key == "stream" {
            guard let entry else { continue }
            guard kind == .lan else {
                fail("'\(key)' only applies to transport kind \(key == "peer" ? "lan and xmpp" : "lan")", at: entry.keyLocation)
                continue
            }
            guard let value = nonEmptyText(entry) else { continue }
            guard value.utf8.count <= 63, !value.contains(where: { $0.isNewline }) else {
                fail("'\(key)' is at most 63 bytes on one line (a DNS-SD instance name), got '\(value.prefix(80))'", at: entry.value.location)
                continue
            }
            if key == "peer" { transport.peer = value } else { transport.stream = value }
        }
        if kind == .lan, map.entry("peer") == nil {
            fail("transport kind 'lan' needs a 'peer': the name a Sluice server advertises (sluice serve --advertise NAME; sluice discover lists them)",
                 at: entry.keyLocation)
        }
        if let dtls = map.entry("dtls") {
            if kind == .noTransport {
                fail("transport kind 'none' has no DTLS", at: dtls.keyLocation)
            } else {
                transport.dtlsCertificate = decodeDTLS(dtls)
            }
        }
        if let channels = map.entry("data_channels") {
            if [.noTransport, .server, .janus, .cast].contains(kind) {
                fail("transport kind '\(kind.rawValue)' has no peer to open data channels with", at: channels.keyLocation)
            } else if let items = list(channels) {
                transport.dataChannels = decodeDataChannels(items)
            }
        }
        return transport
    }

    mutating func decodeDataChannels(_ items: [SpecNode]) -> [DataChannelSpec] {
        var out: [DataChannelSpec] = []
        var stdinAt: SourceLocation?
        for item in items {
            // `- chat` is short for `- label: chat`.
            let map: [SpecEntry]
            switch item.content {
            case .mapping(let entries): map = entries
            case .scalar(_, isNull: false): map = [SpecEntry(key: "label", keyLocation: item.location, value: item)]
            case .reported: continue
            default:
                fail("a data channel is a label or a mapping such as `{label: chat, stdin: true}`", at: item.location)
                continue
            }
            checkKeys(map, allowed: Self.dataChannelKeys, context: "in a data channel")
            guard let labelEntry = map.entry("label") else {
                fail("a data channel needs a 'label'", at: item.location)
                continue
            }
            guard let label = nonEmptyText(labelEntry) else { continue }
            if label.utf8.count > 65535 {
                fail("a data channel label is at most 65535 bytes", at: labelEntry.value.location); continue
            }
            if out.contains(where: { $0.label == label }) {
                fail("two data channels are labelled '\(label)'; labels must be unique", at: labelEntry.value.location); continue
            }
            var channel = DataChannelSpec(label: label, location: item.location)
            if let e = map.entry("ordered"), let b = bool(e) { channel.ordered = b }
            if let e = map.entry("print"), let b = bool(e) { channel.print = b }
            if let e = map.entry("max_retransmits"), let n = integer(e, range: 0...65535) { channel.maxRetransmits = n }
            if let e = map.entry("stdin"), let b = bool(e) {
                if b, let first = stdinAt {
                    fail("only one data channel can take standard input; '\(out.first { $0.stdin }?.label ?? "")' at line \(first.line) already does",
                         at: e.value.location)
                } else if b {
                    stdinAt = e.value.location
                }
                channel.stdin = b
            }
            out.append(channel)
        }
        return out
    }

    /// `dtls: {certificate: cert.pem, key: key.pem}`: the certificate every DTLS handshake
    /// presents (a relative path is relative to the pipeline file; `key` defaults to the
    /// certificate's file). Read and checked now, so a bad file is a FILE:LINE:COL error.
    mutating func decodeDTLS(_ entry: SpecEntry) -> DTLSCertificate? {
        guard let map = mapping(entry) else { return nil }
        checkKeys(map, allowed: Self.dtlsKeys, context: "in dtls")
        guard let certEntry = map.entry("certificate") else {
            fail("'dtls' needs a 'certificate' (a PEM file, with its key unless 'key' names another)", at: entry.keyLocation)
            return nil
        }
        let base = URL(fileURLWithPath: file).deletingLastPathComponent()
        let resolve = { (p: String) in URL(fileURLWithPath: p, relativeTo: base).standardizedFileURL.path }
        guard let certPath = nonEmptyText(certEntry).map(resolve) else { return nil }
        let keyEntry = map.entry("key")
        let keyPath = keyEntry.flatMap { nonEmptyText($0) }.map(resolve)
        do { return try DTLSCertificate(certificateFile: certPath, keyFile: keyPath) } catch {
            fail("dtls: \(error)", at: (keyEntry ?? certEntry).value.location)
            return nil
        }
    }

    mutating func decodeICE(_ entry: SpecEntry) -> ICESpec {
        var ice = ICESpec(location: entry.keyLocation)
        guard let map = mapping(entry) else { return ice }
        checkKeys(map, allowed: Self.iceKeys, context: "in ice")

        if let addresses = map.entry("addresses"), let items = list(addresses) {
            for item in items {
                guard let text = text(item, name: "addresses") else { continue }
                if SpecScalars.isIPAddress(text) {
                    ice.addresses.append(text)
                } else {
                    fail("'\(text)' is not an IP address; write IPv4 or IPv6 literals such as 127.0.0.1 or ::1",
                         at: item.location)
                }
            }
        }
        if let stun = map.entry("stun"), let text = text(stun) {
            if let problem = SpecScalars.stunProblem(text) {
                fail(problem, at: stun.value.location)
            } else {
                ice.stun = text
            }
        }
        var turnGiven = false
        if let turn = map.entry("turn"), let items = list(turn) {
            turnGiven = !items.isEmpty
            for item in items {
                guard let text = text(item, name: "turn") else { continue }
                if let problem = SpecScalars.turnProblem(text) {
                    fail(problem, at: item.location)
                } else {
                    ice.turn.append(text)
                }
            }
        }
        if let policy = map.entry("policy"), let value: ICEPolicy = choice(policy, what: "ICE policy") {
            ice.policy = value
            if value == .relay, !turnGiven {
                fail("policy 'relay' needs at least one turn server; add `turn: turn://USER:PASSWORD@HOST:PORT` or use policy all",
                     at: policy.value.location)
            }
        }
        if let timeout = map.entry("connect_timeout"), let text = text(timeout) {
            if let seconds = SpecScalars.durationSeconds(text) {
                if seconds > 0, seconds <= 600 {
                    ice.connectTimeout = seconds
                } else {
                    fail("'connect_timeout' must be more than 0 and at most 600 seconds, got \(text)",
                         at: timeout.value.location)
                }
            } else {
                fail("invalid connect_timeout '\(text)'; write seconds (10) or a duration with a unit (500ms, 10s)",
                     at: timeout.value.location)
            }
        }
        return ice
    }
}
