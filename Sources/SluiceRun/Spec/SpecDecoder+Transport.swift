import Foundation

/// `transport:` and `transport.ice:`: the keys every kind has. Each kind's own keys are
/// decoded by its type (`Transport.decodeSettings`), with the helpers below.
extension SpecDecoder {
    package static let dtlsKeys = ["certificate", "key"]
    package static let dataChannelKeys = ["label", "ordered", "max_retransmits", "print", "stdin"]
    package static let iceKeys = ["addresses", "stun", "turn", "policy", "connect_timeout", "tcp", "port_range"]

    package mutating func decodeTransport(_ entry: SpecEntry?) -> TransportSpec {
        var transport = TransportSpec()
        guard let entry else { return transport }
        transport.location = entry.keyLocation
        transport.ice.location = entry.keyLocation
        guard let map = mapping(entry) else { return transport }
        let kind = decodeKind(map.entry("kind"))
        transport.kind = kind.kind
        checkTransportKeys(map, of: kind)
        if let ice = map.entry("ice") { transport.ice = decodeICE(ice) }
        if let latency = map.entry("latency"), let ms = decodeLatency(latency) { transport.latencyMs = ms }
        if let bundle = map.entry("bundle"), let value: BundlePolicy = choice(bundle, what: "bundle policy") {
            transport.bundlePolicy = value
        }
        if let dtls = map.entry("dtls") {
            if kind.abilities.contains(.webRTC) {
                transport.dtlsCertificate = decodeDTLS(dtls)
            } else {
                fail("transport kind '\(kind.kind)' has no DTLS", at: dtls.keyLocation)
            }
        }
        if let channels = map.entry("data_channels") {
            if !kind.abilities.contains(.dataChannels) {
                fail("transport kind '\(kind.kind)' has no peer to open data channels with", at: channels.keyLocation)
            } else if let items = list(channels) {
                transport.dataChannels = decodeDataChannels(items)
            }
        }
        transport.settings = kind.decodeSettings(map, at: entry.keyLocation, with: &self).map(AnyKindSettings.init)
        return transport
    }

    /// The kind `kind:` names (loopback when absent, or when the name is unknown: reported).
    private mutating func decodeKind(_ entry: SpecEntry?) -> any Transport {
        let fallback = TransportRegistry.transport(for: .loopback)!
        guard let entry else { return fallback }
        let names = TransportRegistry.all.map(\.kind.rawValue)
        guard let name = word(entry.value, name: entry.key, what: "transport kind", choices: names) else { return fallback }
        return TransportRegistry.transport(for: TransportKind(rawValue: name)) ?? fallback
    }

    /// Keys that are neither common nor this kind's: another kind's (said so) or unknown.
    private mutating func checkTransportKeys(_ map: [SpecEntry], of kind: any Transport) {
        let allowed = TransportRegistry.commonKeys + kind.keys
        let everyKey = TransportRegistry.commonKeys + TransportRegistry.all.flatMap(\.keys)
        for entry in map where !allowed.contains(entry.key) {
            if everyKey.contains(entry.key) {
                let owners = TransportRegistry.kindsPhrase { $0.keys.contains(entry.key) }
                fail("'\(entry.key)' only applies to \(owners)", at: entry.keyLocation)
            } else {
                let suggestion = Suggestions.didYouMean(entry.key, in: everyKey)
                fail(
                    "unknown key '\(entry.key)' in transport"
                        + (suggestion.isEmpty ? "; valid keys are \(allowed.joined(separator: ", "))" : suggestion), at: entry.keyLocation)
            }
        }
    }

    private mutating func decodeLatency(_ latency: SpecEntry) -> Int? {
        guard let text = text(latency) else { return nil }
        guard let ms = SpecScalars.milliseconds(text) else {
            fail(
                "invalid latency '\(text)'; write milliseconds as an integer (50) or with a unit (50ms, 0.2s)",
                at: latency.value.location)
            return nil
        }
        guard (0...10000).contains(ms) else {
            fail("'latency' must be between 0 and 10000 ms, got \(ms)", at: latency.value.location)
            return nil
        }
        return ms
    }

    // MARK: - Helpers for the kinds' own keys

