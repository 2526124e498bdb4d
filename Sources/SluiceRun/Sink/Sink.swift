import GStreamer

/// One `sink.kind`, described by one type: its name, its keys and their decoding, the
/// elements it needs, and how it builds (and, for recordings, what it prepares before media
/// flows, and what each publisher of a room gets).
///
/// `SinkRegistry.kinds` lists them: a new sink is one new file
/// with a type conforming to this protocol, plus its line there.
public protocol Sink: Sendable {
    /// The kind's name (`sink.kind`, or `sink: NAME` alone).
    var name: String { get }
    /// The keys of `sink:` it reads, beyond `kind`.
    var keys: [String] { get }
    /// Why `sink: NAME` alone is not enough (nil: it is).
    var needsKeys: String? { get }
    /// Decodes its keys (`map` holds only those it may read); nil: something was wrong,
    /// reported to `decoder`.
    func decode(_ map: [SpecEntry], media: MediaKind, at location: SourceLocation, with decoder: inout SpecDecoder) -> SinkSpec.Kind?
    /// The codecs it takes as they arrive, undecoded (`decode: none`); nil: it needs decoded media.
    func encodedCodecs(_ sink: SinkSpec, media: MediaKind) -> [Codec]?
    /// Makes its elements for a `decode: none` branch, which gives it the depayloaded (and
    /// parsed) stream. By default those of `build`.
    func buildEncoded(_ sink: SinkSpec, media: MediaKind, with builder: GraphBuilder) throws(RunError) -> GraphBuilder.SinkStage
    /// The elements Sluice picks for it (checked before a run, with install hints).
    func requiredElements(_ sink: SinkSpec, media: MediaKind) -> [String]
    /// Makes its elements for one receive branch (not yet added to the pipeline).
    func build(_ sink: SinkSpec, media: MediaKind, with builder: GraphBuilder) throws(RunError) -> GraphBuilder.SinkStage
    /// What must exist before any media flows, for the branches that use this kind.
    func prepare(_ branches: [ReceiveBranchSpec], with builder: GraphBuilder) throws(RunError)
    /// The elements one room publisher's stream ends in (nil: those of `build`).
    func roomStage(_ sink: SinkSpec, media: MediaKind, publisher: String, with builder: GraphBuilder) throws(RunError) -> [Element]?
}

extension Sink {
    /// By default: none.
    public var keys: [String] { [] }
    /// By default: nil (`sink: NAME` alone is enough).
    public var needsKeys: String? { nil }
    /// By default: the kind with no settings.
    public func decode(_ map: [SpecEntry], media: MediaKind, at location: SourceLocation, with decoder: inout SpecDecoder) -> SinkSpec.Kind? {
        SinkSpec.Kind(name: name)
    }
    /// By default: nothing to prepare.
    public func prepare(_ branches: [ReceiveBranchSpec], with builder: GraphBuilder) throws(RunError) {}
    /// By default: nil (the sink needs decoded media).
    public func encodedCodecs(_ sink: SinkSpec, media: MediaKind) -> [Codec]? { nil }
    /// By default: the elements of `build`.
    public func buildEncoded(_ sink: SinkSpec, media: MediaKind, with builder: GraphBuilder) throws(RunError) -> GraphBuilder.SinkStage {
        try build(sink, media: media, with: builder)
    }
    /// By default: nil (those of `build`).
    public func roomStage(_ sink: SinkSpec, media: MediaKind, publisher: String, with builder: GraphBuilder) throws(RunError) -> [Element]? { nil }
}

/// The sink kinds Sluice knows. A new kind: its file, and its line in `kinds`.
public enum SinkRegistry {
    package static let kinds = KindRegistry<any Sink>([StatsSink(), NullSink(), DisplaySink(), FileSink(), RecordSink()], name: { $0.name })
    /// `sink: {gst: "…"}`: a launch fragment instead of a kind.
    package static let fragment = GstSink()

    /// The kind a spec names (a launch fragment included).
    /// Adds a kind (a program embedding Sluice; tests). It replaces a kind of the same name,
    /// built-in or registered before.
    public static func register(_ sink: any Sink) { kinds.register(sink) }
    /// Removes a kind added with `register`.
    public static func unregister(_ name: String) { kinds.unregister(name) }
    /// Every kind, built-in first.
    public static var all: [any Sink] { kinds.all }

    /// The type that implements `kind` (a `gst` fragment's included); nil when none of that name is registered.
    public static func sink(for kind: SinkSpec.Kind) -> (any Sink)? {
        kind.name == fragment.name ? fragment : kinds.kind(named: kind.name)
    }
}
