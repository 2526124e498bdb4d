#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// The wire format (RFC 1035 §4.1). Names are text with `.` between labels; a `.` or `\`
// inside a label is written `\.` or `\\`.
extension DNSMessage {
    /// Parses a packet. Throws on anything malformed or beyond the limits (see the type).
    public init(bytes: [UInt8]) throws(ParseError) {
        guard bytes.count <= Self.maxSize else { throw ParseError("the packet has \(bytes.count) bytes; mDNS allows \(Self.maxSize)") }
        var r = DNSReader(bytes: bytes)
        id = try r.u16()
        let flags = try r.u16()
        isResponse = flags & 0x8000 != 0
        isAuthoritative = flags & 0x0400 != 0
        let counts = [try r.u16(), try r.u16(), try r.u16(), try r.u16()].map(Int.init)
        guard counts.reduce(0, +) <= Self.maxEntries else {
            throw ParseError("the packet claims \(counts.reduce(0, +)) entries; at most \(Self.maxEntries) are read")
        }
        for _ in 0..<counts[0] {
            let name = try r.name()
            let type = try r.u16(), klass = try r.u16()
            questions.append(DNSQuestion(name: name, type: DNSType(rawValue: type), unicastResponse: klass & 0x8000 != 0))
        }
        answers = try (0..<counts[1]).map { _ throws(ParseError) in try r.record() }
        authorities = try (0..<counts[2]).map { _ throws(ParseError) in try r.record() }
        additionals = try (0..<counts[3]).map { _ throws(ParseError) in try r.record() }
    }

    /// The packet, with names compressed. Throws for a name or text that cannot be written
    /// (a label over 63 bytes, a name over 255, an address that is not one).
    public func encoded() throws(ParseError) -> [UInt8] {
        var w = DNSWriter()
        w.u16(id)
        w.u16((isResponse ? 0x8000 : 0) | (isAuthoritative ? 0x0400 : 0))
        for n in [questions.count, answers.count, authorities.count, additionals.count] { w.u16(UInt16(clamping: n)) }
        for q in questions {
            try w.name(q.name)
            w.u16(q.type.rawValue)
            w.u16(1 | (q.unicastResponse ? 0x8000 : 0))
        }
        for rec in answers + authorities + additionals { try w.record(rec) }
        guard w.bytes.count <= Self.maxSize else { throw ParseError("the message would have \(w.bytes.count) bytes; mDNS allows \(Self.maxSize)") }
        return w.bytes
    }
}

struct DNSReader {
    let bytes: [UInt8]
    var at = 0

    mutating func u8() throws(DNSMessage.ParseError) -> UInt8 {
        guard at < bytes.count else { throw .init("the packet ends early (byte \(at))") }
        defer { at += 1 }
        return bytes[at]
    }
    mutating func u16() throws(DNSMessage.ParseError) -> UInt16 { UInt16(try u8()) << 8 | UInt16(try u8()) }
    mutating func u32() throws(DNSMessage.ParseError) -> UInt32 { UInt32(try u16()) << 16 | UInt32(try u16()) }
    mutating func take(_ n: Int) throws(DNSMessage.ParseError) -> [UInt8] {
        guard n >= 0, at + n <= bytes.count else { throw .init("a field of \(n) bytes runs past the end of the packet (byte \(at))") }
        defer { at += n }
        return Array(bytes[at..<at + n])
    }

