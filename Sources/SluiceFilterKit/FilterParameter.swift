/// A typed setting a filter or source accepts from the pipeline file.
public struct FilterParameter: Sendable, Equatable, Codable {
    /// The type of a parameter's value and the range or choices it must fall in.
    public enum Kind: Sendable, Equatable, Codable {
        /// An integer in `min...max`.
        case integer(min: Int, max: Int)
        /// A number in `min...max`; an integer in the file is accepted and converted.
        case number(min: Double, max: Double)
        /// `true` or `false`.
        case boolean
        /// A string; one of `choices` when they are given, any string when nil.
        case string(choices: [String]?)
        /// A list of exactly `count` integers, each in `min...max` (e.g. a region `[x, y, w, h]`).
        case integers(count: Int, min: Int, max: Int)
    }
    /// The setting's key in the pipeline file (`block`, `region`).
    public var name: String
    /// What the value must be.
    public var kind: Kind
    /// The default, used when the file omits the setting; nil makes it required.
    public var defaultValue: FilterValue?
    /// One line describing the setting, for `sluice inspect`.
    public var summary: String
    /// A secret (a key, a passphrase): its element property can be set but never read back,
    /// so it stays out of graph pictures and dumps. Not carried in a plugin's JSON.
    public var secret = false

    private enum CodingKeys: String, CodingKey { case name, kind, defaultValue, summary }

    /// A parameter named `name` of kind `kind`; without `default` the setting is required.
    public init(_ name: String, _ kind: Kind, default defaultValue: FilterValue? = nil, summary: String = "", secret: Bool = false) {
        self.name = name; self.kind = kind; self.defaultValue = defaultValue; self.summary = summary; self.secret = secret
    }

    /// Checks `value` against the kind; returns a message saying what is expected, or nil.
    public func problem(with value: FilterValue) -> String? {
        switch (kind, value) {
        case (.integer(let lo, let hi), .integer(let v)):
            return (lo...hi).contains(v) ? nil : "\(name) must be between \(lo) and \(hi), got \(v)"
        case (.number(let lo, let hi), .number(let v)):
            return (lo...hi).contains(v) ? nil : "\(name) must be between \(lo) and \(hi), got \(v)"
        case (.number(let lo, let hi), .integer(let v)):
            return (lo...hi).contains(Double(v)) ? nil : "\(name) must be between \(lo) and \(hi), got \(v)"
        case (.boolean, .boolean):
            return nil
        case (.string(let choices), .string(let s)):
            guard let choices, !choices.contains(s) else { return nil }
            return "\(name) must be one of \(choices.joined(separator: ", ")), got '\(s)'"
        case (.integers(let count, let lo, let hi), .integers(let list)):
            if list.count != count { return "\(name) must be a list of \(count) integers, got \(list.count)" }
            if let bad = list.first(where: { !(lo...hi).contains($0) }) {
                return "\(name) values must be between \(lo) and \(hi), got \(bad)"
            }
            return nil
        default:
            return "\(name) must be \(kind.expected), got \(value.description)"
        }
    }
}

extension FilterParameter.Kind {
    /// "an integer", "a number", … for messages.
    public var expected: String {
        switch self {
        case .integer: "an integer"
        case .number: "a number"
        case .boolean: "true or false"
        case .string(let choices): choices.map { "one of \($0.joined(separator: ", "))" } ?? "a string"
        case .integers(let count, _, _): "a list of \(count) integers"
        }
    }
}

/// A configuration value.
public enum FilterValue: Sendable, Equatable, Codable, CustomStringConvertible {
    /// An integer.
    case integer(Int)
    /// A number.
    case number(Double)
    /// `true` or `false`.
    case boolean(Bool)
    /// A string.
    case string(String)
    /// A list of integers.
    case integers([Int])

    /// The value as a pipeline file would write it (strings in single quotes), for messages.
    public var description: String {
        switch self {
        case .integer(let v): "\(v)"
        case .number(let v): "\(v)"
        case .boolean(let v): "\(v)"
        case .string(let v): "'\(v)'"
        case .integers(let v): "[\(v.map(String.init).joined(separator: ", "))]"
        }
    }
}

/// A validated configuration: every declared parameter has a value of its kind.
public struct FilterConfiguration: Sendable, Equatable, Codable {
    /// Every declared parameter's value, by name, defaults applied; numbers given as
    /// integers are stored as numbers.
    public private(set) var values: [String: FilterValue]

    /// Applies defaults and checks every value; throws with a message naming the setting.
    public init(_ given: [String: FilterValue], parameters: [FilterParameter]) throws(FilterConfigurationError) {
        var values: [String: FilterValue] = [:]
        let known = Set(parameters.map(\.name))
        if let unknown = given.keys.sorted().first(where: { !known.contains($0) }) {
            throw FilterConfigurationError(
                key: unknown,
                message: "unknown setting '\(unknown)'"
                    + (known.isEmpty ? "; this filter takes no settings" : "; it takes \(parameters.map(\.name).joined(separator: ", "))"))
        }
        for p in parameters {
            guard let v = given[p.name] ?? p.defaultValue else {
                throw FilterConfigurationError(key: p.name, message: "missing setting '\(p.name)' (\(p.kind.expected))")
            }
            if let problem = p.problem(with: v) { throw FilterConfigurationError(key: p.name, message: problem) }
            if case .number = p.kind, case .integer(let i) = v { values[p.name] = .number(Double(i)) } else { values[p.name] = v }
        }
        self.values = values
    }

    /// An empty configuration (for filters without parameters).
    public static let empty = FilterConfiguration(unchecked: [:])
    init(unchecked values: [String: FilterValue]) { self.values = values }

    /// The integer setting `name`; 0 when it is not an integer.
    public func integer(_ name: String) -> Int {
        if case .integer(let v)? = values[name] { return v }
        return 0
    }
    /// The number setting `name` (an integer is converted); 0 when it is neither.
    public func number(_ name: String) -> Double {
        switch values[name] {
        case .number(let v)?: return v
        case .integer(let v)?: return Double(v)
        default: return 0
        }
    }
    /// The boolean setting `name`; false when it is not a boolean.
    public func boolean(_ name: String) -> Bool {
        if case .boolean(let v)? = values[name] { return v }
        return false
    }
    /// The string setting `name`; empty when it is not a string.
    public func string(_ name: String) -> String {
        if case .string(let v)? = values[name] { return v }
        return ""
    }
    /// The integer-list setting `name`; empty when it is not a list.
    public func integers(_ name: String) -> [Int] {
        if case .integers(let v)? = values[name] { return v }
        return []
    }
}

/// A configuration value is missing, unknown or out of range.
public struct FilterConfigurationError: Error, Sendable, CustomStringConvertible {
    /// The setting at fault.
    public var key: String
    /// What is wrong, naming the setting (`missing setting 'block' (an integer)`).
    public var message: String
    /// An error about setting `key`.
    public init(key: String, message: String) { self.key = key; self.message = message }
    /// The message.
    public var description: String { message }
}
