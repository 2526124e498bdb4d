/// A DNS-SD service instance (RFC 6763): `<instance>.<type>.local` with its host, port,
/// addresses and TXT `key=value` pairs — what `sluice serve --advertise` announces and
/// `sluice discover` lists.
public struct ServiceInstance: Sendable, Equatable {
    /// The instance's own label (`Kitchen Camera`), unique on the link after probing.
    public var name: String
    /// The service type with its protocol, e.g. `_sluice._tcp`.
    public var type: String
    /// The host's `.local` name.
    public var host: String
    /// The port the service listens on.
    public var port: UInt16
    /// The host's addresses, as text.
    public var addresses: [String]
    /// The TXT record's `key=value` pairs.
    public var txt: [String: String]

    /// An instance called `name` of service `type` on `host`:`port`.
    public init(name: String, type: String, host: String, port: UInt16, addresses: [String], txt: [String: String] = [:]) {
        self.name = name; self.type = type; self.host = host; self.port = port; self.addresses = addresses; self.txt = txt
    }

    /// `_sluice._tcp.local`
    public var typeName: String { "\(DNSName.normalized(type)).local" }
    /// `Kitchen Camera._sluice._tcp.local` (a dot in the label escaped).
    public var fullName: String { "\(Self.escape(name)).\(typeName)" }

    static func escape(_ label: String) -> String {
        label.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: ".", with: "\\.")
    }

    /// The instance label of a full name under `typeName`, unescaped; nil if it is not one.
    static func label(of fullName: String, under typeName: String) -> String? {
        let lower = fullName.lowercased(), suffix = "." + typeName.lowercased()
        guard lower.hasSuffix(suffix) || lower.hasSuffix(suffix + ".") else { return nil }
        var label = String(fullName.dropLast(lower.hasSuffix(".") ? suffix.count + 1 : suffix.count))
        label = label.replacingOccurrences(of: "\\.", with: ".").replacingOccurrences(of: "\\\\", with: "\\")
        return label.isEmpty ? nil : label
    }

    /// The records that announce it: PTR (shared), SRV and TXT (unique: cache-flush), and the
    /// host's A records. `ttl` 0 says goodbye.
    func records(ttl: UInt32 = 120, pointerTTL: UInt32 = 4500) -> [DNSRecord] {
        let pairs = txt.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        var records = [
            DNSRecord(name: typeName, data: .ptr(fullName), ttl: ttl == 0 ? 0 : pointerTTL),
            DNSRecord(name: fullName, data: .srv(priority: 0, weight: 0, port: port, target: host), ttl: ttl, cacheFlush: true),
            DNSRecord(name: fullName, data: .txt(pairs), ttl: ttl == 0 ? 0 : pointerTTL, cacheFlush: true)
        ]
        records += addresses.map { DNSRecord(name: host, data: .a($0), ttl: ttl, cacheFlush: true) }
        return records
    }

    /// The name DNS-SD picks after a conflict (RFC 6763 §9): `Name (2)`, `Name (3)`, …
    public static func renamed(_ name: String) -> String {
        if name.hasSuffix(")"), let open = name.lastIndex(of: "("), open > name.startIndex,
            let n = Int(name[name.index(after: open)..<name.index(before: name.endIndex)]), n >= 2
        {
            return "\(name[..<open])(\(n + 1))"
        }
        return "\(name) (2)"
    }

    /// TXT strings as pairs (RFC 6763 §6.3: a key without `=` is a flag; keys are
    /// case-insensitive; the first of a repeated key counts).
    static func pairs(_ strings: [String]) -> [String: String] {
        var out: [String: String] = [:]
        for s in strings.prefix(64) {
            let parts = s.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let key = parts.first.map({ String($0).lowercased() }), !key.isEmpty, out[key] == nil else { continue }
            out[key] = parts.count > 1 ? String(parts[1]) : ""
        }
        return out
    }
}
