/// A DNS message as multicast DNS uses it (RFC 1035 §4, RFC 6762): a header, questions and
/// resource records, with name compression. Parsing is bounded: every length is checked
/// against the packet, compression pointers may only point backwards and at most 64 times
/// per name, a name is at most 255 bytes, and a message at most 9000 bytes (mDNS's limit) and
/// 256 records. A packet that breaks any of these is a `DNSMessage.ParseError`, never a trap.
public struct DNSMessage: Sendable, Equatable {
    public var id: UInt16 = 0
    /// QR: a response (true) or a query.
    public var isResponse = false
    /// AA: mDNS responses always set it.
    public var isAuthoritative = false
    public var questions: [DNSQuestion] = []
    public var answers: [DNSRecord] = []
    public var authorities: [DNSRecord] = []
    public var additionals: [DNSRecord] = []

    public init(id: UInt16 = 0, isResponse: Bool = false, isAuthoritative: Bool = false, questions: [DNSQuestion] = [],
                answers: [DNSRecord] = [], authorities: [DNSRecord] = [], additionals: [DNSRecord] = []) {
        self.id = id; self.isResponse = isResponse; self.isAuthoritative = isAuthoritative
        self.questions = questions; self.answers = answers; self.authorities = authorities; self.additionals = additionals
    }

    /// The most bytes an mDNS message may have (RFC 6762 §17).
    public static let maxSize = 9000
    /// The most questions plus records a message may carry.
    public static let maxEntries = 256

    public struct ParseError: Error, Equatable, CustomStringConvertible {
        public var description: String
        init(_ d: String) { description = d }
    }

    /// Every record of the message (answers, authorities, additionals).
    public var records: [DNSRecord] { answers + authorities + additionals }
}

/// A question: a name and a type; `unicastResponse` is mDNS's QU bit (the top bit of the class).
public struct DNSQuestion: Sendable, Equatable {
    public var name: String
    public var type: DNSType
    public var unicastResponse: Bool
    public init(name: String, type: DNSType, unicastResponse: Bool = false) {
        self.name = name; self.type = type; self.unicastResponse = unicastResponse
    }
}

/// Record types Sluice reads and writes; others are kept as their number.
public struct DNSType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }
    public static let a = DNSType(rawValue: 1)
    public static let ptr = DNSType(rawValue: 12)
    public static let txt = DNSType(rawValue: 16)
    public static let aaaa = DNSType(rawValue: 28)
    public static let srv = DNSType(rawValue: 33)
    public static let nsec = DNSType(rawValue: 47)
    public static let any = DNSType(rawValue: 255)
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
    public enum Data: Sendable, Equatable {
        /// An IPv4 address, dotted.
        case a(String)
        /// An IPv6 address, as text (RFC 5952's shortest form).
        case aaaa(String)
        case ptr(String)
        case srv(priority: UInt16, weight: UInt16, port: UInt16, target: String)
        /// The character strings of a TXT record (DNS-SD's `key=value` pairs).
        case txt([String])
        /// Any other type, as its bytes.
        case other(type: UInt16, bytes: [UInt8])

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

    public var name: String
    public var data: Data
    public var ttl: UInt32
    public var cacheFlush: Bool
    public var type: DNSType { data.type }

    public init(name: String, data: Data, ttl: UInt32, cacheFlush: Bool = false) {
        self.name = name; self.data = data; self.ttl = ttl; self.cacheFlush = cacheFlush
    }
}

/// Names compare without regard to ASCII case (RFC 1035 §2.3.3) and without a final dot.
public enum DNSName {
    public static func normalized(_ name: String) -> String {
        var n = name.lowercased()
        while n.hasSuffix(".") { n.removeLast() }
        return n
    }
    public static func equal(_ a: String, _ b: String) -> Bool { normalized(a) == normalized(b) }
}
