/// `transport:` and `transport.ice:`.
extension SpecDecoder {
    static let transportKeys = ["kind", "ice", "latency", "bundle", "endpoint", "token"]
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
        let endpoint = map.entry("endpoint"), token = map.entry("token")
        if transport.kind == .whep || transport.kind == .whip {
            if let endpoint, let url = nonEmptyText(endpoint) {
                if url.hasPrefix("http://") || url.hasPrefix("https://") {
                    transport.endpoint = url
                } else {
                    fail("'endpoint' must be an http:// or https:// URL, got '\(url)'", at: endpoint.value.location)
                }
            } else if endpoint == nil {
                fail("transport kind '\(transport.kind.rawValue)' needs an 'endpoint' (e.g. http://127.0.0.1:8443/\(transport.kind.rawValue)/NAME)", at: entry.keyLocation)
            }
            if let token, let t = nonEmptyText(token) { transport.token = t }
        } else {
            for e in [endpoint, token].compactMap({ $0 }) {
                fail("'\(e.key)' only applies to transport kinds whep and whip", at: e.keyLocation)
            }
        }
        return transport
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
