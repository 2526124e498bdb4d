/// A DNS message as multicast DNS uses it (RFC 1035 §4, RFC 6762): a header, questions and
/// resource records, with name compression. Parsing is bounded: every length is checked
/// against the packet, compression pointers may only point backwards and at most 64 times
/// per name, a name is at most 255 bytes, and a message at most 9000 bytes (mDNS's limit) and
/// 256 records. A packet that breaks any of these is a `DNSMessage.ParseError`, never a trap.
public struct DNSMessage: Sendable, Equatable {
    /// The message id; 0 in multicast DNS.
    public var id: UInt16 = 0
    /// QR: a response (true) or a query.
    public var isResponse = false
    /// AA: mDNS responses always set it.
    public var isAuthoritative = false
    /// The question section.
    public var questions: [DNSQuestion] = []
    /// The answer section.
    public var answers: [DNSRecord] = []
    /// The authority section (a probe's proposed records).
    public var authorities: [DNSRecord] = []
    /// The additional section.
    public var additionals: [DNSRecord] = []

    /// A message with these flags and sections.
    public init(
        id: UInt16 = 0, isResponse: Bool = false, isAuthoritative: Bool = false, questions: [DNSQuestion] = [],
        answers: [DNSRecord] = [], authorities: [DNSRecord] = [], additionals: [DNSRecord] = []
    ) {
        self.id = id; self.isResponse = isResponse; self.isAuthoritative = isAuthoritative
        self.questions = questions; self.answers = answers; self.authorities = authorities; self.additionals = additionals
    }

    /// The most bytes an mDNS message may have (RFC 6762 §17).
    public static let maxSize = 9000
    /// The most questions plus records a message may carry.
    public static let maxEntries = 256

    /// A packet that is not a well-formed DNS message within the limits above.
    public struct ParseError: Error, Equatable, CustomStringConvertible {
        /// What is wrong with the packet, and where.
        public var description: String
        init(_ d: String) { description = d }
    }

    /// Every record of the message (answers, authorities, additionals).
    public var records: [DNSRecord] { answers + authorities + additionals }
}

/// A question: a name and a type; `unicastResponse` is mDNS's QU bit (the top bit of the class).
public struct DNSQuestion: Sendable, Equatable {
    /// The name asked about.
    public var name: String
    /// The record type asked for.
    public var type: DNSType
    /// QU: the asker wants the answer by unicast.
    public var unicastResponse: Bool
    /// A question for `type` records of `name`.
    public init(name: String, type: DNSType, unicastResponse: Bool = false) {
        self.name = name; self.type = type; self.unicastResponse = unicastResponse
    }
}

/// Record types Sluice reads and writes; others are kept as their number.
public struct DNSType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The type's number.
    public var rawValue: UInt16
    /// The type numbered `rawValue`.
    public init(rawValue: UInt16) { self.rawValue = rawValue }
    /// An IPv4 address.
    public static let a = DNSType(rawValue: 1)
    /// A pointer to another name (DNS-SD: service type → instance).
    public static let ptr = DNSType(rawValue: 12)
    /// Text strings (DNS-SD: the instance's `key=value` pairs).
    public static let txt = DNSType(rawValue: 16)
    /// An IPv6 address.
    public static let aaaa = DNSType(rawValue: 28)
    /// A service's host and port.
    public static let srv = DNSType(rawValue: 33)
    /// Which types a name has (mDNS's negative answers).
    public static let nsec = DNSType(rawValue: 47)
    /// Any type (questions only).
    public static let any = DNSType(rawValue: 255)
    /// The type's mnemonic (`A`, `PTR`), or `TYPE<number>`.
    public var description: String {
        switch self {
        case .a: "A"
        case .ptr: "PTR"
        case .txt: "TXT"
        case .aaaa: "AAAA"
        case .srv: "SRV"
        case .nsec: "NSEC"
        case .any: "ANY"
        default: "TYPE\(rawValue)"
        }
    }
}

/// A resource record. `cacheFlush` is mDNS's top bit of the class (RFC 6762 §10.2): this
/// record replaces what a cache holds for its name and type. A TTL of 0 says goodbye.
public struct DNSRecord: Sendable, Equatable {
    /// A record's data, by type.
    public enum Data: Sendable, Equatable {
        /// An IPv4 address, dotted.
        case a(String)
        /// An IPv6 address, as text (RFC 5952's shortest form).
        case aaaa(String)
        /// The name pointed to.
        case ptr(String)
        /// A service's host (`target`) and port, with priority and weight.
        case srv(priority: UInt16, weight: UInt16, port: UInt16, target: String)
        /// The character strings of a TXT record (DNS-SD's `key=value` pairs).
        case txt([String])
        /// Any other type, as its bytes.
        case other(type: UInt16, bytes: [UInt8])

        /// The record type of this data.
        public var type: DNSType {
            switch self {
            case .a: .a
            case .aaaa: .aaaa
            case .ptr: .ptr
            case .srv: .srv
            case .txt: .txt
            case .other(let t, _): DNSType(rawValue: t)
            }
        }
    }

    /// The record's owner name.
    public var name: String
    /// The record's data.
    public var data: Data
    /// Seconds the record stays valid; 0 is a goodbye.
    public var ttl: UInt32
    /// mDNS's cache-flush bit: this record replaces the cached ones of its name and type.
    public var cacheFlush: Bool
    /// The record's type, from its data.
    public var type: DNSType { data.type }

    /// A record of `name` with `data`, valid for `ttl` seconds.
    public init(name: String, data: Data, ttl: UInt32, cacheFlush: Bool = false) {
        self.name = name; self.data = data; self.ttl = ttl; self.cacheFlush = cacheFlush
    }
}

/// Names compare without regard to ASCII case (RFC 1035 §2.3.3) and without a final dot.
public enum DNSName {
    /// `name` lower-cased, without a final dot.
    public static func normalized(_ name: String) -> String {
        var n = name.lowercased()
        while n.hasSuffix(".") { n.removeLast() }
        return n
    }
    /// Whether `a` and `b` name the same thing.
    public static func equal(_ a: String, _ b: String) -> Bool { normalized(a) == normalized(b) }
}