    /// `endpoint:` of an HTTP kind: required, an http(s) URL. `example` goes in the messages.
    package mutating func decodeEndpoint(
        _ map: [SpecEntry], kind: TransportKind, example: String,
        at location: SourceLocation
    ) -> String? {
        guard let endpoint = map.entry("endpoint") else {
            fail("transport kind '\(kind)' needs an 'endpoint' (e.g. \(example))", at: location)
            return nil
        }
        guard let url = nonEmptyText(endpoint) else { return nil }
        guard url.hasPrefix("http://") || url.hasPrefix("https://") else {
            fail("'endpoint' must be an http:// or https:// URL, got '\(url)'", at: endpoint.value.location)
            return nil
        }
        return url
    }

    /// `token:`: a bearer token, if given.
    package mutating func decodeToken(_ map: [SpecEntry]) -> String? {
        map.entry("token").flatMap { nonEmptyText($0) }
    }

    /// A DNS-SD instance name (`peer`, `stream` of kind lan): at most 63 bytes on one line.
    package mutating func decodeInstanceName(_ entry: SpecEntry) -> String? {
        guard let value = nonEmptyText(entry) else { return nil }
        guard value.utf8.count <= 63, !value.contains(where: { $0.isNewline }) else {
            fail(
                "'\(entry.key)' is at most 63 bytes on one line (a DNS-SD instance name), got '\(value.prefix(80))'",
                at: entry.value.location)
            return nil
        }
        return value
    }

    package mutating func decodeDataChannels(_ items: [SpecNode]) -> [DataChannelSpec] {
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
                    fail(
                        "only one data channel can take standard input; '\(out.first { $0.stdin }?.label ?? "")' at line \(first.line) already does",
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
    package mutating func decodeDTLS(_ entry: SpecEntry) -> DTLSCertificate? {
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

    package mutating func decodeICE(_ entry: SpecEntry) -> ICESpec {
        var ice = ICESpec(location: entry.keyLocation)
        guard let map = mapping(entry) else { return ice }
        checkKeys(map, allowed: Self.iceKeys, context: "in ice")

        if let addresses = map.entry("addresses"), let items = list(addresses) {
            for item in items {
                guard let text = text(item, name: "addresses") else { continue }
                if SpecScalars.isIPAddress(text) {
                    ice.addresses.append(text)
                } else {
                    fail(
                        "'\(text)' is not an IP address; write IPv4 or IPv6 literals such as 127.0.0.1 or ::1",
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
                fail(
                    "policy 'relay' needs at least one turn server; add `turn: turn://USER:PASSWORD@HOST:PORT` or use policy all",
                    at: policy.value.location)
            }
        }
        if let timeout = map.entry("connect_timeout") { ice.connectTimeout = decodeConnectTimeout(timeout) ?? ice.connectTimeout }
        if let tcp = map.entry("tcp") { ice.tcp = bool(tcp) }
        if let range = map.entry("port_range") { ice.portRange = decodePortRange(range) }
        return ice
    }

    /// `ice.port_range`: `MIN-MAX`, ports from 1024 to 65535, at least two of them (RTP and,
    /// without bundling, RTCP each take one).
    private mutating func decodePortRange(_ entry: SpecEntry) -> ClosedRange<Int>? {
        guard let text = text(entry) else { return nil }
        switch ICEPortRange.parse(text) {
        case .success(let range): return range
        case .failure(let problem):
            fail(problem.message, at: entry.value.location)
            return nil
        }
    }

    /// `ice.connect_timeout`: seconds, more than 0 and at most 600.
    private mutating func decodeConnectTimeout(_ timeout: SpecEntry) -> Double? {
        guard let text = text(timeout) else { return nil }
        if let seconds = SpecScalars.durationSeconds(text) {
            if seconds > 0, seconds <= 600 {
                return seconds
            } else {
                fail(
                    "'connect_timeout' must be more than 0 and at most 600 seconds, got \(text)",
                    at: timeout.value.location)
            }
        } else {
            fail(
                "invalid connect_timeout '\(text)'; write seconds (10) or a duration with a unit (500ms, 10s)",
                at: timeout.value.location)
        }
        return nil
    }
}
