import Sluice
import SluiceBuiltInPlugins

/// Registers the filters and sources under Plugins/ once per process.
enum BuiltInRegistration {
    private static let done: Bool = {
        for f in BuiltInPlugins.filters { try? FilterRegistry.shared.register(FilterFactory(f)) }
        for f in BuiltInPlugins.audioFilters { try? FilterRegistry.shared.register(AudioFilterFactory(f)) }
        for f in BuiltInPlugins.encodedFilters { try? FilterRegistry.shared.register(EncodedFilterFactory(f)) }
        for s in BuiltInPlugins.sources { try? FilterRegistry.shared.register(SourceFactory(s)) }
        for s in BuiltInPlugins.audioSources { try? FilterRegistry.shared.register(AudioSourceFactory(s)) }
        return true
    }()

    static func ensure() { _ = done }
}
