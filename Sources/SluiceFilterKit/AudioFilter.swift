/// Something that processes audio blocks one at a time: an `AudioFilter`, or an audio filter
/// of a dynamic plugin seen through its C interface.
public protocol AudioProcessor: AnyObject {
    /// Processes one block in place and says whether to keep or drop it.
    func process(_ block: borrowing AudioBlock, context: FilterContext) throws -> FilterVerdict
}

/// An audio filter: processes interleaved raw audio in place between capture and encoder (in
/// `send.audio.filters`) or between decoder and sink (`receive.audio.filters`), the twin of
/// `FrameFilter`.
///
/// Sluice creates one instance per element from the validated configuration of the pipeline
/// file (`- filter: gain  db: -6`) and calls `process` for every buffer on a GStreamer
/// streaming thread, one at a time. Buffers hold whatever the upstream element produced
/// (10–20 ms is common); a filter must not assume a block size. A new instance is made when
/// its settings change while the pipeline runs.
public protocol AudioFilter: AudioProcessor {
    /// The name pipeline files use (`filter: gain`); also the element factory name, prefixed
    /// `sluice-` (`sluice-gain`). Audio and video filters share one namespace.
    static var name: String { get }
    /// One line for `sluice inspect` and element metadata.
    static var summary: String { get }
    /// Sample formats `process` handles, at any rate and channel count; the graph builder
    /// converts to one of them only when the neighbouring elements do not produce one.
    static var formats: [SampleFormat] { get }
    /// Typed settings, validated against the pipeline file before anything runs.
    static var parameters: [FilterParameter] { get }
    /// False for analysis-only filters: they then see buffers without a copy even when the
    /// buffer is shared, and must not write to them.
    static var modifiesSamples: Bool { get }

    /// Makes a filter from its validated settings; throwing refuses the configuration.
    init(configuration: FilterConfiguration) throws

    /// Processes one block in place. `.drop` turns the block into silence of the same length
    /// (so the stream's timing holds; an analysis-only filter's block is dropped instead).
    /// Throwing is handled per the file's `on_error`.
    func process(_ block: borrowing AudioBlock, context: FilterContext) throws -> FilterVerdict

    /// Called on a new instance made because the settings changed while the pipeline runs,
    /// before its first block, with the instance it replaces: carry over what must not jump
    /// (a gain ramps from the old value rather than clicking). By default nothing.
    func `continue`(from previous: Self)
}

extension AudioFilter {
    /// By default both formats.
    public static var formats: [SampleFormat] { [.f32le, .s16le] }
    /// By default a filter writes to the samples.
    public static var modifiesSamples: Bool { true }
    /// By default a filter takes no settings.
    public static var parameters: [FilterParameter] { [] }
    /// By default nothing carries over.
    public func `continue`(from previous: Self) {}
}

/// An audio source: writes sound that Sluice pushes into the pipeline, paced live at the
/// branch's rate (`capture: {kind: swift, name: tone}` in an audio branch), the twin of
/// `FrameSource`.
public protocol AudioSource: AnyObject {
    /// The name pipeline files use; the element is `sluice-src-NAME`. Audio and video sources
    /// share one namespace.
    static var name: String { get }
    /// One line for `sluice inspect`.
    static var summary: String { get }
    /// Formats `fill` can write; the first is preferred.
    static var formats: [SampleFormat] { get }
    /// Typed settings, validated against the pipeline file before anything runs.
    static var parameters: [FilterParameter] { get }

    /// Makes a source from its validated settings; throwing refuses the configuration.
    init(configuration: FilterConfiguration) throws

    /// What is wrong in settings that are each of the right type and range but that the
    /// source cannot take (a DTMF digit that is no key): `sluice validate` reports each at its
    /// setting's place in the file, before anything runs. By default nothing.
    static func problems(_ configuration: FilterConfiguration) -> [FilterSettingProblem]

    /// Writes every sample of `block`, whose first frame is `block.sampleOffset` frames from
    /// the start (so time is `sampleOffset ÷ rate`). Return false to end the stream.
    func fill(_ block: borrowing AudioBlock) -> Bool
}

extension AudioSource {
    /// By default floats.
    public static var formats: [SampleFormat] { [.f32le] }
    /// By default a source takes no settings.
    public static var parameters: [FilterParameter] { [] }
    /// By default every valid setting is taken.
    public static func problems(_ configuration: FilterConfiguration) -> [FilterSettingProblem] { [] }
}

/// A setting a source cannot take, found before it runs (`AudioSource.problems`).
public struct FilterSettingProblem: Sendable, Equatable {
    /// The setting's name, as the file writes it (`digits`).
    public var setting: String
    /// What is wrong and what to write instead, one sentence.
    public var message: String
    /// A problem with `setting`.
    public init(setting: String, message: String) { self.setting = setting; self.message = message }
}
