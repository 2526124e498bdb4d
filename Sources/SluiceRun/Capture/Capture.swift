import GStreamer

/// One `capture.kind`, described by one type: its name, which media it captures, the keys it
/// reads and their decoding, whether it is live, the elements it needs, and how it builds.
///
/// `CaptureRegistry.kinds` lists them: a new source (RTSP, SRT, …) is one new file with a type
/// conforming to this protocol, plus its line there.
public protocol Capture: Sendable {
    /// The kind's name (`capture.kind`).
    var name: String { get }
    /// Why this kind cannot capture `media` (nil: it can).
    func refusal(for media: MediaKind) -> String?
    /// The keys of `capture:` it reads for `media`, beyond the branch format's
    /// (`CaptureRegistry.formatKeys`).
    func keys(for media: MediaKind) -> [String]
    /// Whether keys nobody else reads are its own settings (a Swift source's).
    var takesAnyKey: Bool { get }
    /// Whether its source is a live network source that can go away and is reconnected
    /// (`SourceSupervisor`); such a capture may have a `fallback:`.
    var reconnects: Bool { get }
    /// The source `capture` reads as the user knows it (`rtsp capture rtsp://cam/…`, no
    /// password), as outages and fallbacks are reported; nil for kinds that do not reconnect.
    func sourceLabel(of capture: CaptureSpec) -> String?
    /// Decodes its keys (`map` holds only those it may read) into `capture`'s shared fields
    /// and returns its kind value (nil: something was wrong, reported to `decoder`).
    func decode(
        _ map: [SpecEntry], media: MediaKind, into capture: inout CaptureSpec, at location: SourceLocation,
        with decoder: inout SpecDecoder
    ) -> CaptureSpec.Kind?
    /// Whether it runs live (paced by the clock): the queue before the encoder then drops the
    /// oldest frame when the encoder falls behind, since latency beats completeness.
    func isLive(_ capture: CaptureSpec) -> Bool
    /// The elements Sluice picks for it (checked before a run, with install hints).
    func requiredElements(for media: MediaKind) -> [String]
    /// Makes its elements, ending in the branch's raw format `rawCaps`, adds them to the
    /// pipeline and returns them in order (the branch links them to its filters and encoder).
    func build(_ capture: CaptureSpec, media: MediaKind, rawCaps: String, with builder: GraphBuilder) throws(RunError) -> [Element]

    /// Why it cannot hand on its media still encoded (`encode: {passthrough: true}`); nil: it can.
    func passthroughRefusal(for media: MediaKind) -> String?
    /// The elements its passthrough needs (checked before a run, with install hints).
    func requiredPassthroughElements(for media: MediaKind, codec: Codec) -> [String]
    /// Makes its elements for passthrough, ending in `codec`'s encoded format as the branch's
    /// parser leaves it (`EncoderPresets.parsedCaps`), adds them to the pipeline and returns
    /// them in order (the branch links them to its payloader, or its tee).
    func buildEncoded(_ capture: CaptureSpec, media: MediaKind, codec: Codec, with builder: GraphBuilder) throws(RunError) -> [Element]
}

extension Capture {
    /// By default: it takes both media.
    public func refusal(for media: MediaKind) -> String? { nil }
    /// By default: false.
    public var takesAnyKey: Bool { false }
    /// By default: false.
    public var reconnects: Bool { false }
    /// By default: none (messages say "KIND capture").
    public func sourceLabel(of capture: CaptureSpec) -> String? { nil }
    /// By default: live.
    public func isLive(_ capture: CaptureSpec) -> Bool { true }
    /// By default: none.
    public func requiredElements(for media: MediaKind) -> [String] { [] }
    /// By default: the kind makes raw frames, so it cannot pass through.
    public func passthroughRefusal(for media: MediaKind) -> String? {
        "capture kind '\(name)' makes raw frames, so there is nothing encoded to pass through"
    }
    /// By default: none.
    public func requiredPassthroughElements(for media: MediaKind, codec: Codec) -> [String] { [] }
    /// By default: throws `passthroughRefusal`.
    public func buildEncoded(_ capture: CaptureSpec, media: MediaKind, codec: Codec, with builder: GraphBuilder) throws(RunError) -> [Element] {
        throw RunError(passthroughRefusal(for: media) ?? "capture kind '\(name)' cannot pass through", at: capture.location)
    }
}

/// The capture kinds Sluice knows. A new kind: its file, and its line in `kinds`.
public enum CaptureRegistry {
    package static let kinds = KindRegistry<any Capture>(
        [
            TestCapture(), CameraCapture(), FileCapture(), SwiftCapture(), RTSPCapture(), SRTCapture(), RTMPCapture(),
            URICapture(), RecordingCapture()
        ],
        name: { $0.name })
    /// `capture: {gst: "…"}`: a launch fragment instead of a kind.
    package static let fragment = GstCapture()

    /// The keys of the branch's raw format, which every kind has.
    /// Adds a kind (a program embedding Sluice; tests). It replaces a kind of the same name,
    /// built-in or registered before.
    public static func register(_ capture: any Capture) { kinds.register(capture) }
    /// Removes a kind added with `register`.
    public static func unregister(_ name: String) { kinds.unregister(name) }
    /// Every kind, built-in first.
    public static var all: [any Capture] { kinds.all }

    /// The keys of a branch's raw format: `width`, `height`, `fps` for video; `rate`, `channels` for audio.
    public static func formatKeys(for media: MediaKind) -> [String] {
        media == .video ? ["width", "height", "fps"] : ["rate", "channels"]
    }

    /// The kind a spec names (a launch fragment included).
    public static func capture(for kind: CaptureSpec.Kind) -> (any Capture)? {
        kind.name == fragment.name ? fragment : kinds.kind(named: kind.name)
    }
}
