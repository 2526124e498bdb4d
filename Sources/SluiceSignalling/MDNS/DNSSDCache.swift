/// What the network has said about DNS-SD services (RFC 6763 over RFC 6762): pointers from a
/// service type to its instances, each instance's host and port (SRV) and TXT pairs, and
/// each host's addresses, every one until its TTL runs out. A goodbye (TTL 0) ends a record
/// one second later (RFC 6762 §10.1).
///
/// Pure (times are given): feed it every response with `add`, read `instances(of:)`. Bounded:
/// at most `maxNames` names of each kind and 16 addresses per host are kept; a record storm
/// beyond that is ignored rather than grown into.
public struct DNSSDCache: Sendable {
    /// The most names kept of each kind (service types' instances, services, texts, hosts).
    public static let maxNames = 512
    private var pointers: [String: [String: (name: String, until: UInt64)]] = [:] // type → full name → (as written, expiry)
    private var services: [String: (host: String, port: UInt16, until: UInt64)] = [:]
    private var texts: [String: (pairs: [String: String], until: UInt64)] = [:]
    private var addresses: [String: [String: UInt64]] = [:] // host → address → expiry

    /// An empty cache.
    public init() {}

    private static func expiry(_ ttl: UInt32, _ now: UInt64) -> UInt64 {
        now &+ (ttl == 0 ? 1_000_000_000 : UInt64(min(ttl, 86_400)) * 1_000_000_000)
    }

    /// Takes what a response says.
    public mutating func add(_ message: DNSMessage, nowNs now: UInt64) {
        guard message.isResponse else { return }
        for r in message.records {
            let name = DNSName.normalized(r.name), until = Self.expiry(r.ttl, now)
            switch r.data {
            case .ptr(let target):
                guard pointers[name] != nil || pointers.count < Self.maxNames else { continue }
                var set = pointers[name] ?? [:]
                guard set[DNSName.normalized(target)] != nil || set.count < Self.maxNames else { continue }
                set[DNSName.normalized(target)] = (target, until)
                pointers[name] = set
            case .srv(_, _, let port, let target):
                guard services[name] != nil || services.count < Self.maxNames else { continue }
                services[name] = (DNSName.normalized(target), port, until)
            case .txt(let strings):
                guard texts[name] != nil || texts.count < Self.maxNames else { continue }
                texts[name] = (ServiceInstance.pairs(strings), until)
            case .a(let address):
                guard addresses[name] != nil || addresses.count < Self.maxNames else { continue }
                var set = addresses[name] ?? [:]
                if r.cacheFlush && r.ttl > 0 { set = set.filter { $0.key == address || $0.value <= now &+ 1_000_000_000 } }
                guard set[address] != nil || set.count < 16 else { continue }
                set[address] = until
                addresses[name] = set
            default:
                continue
            }
        }
        expire(now)
    }

    /// Forgets what has expired.
    public mutating func expire(_ now: UInt64) {
        for (type, set) in pointers {
            let kept = set.filter { $0.value.until > now }
            pointers[type] = kept.isEmpty ? nil : kept
        }
        services = services.filter { $0.value.until > now }
        texts = texts.filter { $0.value.until > now }
        for (host, set) in addresses {
            let kept = set.filter { $0.value > now }
            addresses[host] = kept.isEmpty ? nil : kept
        }
    }

    /// The instances of `type` (`_sluice._tcp`) known now, resolved as far as the records
    /// go (an instance whose SRV has not arrived yet has no host and port 0), by name.
    public func instances(of type: String, nowNs now: UInt64) -> [ServiceInstance] {
        let typeName = "\(DNSName.normalized(type)).local"
        return (pointers[typeName] ?? [:]).filter { $0.value.until > now }.sorted { $0.key < $1.key }.compactMap { full, entry in
            guard let label = ServiceInstance.label(of: entry.name, under: typeName) else { return nil }
            let srv = services[full].flatMap { $0.until > now ? $0 : nil }
            let host = srv?.host ?? ""
            let addrs = (addresses[host] ?? [:]).filter { $0.value > now }.keys.sorted()
            return ServiceInstance(
                name: label, type: DNSName.normalized(type), host: host, port: srv?.port ?? 0,
                addresses: addrs, txt: texts[full].flatMap { $0.until > now ? $0.pairs : nil } ?? [:])
        }
    }
}
