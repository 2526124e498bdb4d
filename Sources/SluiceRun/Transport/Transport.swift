import GStreamer
import Logging

/// One `transport.kind`, described by one type: its name, the keys it reads and their
/// decoding into its own settings, which sections a file of this kind may and must have,
/// what it uses (WebRTC, data channels, room streams, renditions), and how it builds its
/// webrtcbins and the session the run negotiates through.
///
/// `TransportRegistry` lists the kinds: a new way to signal is one type conforming to this
/// protocol (with its session and settings beside it), registered with
/// `TransportRegistry.register` (or, for the kinds Sluice ships, in
/// `SluiceTransports.registerBuiltIns()`). Nothing else in the decoder or the run names a kind.
public protocol Transport: Sendable {
    /// The kind's name in pipeline files (`transport.kind`).
    var kind: TransportKind { get }
    /// The keys of `transport:` this kind reads, beyond those every kind has
    /// (`TransportRegistry.commonKeys`). A key another kind reads is reported as belonging
    /// to it; any other key as unknown.
    var keys: [String] { get }
    /// Which of `send` and `receive` a file of this kind may have, and needs.
    var sections: TransportSections { get }
    /// What the kind offers beyond moving media.
    var abilities: TransportAbilities { get }
    /// The data channel the kind needs when the file declares none (nil: none needed).
    var requiredDataChannel: String? { get }

    /// Decodes this kind's own `keys` into its settings (nil: it has none, or they were wrong:
    /// problems go to `decoder`). `location` is the `transport:` key's, for missing keys.
    func decodeSettings(_ map: [SpecEntry], at location: SourceLocation, with decoder: inout SpecDecoder) -> (any KindSettings)?
    /// Rules that involve the transport and the decoded sections together, applied after the
    /// section rules (loopback adds default receive branches; a room checks its branches).
    func complete(_ draft: inout SpecDraft, with decoder: inout SpecDecoder)
    /// Builds the kind's webrtcbins (and the send branches that feed them) into the
    /// context's pipeline, and returns what the run drives. Runs before the pipeline plays.
    func prepare(_ context: TransportContext) async throws(RunError) -> TransportSetup
}

extension Transport {
    /// By default: none.
    public var keys: [String] { [] }
    /// By default: both sections optional.
    public var sections: TransportSections { TransportSections() }
    /// By default: WebRTC and data channels.
    public var abilities: TransportAbilities { [.webRTC, .dataChannels] }
    /// By default: nil.
    public var requiredDataChannel: String? { nil }
    /// By default: no settings.
    public func decodeSettings(_ map: [SpecEntry], at location: SourceLocation, with decoder: inout SpecDecoder) -> (any KindSettings)? { nil }
    /// By default: nothing to add.
    public func complete(_ draft: inout SpecDraft, with decoder: inout SpecDecoder) {}
}

/// What a transport kind offers beyond moving media.
public struct TransportAbilities: OptionSet, Sendable {
    /// The abilities as bits.
    public let rawValue: Int
    /// The abilities of the bits in `rawValue`.
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// The run makes webrtcbins (and so needs GStreamer's DTLS key; `dtls:` applies).
    public static let webRTC = TransportAbilities(rawValue: 1 << 0)
    /// There is a peer to open data channels with (`data_channels:` applies).
    public static let dataChannels = TransportAbilities(rawValue: 1 << 1)
    /// The receive section gets a room's publishers (`mosaic`, `mix` apply).
    public static let roomStreams = TransportAbilities(rawValue: 1 << 2)
    /// The send section is served to viewers, each moved between renditions.
    public static let renditions = TransportAbilities(rawValue: 1 << 3)
    /// The send section may publish simulcast layers (`encode.simulcast`): the peer is a
    /// server that forwards each viewer one of them.
    public static let simulcast = TransportAbilities(rawValue: 1 << 4)
}

/// Which sections a file of one transport kind may have and needs. Messages complete
/// "transport kind 'K' …".
public struct TransportSections: Sendable {
    /// The rule for one section.
    public enum Rule: Sendable {
        /// The section may be there or not.
        case optional
        /// The section must not be there: why, and what to do.
        case forbidden(String)
        /// The section must be there: what it is for.
        case required(String)
    }
    /// The rule for `send`.
    public var send: Rule = .optional
    /// The rule for `receive`.
    public var receive: Rule = .optional
    /// The file needs at least one of the two (nil: the general rule that some branch exists).
    public var eitherNeeded: String?

