/// Cuts an XMPP stream (one long XML document, RFC 6120 §4) into its parts as bytes arrive:
/// the stream header, each top-level stanza as complete text, and the stream's end.
///
/// It only finds element boundaries (tags, quoted attribute values, depth); each stanza is
/// then parsed by `XML.parse` in the stream header's context. Everything XMPP forbids —
/// DTDs, comments, processing instructions after the XML declaration, CDATA — is an error,
/// as are stanzas over `maxStanzaBytes` and nesting over `maxDepth`, so a hostile server
/// costs bounded memory.
public struct XMPPFramer: Sendable {
    /// A piece of the stream, as it completes.
    public enum Part: Sendable, Equatable {
        /// `<stream:stream …>` as sent (its text, for parsing stanzas in its context).
        case streamOpened(header: String, attributes: [String: String])
        /// One complete top-level element.
        case stanza(String)
        /// `</stream:stream>`.
        case streamClosed
    }

    /// A stream that breaks XMPP's XML rules; `condition` is the RFC 6120 stream error.
    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// The RFC 6120 stream error condition (`not-well-formed`, `policy-violation`, …).
        public var condition: String
        /// What was wrong, in words.
        public var description: String
    }

    /// The largest stanza accepted, in bytes.
    public var maxStanzaBytes: Int
    /// The deepest element nesting accepted.
    public var maxDepth: Int
    private var buffer: [UInt8] = []
    /// Where scanning resumes in `buffer`.
    private var scan = 0
    private var depth = 0
    private var stanzaStart: Int?
    private var streamName: String?

    /// A framer with these bounds.
    public init(maxStanzaBytes: Int = 256 * 1024, maxDepth: Int = 48) {
        self.maxStanzaBytes = maxStanzaBytes
        self.maxDepth = maxDepth
    }

    /// Forgets everything (a new stream after STARTTLS or SASL success).
    public mutating func reset() {
        self = XMPPFramer(maxStanzaBytes: maxStanzaBytes, maxDepth: maxDepth)
    }

    /// Adds bytes and returns the parts they complete.
    public mutating func feed(_ bytes: some Sequence<UInt8>) throws(Failure) -> [Part] {
        buffer.append(contentsOf: bytes)
        var parts: [Part] = []
        while true {
            guard let lt = firstIndex(of: UInt8(ascii: "<"), from: scan) else {
                // Text between stanzas (whitespace keepalives) is not kept.
                if stanzaStart == nil && depth <= 1 { scan = buffer.count }
                break
            }
            guard let gt = tagEnd(from: lt) else {
                try checkSize(upTo: buffer.count)
                break
            }
            scan = gt + 1
            try handleTag(from: lt, to: gt, into: &parts)
        }
        if stanzaStart == nil && depth <= 1 {
            // Nothing pending: drop what was consumed (whitespace keepalives, finished stanzas).
            buffer.removeFirst(min(scan, buffer.count))
            scan = 0
        } else {
            try checkSize(upTo: buffer.count)
        }
        return parts
    }

    private func checkSize(upTo end: Int) throws(Failure) {
        let start = stanzaStart ?? scan
        if end - start > maxStanzaBytes {
            throw Failure(condition: "policy-violation", description: "a stanza longer than \(maxStanzaBytes) bytes")
        }
    }

    private func firstIndex(of byte: UInt8, from: Int) -> Int? {
        var i = from
        while i < buffer.count {
            if buffer[i] == byte { return i }
            i += 1
        }
        return nil
    }

    /// The index of the `>` closing the tag that starts at `lt`, skipping quoted values.
    private func tagEnd(from lt: Int) -> Int? {
        var quote: UInt8? = nil
        var i = lt + 1
        while i < buffer.count {
            let b = buffer[i]
            if let q = quote {
                if b == q { quote = nil }
            } else if b == UInt8(ascii: "\"") || b == UInt8(ascii: "'") {
                quote = b
            } else if b == UInt8(ascii: ">") {
                return i
            }
            i += 1
        }
        return nil
    }

    private mutating func handleTag(from lt: Int, to gt: Int, into parts: inout [Part]) throws(Failure) {
        let second = lt + 1 < gt ? buffer[lt + 1] : 0
        if second == UInt8(ascii: "?") {
            // Only the XML declaration, before the stream.
            guard streamName == nil, text(lt, gt).hasPrefix("<?xml ") else {
                throw Failure(condition: "restricted-xml", description: "a processing instruction inside the stream")
            }
            return
        }
        if second == UInt8(ascii: "!") {
            throw Failure(condition: "restricted-xml", description: "a DTD, comment or CDATA section (XMPP forbids them)")
        }
        if second == UInt8(ascii: "/") {
            let name = tagName(text(lt + 2, gt))
            if depth == 1 {
                guard name == streamName else {
                    throw Failure(condition: "not-well-formed", description: "</\(name)> where the stream's end was expected")
                }
                depth = 0
                parts.append(.streamClosed)
                return
            }
            guard depth > 1 else { throw Failure(condition: "not-well-formed", description: "an end tag before the stream began") }
            depth -= 1
            if depth == 1, let start = stanzaStart {
                parts.append(.stanza(text(start, gt)))
                stanzaStart = nil
            }
            return
        }
        let selfClosing = buffer[gt - 1] == UInt8(ascii: "/")
        if streamName == nil || depth == 0 {
            let tag = text(lt, gt)
            let name = tagName(String(tag.dropFirst()))
            guard name.hasSuffix(":stream") || name == "stream", !selfClosing else {
                throw Failure(condition: "not-well-formed", description: "the stream must begin with <stream:stream>, not <\(name)>")
            }
            streamName = name
            depth = 1
            parts.append(.streamOpened(header: tag, attributes: Self.attributes(of: tag)))
            return
        }
        if depth == 1 { stanzaStart = lt }
        if selfClosing {
            if depth == 1, let start = stanzaStart {
                parts.append(.stanza(text(start, gt)))
                stanzaStart = nil
            }
            return
        }
        depth += 1
        if depth > maxDepth { throw Failure(condition: "policy-violation", description: "elements nested deeper than \(maxDepth)") }
    }

    private func text(_ from: Int, _ through: Int) -> String {
        String(decoding: buffer[from...through], as: UTF8.self)
    }

    /// The qualified name at the start of a tag's text (after `<` or `</`).
    private func tagName(_ s: String) -> String {
        String(s.prefix { !$0.isWhitespace && $0 != ">" && $0 != "/" })
    }

    /// The attributes of a start tag, by a simple scan (`name='v'` or `name="v"`).
    static func attributes(of tag: String) -> [String: String] {
        var out: [String: String] = [:]
        var rest = Substring(tag)
        while let eq = rest.firstIndex(of: "=") {
            let name = rest[..<eq].split(whereSeparator: { $0.isWhitespace }).last.map(String.init) ?? ""
            var after = rest[rest.index(after: eq)...].drop { $0.isWhitespace }
            guard let q = after.first, q == "'" || q == "\"" else { break }
            after = after.dropFirst()
            guard let end = after.firstIndex(of: q) else { break }
            out[name] = String(after[..<end])
            rest = after[after.index(after: end)...]
        }
        return out
    }
}
