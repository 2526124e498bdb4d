import GStreamer
import SluiceFilterKit

/// Everything Sluice knows about one Swift filter, whatever it came from (built in, or a
/// dynamic plugin through its C interface).
public struct FilterFactory: Sendable {
    /// The name pipeline files use (`filters: [{filter: NAME}]`); the element is `sluice-NAME`.
    public var name: String
    /// One line describing the filter, for `sluice inspect` and the element's metadata.
    public var summary: String
    /// The raw video formats the filter handles; the graph builder converts to one of them when needed.
    public var formats: [PixelFormat]
    /// The settings the filter takes, with their types, defaults and ranges.
    public var parameters: [FilterParameter]
    /// False for an analysis-only filter, which sees frames without a copy and must not write to them.
    public var modifiesPixels: Bool
    /// `built-in` or the plugin library's path.
    public var origin: String
    /// Makes one instance from a validated configuration.
    public var make: @Sendable (FilterConfiguration) throws -> any FrameProcessor
    /// What deserves a warning in a configuration on a picture of the given width and height
    /// (`FrameFilter.warnings`); dynamic plugins' filters have none.
    public var warnings: @Sendable (FilterConfiguration, _ width: Int, _ height: Int) -> [String] = { _, _, _ in [] }

    /// A factory from its parts; `make` builds one instance from a validated configuration.
    public init(
        name: String, summary: String, formats: [PixelFormat], parameters: [FilterParameter],
        modifiesPixels: Bool, origin: String, make: @escaping @Sendable (FilterConfiguration) throws -> any FrameProcessor
    ) {
        self.name = name; self.summary = summary; self.formats = formats; self.parameters = parameters
        self.modifiesPixels = modifiesPixels; self.origin = origin; self.make = make
    }

    /// The factory of a `FrameFilter` type compiled into this program.
    public init<F: FrameFilter>(_ type: F.Type, origin: String = "built-in") {
        self.init(
            name: F.name, summary: F.summary, formats: F.formats, parameters: F.parameters,
            modifiesPixels: F.modifiesPixels, origin: origin
        ) { try F(configuration: $0) }
        warnings = { F.warnings($0, width: $1, height: $2) }
    }

    /// The GStreamer element factory name (`sluice-pixelate`).
    public var elementName: String { "sluice-" + name }
}

/// Everything Sluice knows about one Swift frame source.
public struct SourceFactory: Sendable {
    /// The name pipeline files use (`capture: {kind: swift, name: NAME}`); the element is `sluice-src-NAME`.
    public var name: String
    /// One line describing the source, for `sluice inspect` and the element's metadata.
    public var summary: String
    /// The raw video formats the source can produce; the first is preferred.
    public var formats: [PixelFormat]
    /// The settings the source takes, with their types, defaults and ranges.
    public var parameters: [FilterParameter]
    /// `built-in` or the plugin library's path.
    public var origin: String
    /// Makes one instance from a validated configuration; throws what the source's initializer throws.
    public var make: @Sendable (FilterConfiguration) throws -> any FrameSource

    /// The factory of a `FrameSource` type compiled into this program.
    public init<S: FrameSource>(_ type: S.Type, origin: String = "built-in") {
        name = S.name; summary = S.summary; formats = S.formats; parameters = S.parameters; self.origin = origin
        make = { try S(configuration: $0) }
    }

    /// The GStreamer element factory name (`sluice-src-scene`).
    public var elementName: String { "sluice-src-" + name }
}

extension PixelFormat {
    /// GStreamer caps accepting these formats.
    package static func caps(_ formats: [PixelFormat]) -> String {
        "video/x-raw, format=(string){ \(formats.map(\.rawValue).joined(separator: ", ")) }, "
            + "width=(int)[ 1, 2147483647 ], height=(int)[ 1, 2147483647 ], framerate=(fraction)[ 0/1, 2147483647/1 ]"
    }
}

extension FilterValue {
    /// The GValue a `sluice-*` element property of this kind takes.
    package var gValue: Value {
        switch self {
        case .integer(let v): Value(Int32(clamping: v))
        case .number(let v): Value(v)
        case .boolean(let v): Value(v)
        case .string(let v): Value(v)
        case .integers(let v): Value.intArray(v)
        }
    }
}
