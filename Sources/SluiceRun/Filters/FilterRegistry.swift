import GStreamer
import SluiceFilterKit
import Synchronization

/// The Swift filters and sources this process knows: registered from code (built-in
/// plugins, tests) or loaded from dynamic plugin libraries. Registering one also registers
/// its GStreamer element type (`sluice-NAME`, `sluice-src-NAME`), so it works by name in
/// pipeline files and in gst-launch fragments alike.
public final class FilterRegistry: SwiftFilterCatalog {
    /// The process-wide registry.
    public static let shared = FilterRegistry()

    fileprivate struct State {
        var filters: [String: FilterFactory] = [:]
        var audioFilters: [String: AudioFilterFactory] = [:]
        var encodedFilters: [String: EncodedFilterFactory] = [:]
        var sources: [String: SourceFactory] = [:]
        var audioSources: [String: AudioSourceFactory] = [:]
        var plugins: [String: LoadedPlugin] = [:]
    }
    private let state = Mutex(State())

    /// An empty registry; most code uses `shared`.
    public init() {}

    /// A filter or source name is already taken.
    public struct DuplicateName: Error, CustomStringConvertible, Sendable {
        /// The name that was registered twice.
        public let name: String
        /// Where the filter already registered under that name came from (`built-in` or a plugin's path).
        public let existingOrigin: String
        /// Says which name is taken and by what.
        public var description: String { "a filter named '\(name)' is already registered (from \(existingOrigin))" }
    }

    /// Registers a filter and its element type.
    public func register(_ factory: FilterFactory) throws(DuplicateName) {
        try state.withLock { s throws(DuplicateName) in
            if let origin = s.filterOrigin(factory.name) { throw DuplicateName(name: factory.name, existingOrigin: origin) }
            s.filters[factory.name] = factory
        }
        SwiftElements.registerFilter(
            factory: factory.elementName, longname: "Sluice \(factory.name) (Swift)", description: factory.summary,
            caps: PixelFormat.caps(factory.formats), analysisOnly: !factory.modifiesPixels,
            properties: FilterElementState.properties(for: factory)
        ) { handle in
            FilterElementState(factory: factory, handle: handle)
        }
    }

    /// Registers a `FrameFilter` type compiled into this program.
    public func register<F: FrameFilter>(_ type: F.Type) throws(DuplicateName) { try register(FilterFactory(type)) }

    /// Registers an audio filter and its element type. Audio and video filters share names:
    /// a pipeline file names either with `- filter: NAME`.
    public func register(_ factory: AudioFilterFactory) throws(DuplicateName) {
        try state.withLock { s throws(DuplicateName) in
            if let origin = s.filterOrigin(factory.name) { throw DuplicateName(name: factory.name, existingOrigin: origin) }
            s.audioFilters[factory.name] = factory
        }
        SwiftElements.registerAudioFilter(
            factory: factory.elementName, longname: "Sluice \(factory.name) (Swift audio)", description: factory.summary,
            caps: SampleFormat.caps(factory.formats), analysisOnly: !factory.modifiesSamples,
            properties: FilterSettingsStore.properties(for: factory.parameters)
        ) { handle in
            AudioFilterElementState(factory: factory, handle: handle)
        }
    }

    /// Registers an `AudioFilter` type compiled into this program.
    public func register<F: AudioFilter>(_ type: F.Type) throws(DuplicateName) { try register(AudioFilterFactory(type)) }

    /// Registers an encoded-frame filter and its element type. It shares names with the raw
    /// filters: a pipeline file names it with `- filter: NAME` in `encoded_filters:`.
    public func register(_ factory: EncodedFilterFactory) throws(DuplicateName) {
        try state.withLock { s throws(DuplicateName) in
            if let origin = s.filterOrigin(factory.name) { throw DuplicateName(name: factory.name, existingOrigin: origin) }
            s.encodedFilters[factory.name] = factory
        }
        SwiftElements.registerEncodedFilter(
            factory: factory.elementName, longname: "Sluice \(factory.name) (Swift, encoded frames)", description: factory.summary,
            properties: EncodedFilterElementState.properties(for: factory)
        ) { handle in
            EncodedFilterElementState(factory: factory, handle: handle)
        }
    }

    /// Registers an `EncodedFrameFilter` type compiled into this program.
    public func register<F: EncodedFrameFilter>(_ type: F.Type) throws(DuplicateName) { try register(EncodedFilterFactory(type)) }

    /// Registers a source and its element type.
    public func register(_ factory: SourceFactory) throws(DuplicateName) {
        try state.withLock { s throws(DuplicateName) in
            if let origin = s.sourceOrigin(factory.name) { throw DuplicateName(name: factory.name, existingOrigin: origin) }
            s.sources[factory.name] = factory
        }
        SwiftElements.registerSource(
            factory: factory.elementName, longname: "Sluice \(factory.name) (Swift)",
            description: factory.summary, caps: PixelFormat.caps(factory.formats)
        ) { handle in
            SourceElementState(factory: factory, handle: handle)
        }
    }

    /// Registers a `FrameSource` type compiled into this program; throws `DuplicateName` if its name is taken.
    public func register<S: FrameSource>(_ type: S.Type) throws(DuplicateName) { try register(SourceFactory(type)) }

    /// Registers an audio source and its element type. Audio and video sources share names.
    public func register(_ factory: AudioSourceFactory) throws(DuplicateName) {
        try state.withLock { s throws(DuplicateName) in
            if let origin = s.sourceOrigin(factory.name) { throw DuplicateName(name: factory.name, existingOrigin: origin) }
            s.audioSources[factory.name] = factory
        }
        SwiftElements.registerAudioSource(
            factory: factory.elementName, longname: "Sluice \(factory.name) (Swift audio)", description: factory.summary,
            caps: SampleFormat.caps(factory.formats)
        ) { handle in
            AudioSourceElementState(factory: factory, handle: handle)
        }
    }

