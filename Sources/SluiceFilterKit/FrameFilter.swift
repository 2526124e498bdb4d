/// What a filter decides about a frame.
public enum FilterVerdict: Sendable {
    /// Pass the (possibly modified) frame on.
    case keep
    /// Drop this frame.
    case drop
}

/// Something that processes frames one at a time: a `FrameFilter`, or a filter of a dynamic
/// plugin seen through its C interface.
public protocol FrameProcessor: AnyObject {
    /// Processes one frame in place and says whether to keep or drop it.
    func process(_ frame: borrowing Frame, context: FilterContext) throws -> FilterVerdict
}

/// A frame filter: processes one video frame in place, the way an iOS app puts a filter
/// between the camera capturer and the video source.
///
/// Sluice creates one instance per element from the validated configuration of the
/// pipeline file (`- filter: pixelate  region: [0, 0, 320, 180]  block: 16`) and calls
/// `process` for every frame on a GStreamer streaming thread, one frame at a time.
public protocol FrameFilter: FrameProcessor {
    /// The name pipeline files use (`filter: pixelate`); also the element factory name,
    /// prefixed `sluice-` (`sluice-pixelate`) for gst-launch fragments.
    static var name: String { get }
    /// One line for `sluice inspect` and element metadata.
    static var summary: String { get }
    /// Raw formats `process` handles; the graph builder converts to one of them only when
    /// the neighbouring elements do not already produce one.
    static var formats: [PixelFormat] { get }
    /// Typed settings, validated against the pipeline file before anything runs.
    static var parameters: [FilterParameter] { get }
    /// False for analysis-only filters: they then see frames without a copy even when the
    /// buffer is shared, and must not write to them.
    static var modifiesPixels: Bool { get }

    /// Makes a filter from its validated settings; throwing refuses the configuration (the
    /// run does not start).
    init(configuration: FilterConfiguration) throws

    /// What deserves a warning in valid settings on a picture of `width`×`height` (the send
    /// branch's capture size), such as a region reaching outside it: `sluice validate` prints
    /// each after the file's place, and `sluice run` before it starts. Each is one sentence
    /// that says what will happen. By default none.
    static func warnings(_ configuration: FilterConfiguration, width: Int, height: Int) -> [String]

    /// Processes one frame in place. Throwing is handled per the file's `on_error`
    /// (pass the frame, drop it, or fail the run); it never takes the runner down.
    func process(_ frame: borrowing Frame, context: FilterContext) throws -> FilterVerdict
}

extension FrameFilter {
    /// By default a filter writes to the frame.
    public static var modifiesPixels: Bool { true }
    /// By default a filter takes no settings.
    public static var parameters: [FilterParameter] { [] }
    /// By default nothing to warn about.
    public static func warnings(_ configuration: FilterConfiguration, width: Int, height: Int) -> [String] { [] }
}

/// What a filter can tell the outside world while processing.
public struct FilterContext: Sendable {
    private let emitter: @Sendable (String, [String: Double]) -> Void

    /// A context whose events go to `emit` (event name, numeric fields).
    public init(emit: @escaping @Sendable (String, [String: Double]) -> Void) { emitter = emit }

    /// Emits an event (e.g. `motion` with `score`): posted on the pipeline bus as an element
    /// message and counted in the run's statistics.
    public func emit(_ event: String, _ fields: [String: Double] = [:]) { emitter(event, fields) }

    /// A context that discards events (tests, benchmarks).
    public static let discarding = FilterContext { _, _ in }
}

/// A frame source: draws frames that Sluice pushes into the pipeline, paced live at the
/// configured rate (the guide's "push your own pixel buffer into the source").
public protocol FrameSource: AnyObject {
    /// The name pipeline files use (`capture: {kind: swift, name: scene}`).
    static var name: String { get }
    /// One line for `sluice inspect`.
    static var summary: String { get }
    /// Formats `draw` can produce; the first is preferred.
    static var formats: [PixelFormat] { get }
    /// Typed settings, validated against the pipeline file before anything runs.
    static var parameters: [FilterParameter] { get }

    /// Makes a source from its validated settings; throwing refuses the configuration.
    init(configuration: FilterConfiguration) throws

    /// Draws frame `frame.frameNumber`. Return false to end the stream.
    func draw(into frame: borrowing Frame) -> Bool
}

extension FrameSource {
    /// By default a source takes no settings.
    public static var parameters: [FilterParameter] { [] }
}