    /// Rules for `send` and `receive`; by default both are optional.
    public init(send: Rule = .optional, receive: Rule = .optional, eitherNeeded: String? = nil) {
        self.send = send; self.receive = receive; self.eitherNeeded = eitherNeeded
    }
}

/// What a transport hands the run.
public struct TransportSetup {
    /// The peer whose figures are the run's sending statistics and whose connection opens the
    /// send gates (loopback: the sender; otherwise the one local peer: player, publisher, room peer).
    public var sending: WebRTCPeer?
    /// The peer whose figures are the receive statistics (loopback: the receiver).
    public var receiving: WebRTCPeer?
    /// The peers whose ICE must connect once the session is negotiated.
    public var connecting: [WebRTCPeer] = []
    /// The session the run negotiates through and looks after (loopback: in process).
    public var session: (any RemoteSession)?
    /// The webrtcbin that opens the file's data channels (the offering side).
    public var opensChannels: Element?
    /// The webrtcbin that accepts them (the answering side).
    public var acceptsChannels: Element?

    /// A run without WebRTC (`kind: none`).
    public init() {}

    /// A session without a local peer (a Cast receiver: senders come and go on their own).
    public init(session: any RemoteSession) { self.session = session }

    /// One local peer and the session it is negotiated through.
    public init(peer: WebRTCPeer, session: any RemoteSession, opensChannels: Element? = nil, acceptsChannels: Element? = nil) {
        sending = peer; receiving = peer; connecting = [peer]
        self.session = session; self.opensChannels = opensChannels; self.acceptsChannels = acceptsChannels
    }

    /// Two local peers (loopback), negotiated with each other by `session`.
    public init(sender: WebRTCPeer, receiver: WebRTCPeer, session: any RemoteSession) {
        sending = sender; receiving = receiver; connecting = [sender, receiver]
        self.session = session; opensChannels = sender.webrtcbin; acceptsChannels = receiver.webrtcbin
    }
}

/// The transport kinds Sluice knows. This module ships those the run needs itself (loopback,
/// none, server); the kinds that speak to other services live in SluiceTransports, one folder
/// each, and join this list when a program calls `SluiceTransports.registerBuiltIns()` (the
/// CLI does at start). A new kind: its folder there, and its line in that function.
public enum TransportRegistry {
    /// The keys of `transport:` every kind has.
    public static let commonKeys = ["kind", "ice", "latency", "bundle", "dtls", "data_channels"]

    package static let kinds = KindRegistry<any Transport>(
        [LoopbackTransport(), NoTransport(), ServerTransport()], name: { $0.kind.rawValue })

    /// Adds a kind at run time (tests; a program embedding Sluice).
    public static func register(_ transport: any Transport) { kinds.register(transport) }
    /// Removes a kind added with `register`.
    public static func unregister(_ kind: TransportKind) { kinds.unregister(kind.rawValue) }
    /// Every kind, built-in first.
    public static var all: [any Transport] { kinds.all }
    /// The kind named `kind`, if there is one.
    public static func transport(for kind: TransportKind) -> (any Transport)? { kinds.kind(named: kind.rawValue) }

    /// "transport kind janus" or "transport kinds apprtc and janus": the kinds that pass `test`.
    package static func kindsPhrase(where test: (any Transport) -> Bool) -> String {
        let names = all.filter(test).map(\.kind.rawValue)
        return (names.count == 1 ? "transport kind " : "transport kinds ") + KindRegistry<any Transport>.list(names)
    }
}

extension TransportKind {
    /// The type that implements this kind (nil: no kind of that name is registered).
    package var transport: (any Transport)? { TransportRegistry.transport(for: self) }
}