    /// A name at the read position, following compression pointers (each must point before
    /// where it is, so a loop is impossible; 64 jumps at most).
    mutating func name() throws(DNSMessage.ParseError) -> String {
        var labels: [String] = []
        var length = 0, jumps = 0
        var pos = at
        var resume: Int?
        while true {
            guard pos < bytes.count else { throw .init("a name runs past the end of the packet") }
            let len = Int(bytes[pos])
            switch len & 0xC0 {
            case 0x00:
                if len == 0 {
                    at = resume ?? pos + 1
                    return labels.joined(separator: ".")
                }
                guard pos + 1 + len <= bytes.count else { throw .init("a label runs past the end of the packet") }
                length += len + 1
                guard length <= 255 else { throw .init("a name longer than 255 bytes") }
                let raw = bytes[pos + 1...pos + len]
                labels.append(
                    String(decoding: raw, as: UTF8.self)
                        .replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: ".", with: "\\."))
                pos += 1 + len
            case 0xC0:
                guard pos + 1 < bytes.count else { throw .init("a compression pointer runs past the end of the packet") }
                let target = (len & 0x3F) << 8 | Int(bytes[pos + 1])
                guard target < pos else { throw .init("a compression pointer points forwards (\(target) from \(pos))") }
                jumps += 1
                guard jumps <= 64 else { throw .init("a name has more than 64 compression pointers") }
                if resume == nil { resume = pos + 2 }
                pos = target
            default:
                throw .init("a label with the reserved length bits \(len >> 6)")
            }
        }
    }

    mutating func record() throws(DNSMessage.ParseError) -> DNSRecord {
        let name = try name()
        let type = try u16(), klass = try u16()
        let ttl = try u32()
        let length = Int(try u16())
        guard at + length <= bytes.count else { throw .init("a record's data runs past the end of the packet") }
        let end = at + length
        let data: DNSRecord.Data
        switch DNSType(rawValue: type) {
        case .a:
            guard length == 4 else { throw .init("an A record of \(length) bytes") }
            data = .a(Self.address(try take(4)))
        case .aaaa:
            guard length == 16 else { throw .init("an AAAA record of \(length) bytes") }
            data = .aaaa(Self.address(try take(16)))
        case .ptr:
            data = .ptr(try self.name())
        case .srv:
            let priority = try u16(), weight = try u16(), port = try u16()
            data = .srv(priority: priority, weight: weight, port: port, target: try self.name())
        case .txt:
            var strings: [String] = []
            while at < end {
                let n = Int(try u8())
                guard at + n <= end else { throw .init("a TXT string runs past its record") }
                strings.append(String(decoding: try take(n), as: UTF8.self))
            }
            data = .txt(strings.count == 1 && strings[0].isEmpty ? [] : strings)
        default:
            data = .other(type: type, bytes: try take(length))
        }
        guard at == end else { throw .init("a \(DNSType(rawValue: type)) record's data is \(length) bytes but its fields take \(at - (end - length))") }
        return DNSRecord(name: name, data: data, ttl: ttl, cacheFlush: klass & 0x8000 != 0)
    }

    /// An address as text (`inet_ntop`).
    static func address(_ b: [UInt8]) -> String {
        var out = [CChar](repeating: 0, count: 64)
        let family = b.count == 4 ? AF_INET : AF_INET6
        let ok = b.withUnsafeBytes { src in out.withUnsafeMutableBufferPointer { inet_ntop(family, src.baseAddress, $0.baseAddress, 64) } }
        guard ok != nil else { return "" }
        return String(decoding: out.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

struct DNSWriter {
    var bytes: [UInt8] = []
    /// Where each name suffix was written (normalized), for compression.
    private var written: [String: Int] = [:]

    mutating func u16(_ v: UInt16) { bytes += [UInt8(v >> 8), UInt8(v & 0xFF)] }
    mutating func u32(_ v: UInt32) { u16(UInt16(v >> 16)); u16(UInt16(v & 0xFFFF)) }

    mutating func name(_ name: String) throws(DNSMessage.ParseError) {
        let labels = Self.labels(of: name)
        guard labels.reduce(0, { $0 + $1.count + 1 }) + 1 <= 255 else { throw .init("the name '\(name)' is longer than 255 bytes") }
        for i in labels.indices {
            let suffix = labels[i...].map { String(decoding: $0, as: UTF8.self).lowercased() }.joined(separator: ".")
            if let offset = written[suffix] {
                u16(0xC000 | UInt16(offset))
                return
            }
            if bytes.count < 0x3FFF { written[suffix] = bytes.count }
            guard labels[i].count <= 63 else { throw .init("a label of '\(name)' is longer than 63 bytes") }
            bytes.append(UInt8(labels[i].count))
            bytes += labels[i]
        }
        bytes.append(0)
    }

    /// The labels of a name, unescaping `\.` and `\\`.
    static func labels(of name: String) -> [[UInt8]] {
        var labels: [[UInt8]] = [], current: [UInt8] = []
        var escaped = false
        for b in name.utf8 {
            if escaped {
                current.append(b); escaped = false
            } else if b == UInt8(ascii: "\\") {
                escaped = true
            } else if b == UInt8(ascii: ".") {
                if !current.isEmpty { labels.append(current) }
                current = []
            } else {
                current.append(b)
            }
        }
        if !current.isEmpty { labels.append(current) }
        return labels
    }

    mutating func record(_ r: DNSRecord) throws(DNSMessage.ParseError) {
        try name(r.name)
        u16(r.type.rawValue)
        u16(1 | (r.cacheFlush ? 0x8000 : 0))
        u32(r.ttl)
        let lengthAt = bytes.count
        u16(0)
        switch r.data {
        case .a(let text): bytes += try Self.address(text, family: AF_INET, size: 4)
        case .aaaa(let text): bytes += try Self.address(text, family: AF_INET6, size: 16)
        case .ptr(let target): try name(target)
        case .srv(let priority, let weight, let port, let target):
            u16(priority); u16(weight); u16(port)
            try name(target)
        case .txt(let strings):
            if strings.isEmpty { bytes.append(0) }
            for s in strings {
                let utf8 = Array(s.utf8)
                guard utf8.count <= 255 else { throw .init("a TXT string is longer than 255 bytes") }
                bytes.append(UInt8(utf8.count))
                bytes += utf8
            }
        case .other(_, let raw): bytes += raw
        }
        let length = bytes.count - lengthAt - 2
        guard length <= 0xFFFF else { throw .init("a record's data is longer than 65535 bytes") }
        bytes[lengthAt] = UInt8(length >> 8)
        bytes[lengthAt + 1] = UInt8(length & 0xFF)
    }

    static func address(_ text: String, family: Int32, size: Int) throws(DNSMessage.ParseError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: size)
        let ok = out.withUnsafeMutableBytes { inet_pton(family, text, $0.baseAddress) }
        guard ok == 1 else { throw .init("'\(text)' is not an IPv\(size == 4 ? 4 : 6) address") }
        return out
    }
}
