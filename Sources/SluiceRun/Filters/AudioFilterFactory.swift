import GStreamer
import SluiceFilterKit

/// Everything Sluice knows about one Swift audio filter, whatever it came from (built in, or
/// a dynamic plugin).
public struct AudioFilterFactory: Sendable {
    /// The name pipeline files use (`filters: [{filter: NAME}]` in an audio branch); the
    /// element is `sluice-NAME`.
    public var name: String
    /// One line describing the filter, for `sluice inspect` and the element's metadata.
    public var summary: String
    /// The sample formats the filter handles; the graph builder converts to one of them when needed.
    public var formats: [SampleFormat]
    /// The settings the filter takes, with their types, defaults and ranges.
    public var parameters: [FilterParameter]
    /// False for an analysis-only filter, which sees buffers without a copy and must not write to them.
    public var modifiesSamples: Bool
    /// `built-in` or the plugin library's path.
    public var origin: String
    /// Makes one instance from a validated configuration; the second argument is the instance
    /// it replaces when settings change while the pipeline runs (nil for the first).
    public var make: @Sendable (FilterConfiguration, (any AudioProcessor)?) throws -> any AudioProcessor

    /// A factory from its parts; `make` builds one instance from a validated configuration.
    public init(
        name: String, summary: String, formats: [SampleFormat], parameters: [FilterParameter],
        modifiesSamples: Bool, origin: String,
        make: @escaping @Sendable (FilterConfiguration, (any AudioProcessor)?) throws -> any AudioProcessor
    ) {
        self.name = name; self.summary = summary; self.formats = formats; self.parameters = parameters
        self.modifiesSamples = modifiesSamples; self.origin = origin; self.make = make
    }

    /// The factory of an `AudioFilter` type compiled into this program.
    public init<F: AudioFilter>(_ type: F.Type, origin: String = "built-in") {
        self.init(
            name: F.name, summary: F.summary, formats: F.formats, parameters: F.parameters,
            modifiesSamples: F.modifiesSamples, origin: origin
        ) { configuration, previous in
            let filter = try F(configuration: configuration)
            if let previous = previous as? F { filter.continue(from: previous) }
            return filter
        }
    }

    /// The GStreamer element factory name (`sluice-gain`).
    public var elementName: String { "sluice-" + name }
}

extension SampleFormat {
    /// GStreamer caps accepting interleaved audio in these formats at any rate and channel count.
    package static func caps(_ formats: [SampleFormat]) -> String {
        "audio/x-raw, format=(string){ \(formats.map(\.rawValue).joined(separator: ", ")) }, "
            + "layout=(string)interleaved, rate=(int)[ 1, 2147483647 ], channels=(int)[ 1, 2147483647 ]"
    }
}

/// Everything Sluice knows about one Swift audio source.
public struct AudioSourceFactory: Sendable {
    /// The name pipeline files use (`capture: {kind: swift, name: NAME}` in an audio branch);
    /// the element is `sluice-src-NAME`.
    public var name: String
    /// One line describing the source, for `sluice inspect` and the element's metadata.
    public var summary: String
    /// The sample formats the source can write; the first is preferred.
    public var formats: [SampleFormat]
    /// The settings the source takes, with their types, defaults and ranges.
    public var parameters: [FilterParameter]
    /// `built-in` or the plugin library's path.
    public var origin: String
    /// Makes one instance from a validated configuration.
    public var make: @Sendable (FilterConfiguration) throws -> any AudioSource
    /// What the source cannot take in a configuration of valid settings (`AudioSource.problems`).
    public var problems: @Sendable (FilterConfiguration) -> [FilterSettingProblem]

    /// The factory of an `AudioSource` type compiled into this program.
    public init<S: AudioSource>(_ type: S.Type, origin: String = "built-in") {
        name = S.name; summary = S.summary; formats = S.formats; parameters = S.parameters; self.origin = origin
        make = { try S(configuration: $0) }
        problems = { S.problems($0) }
    }

    /// The GStreamer element factory name (`sluice-src-tone`).
    public var elementName: String { "sluice-src-" + name }
}
