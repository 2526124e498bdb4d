import SluiceFilterKit

/// The Swift filters and sources the validator can check a file against: the built-in ones
/// and those of dynamic plugins loaded through `loadPlugin`.
public protocol SwiftFilterCatalog: Sendable {
    /// The parameters of filter `name`, or nil if there is no such filter.
    func filterParameters(_ name: String) -> [FilterParameter]?
    /// The parameters of source `name`, or nil if there is no such source.
    func sourceParameters(_ name: String) -> [FilterParameter]?
    /// The names of every Swift filter known, built-in and from loaded plugins.
    var filterNames: [String] { get }
    /// The names of every Swift source known, built-in and from loaded plugins.
    var sourceNames: [String] { get }
    /// Loads the dynamic plugin library at `path` (registering its filters). Returns nil on
    /// success (or if it is already loaded), otherwise what went wrong and how to fix it.
    func loadPlugin(at path: String) -> String?
    /// What deserves a warning in filter `name`'s `configuration` on a `width`×`height` picture
    /// (`FrameFilter.warnings`).
    func filterWarnings(_ name: String, _ configuration: FilterConfiguration, width: Int, height: Int) -> [String]
    /// The medium filter `name` works on (`.video` for a `FrameFilter`, `.audio` for an
    /// `AudioFilter`); nil if there is no such filter.
    func filterMedia(_ name: String) -> MediaKind?
    /// The medium source `name` makes (`.video` for a `FrameSource`, `.audio` for an
    /// `AudioSource`); nil if there is no such source.
    func sourceMedia(_ name: String) -> MediaKind?
    /// What source `name` cannot take in `configuration`, valid setting by setting
    /// (`AudioSource.problems`).
    func sourceProblems(_ name: String, _ configuration: FilterConfiguration) -> [FilterSettingProblem]
    /// What filter `name` cannot take in `configuration`, valid setting by setting
    /// (`EncodedFrameFilter.problems`).
    func filterProblems(_ name: String, _ configuration: FilterConfiguration) -> [FilterSettingProblem]
    /// The codecs encoded-frame filter `name` handles; nil if `name` is not an encoded-frame
    /// filter (a raw video or audio filter, or none).
    func encodedFilterCodecs(_ name: String) -> [Codec]?
}

extension SwiftFilterCatalog {
    /// By default nothing to warn about.
    public func filterWarnings(_ name: String, _ configuration: FilterConfiguration, width: Int, height: Int) -> [String] { [] }
    /// By default every known filter is a video filter.
    public func filterMedia(_ name: String) -> MediaKind? { filterParameters(name) == nil ? nil : .video }
    /// By default every valid configuration is taken.
    public func sourceProblems(_ name: String, _ configuration: FilterConfiguration) -> [FilterSettingProblem] { [] }
    /// By default every valid configuration is taken.
    public func filterProblems(_ name: String, _ configuration: FilterConfiguration) -> [FilterSettingProblem] { [] }
    /// By default no filter is an encoded-frame filter.
    public func encodedFilterCodecs(_ name: String) -> [Codec]? { nil }
    /// By default every known source is a video source.
    public func sourceMedia(_ name: String) -> MediaKind? { sourceParameters(name) == nil ? nil : .video }
}
