/// A YAML node as the pipeline-file loader sees it: scalars, lists and mappings, each with
/// the `SourceLocation` of its first character (or of the `--set` override it came from).
///
/// The loader converts Yams' node tree into this one once, then substitutes environment
/// variables, applies overrides and decodes it; keeping positions on every node is what lets
/// each diagnostic point at the exact key or value at fault.
public struct SpecNode: Sendable {
    /// What a node holds.
    public enum Content: Sendable {
        /// A scalar's text. `isNull` is true for a plain empty, `~` or `null` scalar
        /// (`key:` with nothing after it).
        case scalar(String, isNull: Bool)
        /// A list's items.
        case sequence([SpecNode])
        /// A mapping's entries, in file order.
        case mapping([SpecEntry])
        /// A value that was already reported as an error (e.g. an unset environment
        /// variable); decoding skips it silently so one mistake yields one diagnostic.
        case reported
    }

    /// What the node holds.
    public var content: Content
    /// Where the node starts (or the `--set` override it came from).
    public var location: SourceLocation

    /// A node holding `content`, read at `location`.
    public init(_ content: Content, at location: SourceLocation) {
        self.content = content
        self.location = location
    }

    package static func scalar(_ text: String, at location: SourceLocation) -> SpecNode {
        SpecNode(.scalar(text, isNull: false), at: location)
    }

    /// The entries if this node is a mapping.
    public var entries: [SpecEntry]? {
        if case .mapping(let entries) = content { return entries }
        return nil
    }

    /// True for a null scalar.
    public var isNull: Bool {
        if case .scalar(_, let isNull) = content { return isNull }
        return false
    }

    /// "a scalar", "a list", "a mapping" or "nothing", for "expected X, got Y" messages.
    public var kindDescription: String {
        switch content {
        case .scalar(_, let isNull): isNull ? "nothing" : "a scalar"
        case .sequence: "a list"
        case .mapping: "a mapping"
        case .reported: "an invalid value"
        }
    }

    /// Whether `text` written as a plain (unquoted) scalar means null in YAML.
    package static func isNullText(_ text: String) -> Bool {
        ["", "~", "null", "Null", "NULL"].contains(text)
    }
}

/// One `key: value` pair of a mapping, with the key's own position.
public struct SpecEntry: Sendable {
    /// The key.
    public var key: String
    /// Where the key is.
    public var keyLocation: SourceLocation
    /// The value, with its own location.
    public var value: SpecNode
}

extension Array where Element == SpecEntry {
    /// The entry for `key`, if present.
    public func entry(_ key: String) -> SpecEntry? {
        first { $0.key == key }
    }
}
