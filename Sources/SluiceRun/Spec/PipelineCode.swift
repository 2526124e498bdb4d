/// A pipeline written in Swift instead of a file: the same sections and keys, checked by the
/// same decoder and validator (`PipelineLoader.load(_:)`), so it gives the same `PipelineSpec`
/// and graph as the file it mirrors. A problem is reported at the Swift line that wrote the
/// part at fault (`main.swift:12:9: capture needs a 'kind' …`), with the file's suggestions.
///
/// ```swift
/// let code = PipelineCode(
///     name: "loopback", transport: .loopback(ice: ICECode(addresses: ["127.0.0.1"])),
///     send: SendCode(video: SendBranchCode(capture: .test(pattern: "ball"), encode: EncodeCode(codec: .vp8, bitrate: 800))),
///     receive: ReceiveCode(video: ReceiveBranchCode(sink: .stats)))
/// let spec = try PipelineLoader().load(code)
/// ```
///
/// Kind-specific keys (a transport's `url`, a capture's `device`) go in `settings`, as they are
/// written in a file; a kind a program registered takes its keys the same way.
public struct PipelineCode: Sendable {
    /// The pipeline's name (the file's `name:`); nil: the Swift file's name.
    public var name: String?
    /// The `transport:` section.
    public var transport: TransportCode
    /// The `send:` section.
    public var send: SendCode?
    /// The `receive:` section.
    public var receive: ReceiveCode?
    /// Where this value was written: diagnostics of the whole pipeline point here.
    public var location: SourceLocation

    /// A pipeline of these sections, written at the caller's line.
    public init(
        name: String? = nil, transport: TransportCode, send: SendCode? = nil, receive: ReceiveCode? = nil,
        file: String = #fileID, line: Int = #line, column: Int = #column
    ) {
        self.name = name; self.transport = transport; self.send = send; self.receive = receive
        location = SourceLocation(file: file, line: line, column: column)
    }

    /// The tree a file with these sections would have given.
    package var node: SpecNode {
        var map = CodeMapping(location)
        map.add("version", "1")
        map.add("name", name.map(PipelineValue.text))
        map.add("transport", node: transport.node)
        map.add("send", node: send?.node)
        map.add("receive", node: receive?.node)
        return map.node
    }
}

/// A mapping node being written, every key at one Swift location.
struct CodeMapping {
    let location: SourceLocation
    private var entries: [SpecEntry] = []

    init(_ location: SourceLocation) { self.location = location }

    /// `key: value` (nothing when nil).
    mutating func add(_ key: String, _ value: PipelineValue?) {
        add(key, node: value?.node(at: location))
    }

    /// `key:` and a node with its own location (nothing when nil).
    mutating func add(_ key: String, node: SpecNode?) {
        guard let node else { return }
        entries.append(SpecEntry(key: key, keyLocation: location, value: node))
    }

    /// Kind-specific keys, as written.
    mutating func add(_ settings: [PipelineSetting]) {
        for s in settings { add(s.key, s.value) }
    }

    var node: SpecNode { SpecNode(.mapping(entries), at: location) }
}

/// One key of a pipeline section and its value, as a file would write it.
public struct PipelineSetting: Sendable {
    /// The key.
    public var key: String
    /// Its value.
    public var value: PipelineValue

    /// `key: value`.
    public init(_ key: String, _ value: PipelineValue) {
        self.key = key; self.value = value
    }
}

/// A value as a pipeline file writes it: text (numbers and booleans are written as their
/// text, as YAML scalars are read), a list, or a mapping. Literals make one:
/// `"ball"`, `30`, `0.5`, `true`, `["127.0.0.1"]`, `["block": 8]`.
public enum PipelineValue: Sendable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    /// A scalar.
    case text(String)
    /// A list.
    case list([PipelineValue])
    /// A mapping, in order.
    case map([PipelineSetting])

    /// A text scalar.
    public init(stringLiteral value: String) { self = .text(value) }
    /// A number, as its text.
    public init(integerLiteral value: Int) { self = .text(String(value)) }
    /// A number, as its text.
    public init(floatLiteral value: Double) { self = .text(String(value)) }
    /// `true` or `false`.
    public init(booleanLiteral value: Bool) { self = .text(value ? "true" : "false") }
    /// A list.
    public init(arrayLiteral elements: PipelineValue...) { self = .list(elements) }
    /// A mapping, in the order written.
    public init(dictionaryLiteral elements: (String, PipelineValue)...) { self = .map(elements.map { PipelineSetting($0.0, $0.1) }) }

    /// A number as a file writes it: `10` for 10.0, `2.5` for 2.5.
    public static func number(_ value: Double) -> PipelineValue {
        .text(value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value))
    }

    /// The file-model node of this value; every part is placed at `location`.
    package func node(at location: SourceLocation) -> SpecNode {
        switch self {
        case .text(let text): SpecNode(.scalar(text, isNull: false), at: location)
        case .list(let items): SpecNode(.sequence(items.map { $0.node(at: location) }), at: location)
        case .map(let settings):
            SpecNode(
                .mapping(settings.map { SpecEntry(key: $0.key, keyLocation: location, value: $0.value.node(at: location)) }),
                at: location)
        }
    }
}

extension PipelineLoader {
    /// Checks `code` as `load(path:)` checks a file (the same decoder, the same validation
    /// against the installed elements) and returns its spec. Diagnostics point at the Swift
    /// lines that wrote the parts at fault.
    /// - Throws: `PipelineFileError` with every problem found.
    public func load(_ code: PipelineCode) throws(PipelineFileError) -> PipelineSpec {
        try decode(root: code.node, file: code.location.file, start: code.location, overrides: [])
    }
}
