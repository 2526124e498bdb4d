import GStreamer
import SluiceFilterKit

/// Everything Sluice knows about one encoded-frame filter, whatever it came from (built in,
/// or a program embedding Sluice).
public struct EncodedFilterFactory: Sendable {
    /// The name pipeline files use (`encoded_filters: [{filter: NAME}]`); the element is
    /// `sluice-NAME`.
    public var name: String
    /// One line describing the filter, for `sluice inspect` and the element's metadata.
    public var summary: String
    /// The codecs the filter handles; a file that puts it on another is refused.
    public var codecs: [EncodedCodec]
    /// The settings the filter takes, with their types, defaults and ranges.
    public var parameters: [FilterParameter]
    /// `built-in` or the plugin library's path.
    public var origin: String
    /// Makes one instance from a validated configuration; the second argument is the instance
    /// it replaces when settings change while the pipeline runs (nil for the first).
    public var make: @Sendable (FilterConfiguration, (any EncodedFrameProcessor)?) throws -> any EncodedFrameProcessor
    /// What a configuration of valid settings still cannot be (`EncodedFrameFilter.problems`).
    public var problems: @Sendable (FilterConfiguration) -> [FilterSettingProblem]

    /// A factory from its parts; `make` builds one instance from a validated configuration
    /// (nothing carries over when settings change while running).
    public init(
        name: String, summary: String, codecs: [EncodedCodec], parameters: [FilterParameter], origin: String,
        make: @escaping @Sendable (FilterConfiguration) throws -> any EncodedFrameProcessor
    ) {
        self.init(
            name: name, summary: summary, codecs: codecs, parameters: parameters, origin: origin, problems: { _ in [] }
        ) { configuration, _ in try make(configuration) }
    }

    /// A factory from its parts, with `problems` and a `make` handed the instance it replaces.
    public init(
        name: String, summary: String, codecs: [EncodedCodec], parameters: [FilterParameter], origin: String,
        problems: @escaping @Sendable (FilterConfiguration) -> [FilterSettingProblem],
        make: @escaping @Sendable (FilterConfiguration, (any EncodedFrameProcessor)?) throws -> any EncodedFrameProcessor
    ) {
        self.name = name; self.summary = summary; self.codecs = codecs; self.parameters = parameters
        self.origin = origin; self.problems = problems; self.make = make
    }

    /// The factory of an `EncodedFrameFilter` type compiled into this program.
    public init<F: EncodedFrameFilter>(_ type: F.Type, origin: String = "built-in") {
        self.init(
            name: F.name, summary: F.summary, codecs: F.codecs, parameters: F.parameters, origin: origin,
            problems: { F.problems($0) }
        ) { configuration, previous in
            let filter = try F(configuration: configuration)
            if let previous = previous as? F { filter.continue(from: previous) }
            return filter
        }
    }

    /// The GStreamer element factory name (`sluice-faults`).
    public var elementName: String { "sluice-" + name }
}