    /// Registers an `AudioSource` type compiled into this program.
    public func register<S: AudioSource>(_ type: S.Type) throws(DuplicateName) { try register(AudioSourceFactory(type)) }

    /// The filter registered as `name`; nil if none is.
    public func filter(named name: String) -> FilterFactory? { state.withLock { $0.filters[name] } }
    /// The audio filter registered as `name`; nil if none is.
    public func audioFilter(named name: String) -> AudioFilterFactory? { state.withLock { $0.audioFilters[name] } }
    /// The encoded-frame filter registered as `name`; nil if none is.
    public func encodedFilter(named name: String) -> EncodedFilterFactory? { state.withLock { $0.encodedFilters[name] } }
    /// Every registered encoded-frame filter, sorted by name.
    public var allEncodedFilters: [EncodedFilterFactory] {
        state.withLock { $0.encodedFilters.values.sorted { $0.name < $1.name } }
    }
    /// The source registered as `name`; nil if none is.
    public func source(named name: String) -> SourceFactory? { state.withLock { $0.sources[name] } }
    /// Every registered filter, sorted by name.
    public var allFilters: [FilterFactory] { state.withLock { $0.filters.values.sorted { $0.name < $1.name } } }
    /// The audio source registered as `name`; nil if none is.
    public func audioSource(named name: String) -> AudioSourceFactory? { state.withLock { $0.audioSources[name] } }
    /// Every registered audio source, sorted by name.
    public var allAudioSources: [AudioSourceFactory] { state.withLock { $0.audioSources.values.sorted { $0.name < $1.name } } }
    /// Every registered audio filter, sorted by name.
    public var allAudioFilters: [AudioFilterFactory] { state.withLock { $0.audioFilters.values.sorted { $0.name < $1.name } } }
    /// Every registered source, sorted by name.
    public var allSources: [SourceFactory] { state.withLock { $0.sources.values.sorted { $0.name < $1.name } } }

    // MARK: SwiftFilterCatalog

    /// The parameters of filter `name`; nil if no such filter is registered.
    public func filterParameters(_ name: String) -> [FilterParameter]? {
        filter(named: name)?.parameters ?? audioFilter(named: name)?.parameters ?? encodedFilter(named: name)?.parameters
    }
    /// The codecs of encoded-frame filter `name`; nil if it is not one.
    public func encodedFilterCodecs(_ name: String) -> [Codec]? {
        encodedFilter(named: name)?.codecs.compactMap { Codec(rawValue: $0.rawValue) }
    }
    /// What encoded-frame filter `name` cannot take in `configuration` (`EncodedFrameFilter.problems`).
    public func filterProblems(_ name: String, _ configuration: FilterConfiguration) -> [FilterSettingProblem] {
        encodedFilter(named: name)?.problems(configuration) ?? []
    }
    /// `.video` or `.audio` for the filter registered as `name`; nil if none is.
    public func filterMedia(_ name: String) -> MediaKind? {
        state.withLock { s in s.filters[name] != nil ? .video : s.audioFilters[name] != nil ? .audio : nil }
    }
    /// What the filter registered as `name` warns about in `configuration` (none when unknown).
    public func filterWarnings(_ name: String, _ configuration: FilterConfiguration, width: Int, height: Int) -> [String] {
        filter(named: name)?.warnings(configuration, width, height) ?? []
    }
    /// The parameters of source `name`; nil if no such source is registered.
    public func sourceParameters(_ name: String) -> [FilterParameter]? {
        source(named: name)?.parameters ?? audioSource(named: name)?.parameters
    }
    /// What source `name` cannot take in `configuration` (`AudioSource.problems`).
    public func sourceProblems(_ name: String, _ configuration: FilterConfiguration) -> [FilterSettingProblem] {
        audioSource(named: name)?.problems(configuration) ?? []
    }
    /// `.video` or `.audio` for the source registered as `name`; nil if none is.
    public func sourceMedia(_ name: String) -> MediaKind? {
        state.withLock { s in s.sources[name] != nil ? .video : s.audioSources[name] != nil ? .audio : nil }
    }
    /// The names of every registered filter, in no particular order.
    public var filterNames: [String] {
        state.withLock { Array($0.filters.keys) + Array($0.audioFilters.keys) + Array($0.encodedFilters.keys) }
    }
    /// The names of every registered source, in no particular order.
    public var sourceNames: [String] { state.withLock { Array($0.sources.keys) + Array($0.audioSources.keys) } }

    /// Loads the plugin library at `path` and registers its filters; returns nil on success or when it is already loaded, else what went wrong and how to fix it.
    public func loadPlugin(at path: String) -> String? {
        if state.withLock({ $0.plugins[path] != nil }) { return nil }
        do {
            let plugin = try LoadedPlugin(path: path)
            for factory in plugin.filters { try register(factory) }
            for factory in plugin.audioFilters { try register(factory) }
            for factory in plugin.encodedFilters { try register(factory) }
            state.withLock { $0.plugins[path] = plugin }
            return nil
        } catch let e as PluginLoadError {
            return e.description
        } catch {
            return "\(error)"
        }
    }
}

extension FilterRegistry.State {
    /// Where the filter (video or audio) already named `name` came from; nil if the name is free.
    fileprivate func filterOrigin(_ name: String) -> String? {
        filters[name]?.origin ?? audioFilters[name]?.origin ?? encodedFilters[name]?.origin
    }
    /// Where the source (video or audio) already named `name` came from; nil if the name is free.
    fileprivate func sourceOrigin(_ name: String) -> String? { sources[name]?.origin ?? audioSources[name]?.origin }
}
