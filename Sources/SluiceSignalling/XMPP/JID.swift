/// An XMPP address (RFC 7622): `local@domain/resource`, each part optional but the domain.
public struct JID: Sendable, Hashable, CustomStringConvertible {
    /// The local part (the user), if any.
    public var local: String?
    /// The domain, lower-cased.
    public var domain: String
    /// The resource (one connection of the user), if any.
    public var resource: String?

    /// Parses `text`; nil when it is not an address (no domain, empty parts, spaces or
    /// control characters, parts over 1023 bytes).
    public init?(_ text: String) {
        var rest = Substring(text)
        var resource: String? = nil
        if let slash = rest.firstIndex(of: "/") {
            resource = String(rest[rest.index(after: slash)...])
            rest = rest[..<slash]
            guard resource?.isEmpty == false else { return nil }
        }
        var local: String? = nil
        if let at = rest.firstIndex(of: "@") {
            local = String(rest[..<at])
            rest = rest[rest.index(after: at)...]
            guard local?.isEmpty == false else { return nil }
        }
        let domain = String(rest).lowercased()
        guard !domain.isEmpty, !domain.contains("@") else { return nil }
        for part in [local, domain, resource].compactMap({ $0 }) {
            guard part.utf8.count <= 1023, !part.unicodeScalars.contains(where: { $0.value < 0x21 || $0.value == 0x7F }) else { return nil }
        }
        for part in [local, domain].compactMap({ $0 }) {
            guard !part.contains(where: { "\"&'/:<>@".contains($0) }) else { return nil }
        }
        self.local = local
        self.domain = domain
        self.resource = resource
    }

    /// An address from its parts, taken as they are (not checked).
    public init(local: String?, domain: String, resource: String? = nil) {
        self.local = local
        self.domain = domain
        self.resource = resource
    }

    /// The address without its resource.
    public var bare: JID { JID(local: local, domain: domain) }
    /// Whether the address has no resource.
    public var isBare: Bool { resource == nil }

    /// `local@domain/resource`, without the parts that are missing.
    public var description: String {
        (local.map { $0 + "@" } ?? "") + domain + (resource.map { "/" + $0 } ?? "")
    }
}