/// What transports build with: the file, its pipeline and graph, and the webrtcbin helpers
/// they share (one recipe for every webrtcbin; receive-only transceivers; receive branches
/// built as streams arrive).
public struct TransportContext {
    /// The file being run.
    public let spec: PipelineSpec
    /// The run's pipeline, which the transport's webrtcbins join.
    public let pipeline: Pipeline
    package let builder: GraphBuilder
    /// The run's logger.
    public let logger: Logger

    /// A webrtcbin made by the one recipe, from the file's transport section (addresses are
    /// added where each path needs them).
    public func makeWebRTCBin(_ name: String) throws(RunError) -> Element {
        var recipe = WebRTCRecipe(transport: spec.transport)
        recipe.addresses = []
        do { return try recipe.make(name) } catch {
            throw RunError("cannot configure webrtcbin: \(error.message)", at: spec.transport.location)
        }
    }

    /// Builds every send branch of the file into `webrtcbin` (nil: each ends in a sink).
    public func buildSendBranches(into webrtcbin: Element?) throws(RunError) {
        for branch in spec.sendBranches {
            try builder.buildSend(branch, into: webrtcbin)
        }
    }

    /// A receive-only webrtcbin for the receive section, with a transceiver per branch that
    /// offers every codec the branch accepts, in the order of `media`. With `always`, media
    /// the file does not receive get a transceiver too (what arrives ends in a fakesink).
    public func buildPlayer(media: [MediaKind], always: Bool = false) throws(RunError) -> WebRTCPeer {
        let bin = try receivingBin("play")
        for m in media {
            let branch = m == .video ? spec.receive?.video : spec.receive?.audio
            guard branch != nil || always else { continue }
            try addReceiveOnly(m, codecs: branch?.codecs ?? [], to: bin, at: branch?.location ?? spec.transport.location)
        }
        return WebRTCPeer(bin, label: "player")
    }

    /// A webrtcbin in the pipeline whose incoming streams get receive branches (and, when
    /// measuring, timed jitter buffers).
    public func receivingBin(_ name: String) throws(RunError) -> Element {
        // Recordings (`sink: file`) need their muxers before any data flows.
        try builder.prepareRecordings()
        let bin = try makeWebRTCBin(name)
        do { try pipeline.add(bin) } catch { throw RunError(error.message) }
        try addICEAddresses(to: bin)
        watchIncomingStreams(of: bin)
        return bin
    }

    /// Builds a receive branch for each stream `bin` exposes.
    /// `expected`: the codecs that will arrive, when known (loopback: what the send section
    /// encodes); their decoders are loaded in the background, every codec's otherwise.
    public func watchIncomingStreams(of bin: Element, expected: [Codec]? = nil) {
        builder.prewarmReceive(expected ?? Codec.allCases)
        // Weak: the builder owns the pipeline, which owns the bin and so this handler.
        bin.connect("pad-added") { [weak builder] (args: borrowing SignalArguments) in
            guard let pad = args.object(1, as: Pad.self) else { return }
            builder?.buildReceive(for: pad)
        }
    }

    /// A receive-only transceiver offering `codecs` (every codec of the medium if empty).
    /// Video offers transport-wide congestion control, so an adaptive sender (Sluice, a
    /// browser, an SFU) gets the feedback it needs.
    public func addReceiveOnly(_ media: MediaKind, codecs: [Codec], to bin: Element, at location: SourceLocation?) throws(RunError) {
        let offered = codecs.isEmpty ? Codec.allCases.filter { $0.media == media } : codecs
        let twcc = media == .video ? EncoderPresets.twccReceiveCaps() : ""
        do {
            let caps = try Caps(offered.map { EncoderPresets.receiveCaps(for: $0) + twcc }.joined(separator: ";"))
            _ = try bin.emit("add-transceiver", "recvonly", caps)
        } catch {
            throw RunError("cannot set up receiving \(media.rawValue): \(error.message)", at: location)
        }
    }

    /// `transport.ice.addresses`: host candidates on these addresses.
    public func addICEAddresses(to bin: Element) throws(RunError) {
        guard !spec.transport.ice.addresses.isEmpty else { return }
        do { try ICEAgent.addLocalAddresses(spec.transport.ice.addresses, to: bin) } catch {
            throw RunError("transport.ice.addresses: \(error.message)", at: spec.transport.ice.location)
        }
    }
}
