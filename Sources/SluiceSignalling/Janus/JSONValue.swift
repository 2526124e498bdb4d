import Foundation

/// A JSON value as Janus sends it: objects, arrays, strings, integers (Janus's 64-bit ids
/// stay exact), other numbers, booleans and null. Sendable, so messages cross tasks freely.
public enum JSONValue: Sendable, Equatable, Codable, CustomStringConvertible {
    /// A JSON object.
    case object([String: JSONValue])
    /// A JSON array.
    case array([JSONValue])
    /// A JSON string.
    case string(String)
    /// A number without a fraction, kept exact (Janus's ids).
    case int(Int64)
    /// Any other number.
    case number(Double)
    /// `true` or `false`.
    case bool(Bool)
    /// `null`.
    case null

    /// Decodes any JSON value; integers that fit in 64 bits become ``int(_:)``.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() {
            self = .null
        } else if let b = try? c.decode(Bool.self) {
            self = .bool(b)
        } else if let i = try? c.decode(Int64.self) {
            self = .int(i)
        } else if let d = try? c.decode(Double.self) {
            self = .number(d)
        } else if let s = try? c.decode(String.self) {
            self = .string(s)
        } else if let a = try? c.decode([JSONValue].self) {
            self = .array(a)
        } else {
            self = .object(try c.decode([String: JSONValue].self))
        }
    }

    /// Encodes the value as the JSON it stands for.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .object(let o): try c.encode(o)
        case .array(let a): try c.encode(a)
        case .string(let s): try c.encode(s)
        case .int(let i): try c.encode(i)
        case .number(let d): try c.encode(d)
        case .bool(let b): try c.encode(b)
        case .null: try c.encodeNil()
        }
    }

    /// Parses JSON text; nil if it is not JSON. Nesting deeper than 64 levels is refused
    /// (a hostile server cannot exhaust the stack).
    public init?(parsing text: String) {
        guard Self.depth(of: text.utf8) <= 64,
            let v = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
        else { return nil }
        self = v
    }

    private static func depth(of bytes: String.UTF8View) -> Int {
        var depth = 0, deepest = 0, inString = false, escaped = false
        for b in bytes {
            if inString {
                if escaped { escaped = false } else if b == UInt8(ascii: "\\") { escaped = true } else if b == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch b {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1; deepest = max(deepest, depth)
            case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1
            default: break
            }
        }
        return deepest
    }

    /// Compact JSON text (keys sorted, so the same value is the same text).
    public var text: String {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? String(decoding: e.encode(self), as: UTF8.self)) ?? "null"
    }

    /// The compact JSON text.
    public var description: String { text }

    /// The member `key` of an object; nil for a missing key or a value that is not an object.
    public subscript(key: String) -> JSONValue? {
        if case .object(let o) = self { return o[key] }
        return nil
    }

    /// The string, if this is one.
    public var string: String? { if case .string(let s) = self { return s }; return nil }
    /// The integer, if this is one (or a number with an exact integer value).
    public var int: Int64? {
        switch self {
        case .int(let i): return i
        case .number(let d) where d == d.rounded() && abs(d) < 9.0e15: return Int64(d)
        default: return nil
        }
    }
    /// The boolean, if this is one.
    public var bool: Bool? { if case .bool(let b) = self { return b }; return nil }
    /// The elements, if this is an array.
    public var array: [JSONValue]? { if case .array(let a) = self { return a }; return nil }
    /// The members, if this is an object.
    public var object: [String: JSONValue]? { if case .object(let o) = self { return o }; return nil }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByDictionaryLiteral, ExpressibleByArrayLiteral
{
    /// A string value.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An integer value.
    public init(integerLiteral value: Int64) { self = .int(value) }
    /// A boolean value.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// An object value; the last of repeated keys wins.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
    /// An array value.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
}
