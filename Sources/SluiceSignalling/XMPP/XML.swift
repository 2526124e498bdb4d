import Foundation
#if canImport(FoundationXML)
    import FoundationXML
#endif

/// XML as XMPP uses it: one element tree per stanza, namespaces resolved, no DTDs,
/// comments or processing instructions (RFC 6120 §11.1).
public enum XML {
    /// An element: its local name, its namespace (resolved, inherited from the parent when
    /// not declared), its attributes in document order, its child elements and its text.
    public struct Element: Sendable, Equatable, CustomStringConvertible {
        /// The local name.
        public var name: String
        /// The resolved namespace, if any.
        public var namespace: String?
        /// The attributes other than namespace declarations, in document order.
        public var attributes: [(name: String, value: String)]
        /// The child elements, in order.
        public var children: [Element]
        /// The element's character data (XMPP elements hold text or children, not both).
        public var text: String

        /// An element called `name` in `namespace`, with these attributes, children and text.
        public init(
            _ name: String, namespace: String? = nil, attributes: [(String, String)] = [],
            children: [Element] = [], text: String = ""
        ) {
            self.name = name
            self.namespace = namespace
            self.attributes = attributes.map { (name: $0.0, value: $0.1) }
            self.children = children
            self.text = text
        }

        /// Equal in name, namespace, children, text and attributes (in order).
        public static func == (a: Element, b: Element) -> Bool {
            a.name == b.name && a.namespace == b.namespace && a.children == b.children && a.text == b.text
                && a.attributes.count == b.attributes.count
                && zip(a.attributes, b.attributes).allSatisfy { $0.name == $1.name && $0.value == $1.value }
        }

        /// The value of attribute `name`, if present.
        public subscript(attribute name: String) -> String? {
            get { attributes.first { $0.name == name }?.value }
            set {
                attributes.removeAll { $0.name == name }
                if let newValue { attributes.append((name: name, value: newValue)) }
            }
        }

        /// The first child named `name` (in `namespace`, when given).
        public func child(_ name: String, namespace: String? = nil) -> Element? {
            children.first { $0.name == name && (namespace == nil || $0.namespace == namespace) }
        }

        /// Every child named `name` (in `namespace`, when given).
        public func children(_ name: String, namespace: String? = nil) -> [Element] {
            children.filter { $0.name == name && (namespace == nil || $0.namespace == namespace) }
        }

        /// The element as XML text. `xmlns` is written where the namespace differs from
        /// `inherited` (the parent's).
        public func serialized(inherited: String? = nil) -> String {
            var out = "<" + name
            if let namespace, namespace != inherited { out += " xmlns='\(XML.escape(namespace))'" }
            for a in attributes where a.name != "xmlns" { out += " \(a.name)='\(XML.escape(a.value))'" }
            if children.isEmpty && text.isEmpty { return out + "/>" }
            out += ">" + XML.escape(text)
            for c in children { out += c.serialized(inherited: namespace) }
            return out + "</\(name)>"
        }

        /// The element serialized as XML text.
        public var description: String { serialized() }
    }

    /// Why a text is not an acceptable XML element.
    public struct ParseError: Error, Sendable, CustomStringConvertible {
        /// What is wrong with the text.
        public var description: String
        /// An error saying `description`.
        public init(_ description: String) { self.description = description }
    }

    /// Escapes text for element content and single- or double-quoted attribute values.
    public static func escape(_ s: String) -> String {
        guard s.contains(where: { "&<>'\"".contains($0) }) else { return s }
        var out = ""
        out.reserveCapacity(s.count + 8)
        for ch in s {
            switch ch {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "'": out += "&apos;"
            case "\"": out += "&quot;"
            default: out.append(ch)
            }
        }
        return out
    }

    /// Parses one element from `text` with Foundation's XML parser (libxml2). `context`
    /// wraps it (an XMPP stream header and its end tag) so prefixes and the default
    /// namespace declared there apply. DTDs and entity declarations are refused before
    /// parsing.
    public static func parse(_ text: String, context: (open: String, close: String)? = nil) throws(ParseError) -> Element {
        if text.contains("<!") { throw ParseError("XML with a DTD, comment or CDATA section is not allowed in XMPP") }
        let document = (context?.open ?? "") + text + (context?.close ?? "")
        let builder = TreeBuilder()
        let parser = XMLParser(data: Data(document.utf8))
        parser.shouldProcessNamespaces = true
        parser.shouldResolveExternalEntities = false
        parser.delegate = builder
        guard parser.parse(), builder.failure == nil else {
            let why = builder.failure ?? parser.parserError.map { "\($0.localizedDescription)" } ?? "not well-formed"
            throw ParseError("not well-formed XML: \(why)")
        }
        let roots = context == nil ? builder.roots : builder.roots.first?.children ?? []
        guard roots.count == 1, let root = roots.first else { throw ParseError("expected one element, found \(roots.count)") }
        return root
    }

    /// Builds the tree from the parser's callbacks. Used by one parse on one thread.
    private final class TreeBuilder: NSObject, XMLParserDelegate {
        var stack: [Element] = []
        var roots: [Element] = []
        var failure: String?
        /// Nesting bound: deeper documents are refused rather than recursed into.
        static let maxDepth = 64

        func parser(
            _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
            qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]
        ) {
            guard stack.count < Self.maxDepth else {
                failure = "elements nested deeper than \(Self.maxDepth)"
                return parser.abortParsing()
            }
            let local = elementName.split(separator: ":").last.map(String.init) ?? elementName
            let attributes = attributeDict.filter { !$0.key.hasPrefix("xmlns") }.sorted { $0.key < $1.key }
            let ns = (namespaceURI?.isEmpty == false) ? namespaceURI : stack.last?.namespace
            stack.append(Element(local, namespace: ns, attributes: attributes.map { ($0.key, $0.value) }))
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
            guard let done = stack.popLast() else { return }
            if stack.isEmpty { roots.append(done) } else { stack[stack.count - 1].children.append(done) }
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            guard !stack.isEmpty else { return }
            stack[stack.count - 1].text += string
        }

        func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
            if failure == nil { failure = "\(parseError.localizedDescription)" }
        }
    }
}

extension XML.Element {
    /// Drops whitespace-only text of elements that have children (pretty-printed input).
    public func trimmed() -> XML.Element {
        var e = self
        e.children = children.map { $0.trimmed() }
        if !e.children.isEmpty && e.text.allSatisfy(\.isWhitespace) { e.text = "" }
        return e
    }
}
