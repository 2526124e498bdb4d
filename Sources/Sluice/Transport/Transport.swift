import GStreamer
import Logging

/// How a pipeline file's media meets its peer: one type per `transport.kind`, behind this one
/// protocol, so that a new way to signal (XMPP, LAN discovery, Janus) is one new file plus
/// its line in `TransportKind.transport` — not edits across `PipelineRun`.
protocol Transport: Sendable {
    /// Builds the transport's webrtcbins (and the send branches that feed them) into the
    /// context's pipeline, and returns what the run drives. Runs before the pipeline plays.
    func prepare(_ context: TransportContext) async throws(RunError) -> TransportSetup
}

/// What a transport hands the run.
struct TransportSetup {
    /// Loopback: both webrtcbins, negotiated in process.
    var loopback: (sender: WebRTCPeer, receiver: WebRTCPeer)?
    /// The one local peer of a signalled session (player, publisher, room peer).
    var player: WebRTCPeer?
    /// The signalling session the run negotiates through and looks after.
    var remote: (any RemoteSession)?
    /// The webrtcbin that opens the file's data channels (the offering side).
    var opensChannels: Element?
    /// The webrtcbin that accepts them (the answering side).
    var acceptsChannels: Element?
}

extension TransportKind {
    /// The type that implements this kind.
    var transport: any Transport {
        switch self {
        case .loopback: LoopbackTransport()
        case .noTransport: NoTransport()
        case .whep: WHEPTransport()
        case .whip: WHIPTransport()
        case .server: ServerTransport()
        case .camera: CameraTransport()
        case .apprtc: AppRTCTransport()
        case .lan: LANTransport()
        case .xmpp: XMPPTransport()
        case .janus: JanusTransport()
        case .cast: CastTransport()
        }
    }
}

/// What transports build with: the file, its pipeline and graph, and the webrtcbin helpers
/// they share (one recipe for every webrtcbin; receive-only transceivers; receive branches
/// built as streams arrive).
struct TransportContext {
    let spec: PipelineSpec
    let pipeline: Pipeline
    let builder: GraphBuilder
    let logger: Logger

    /// A webrtcbin made by the one recipe, from the file's transport section (addresses are
    /// added where each path needs them).
    func makeWebRTCBin(_ name: String) throws(RunError) -> Element {
        var recipe = WebRTCRecipe(transport: spec.transport)
        recipe.addresses = []
        do { return try recipe.make(name) } catch {
            throw RunError("cannot configure webrtcbin: \(error.message)", at: spec.transport.location)
        }
    }

    /// Builds every send branch of the file into `webrtcbin` (nil: each ends in a sink).
    func buildSendBranches(into webrtcbin: Element?) throws(RunError) {
        for branch in [spec.send?.video, spec.send?.audio].compactMap({ $0 }) {
            try builder.buildSend(branch, into: webrtcbin)
        }
    }

    /// A receive-only webrtcbin for the receive section, with a transceiver per branch that
    /// offers every codec the branch accepts, in the order of `media`. With `always`, media
    /// the file does not receive get a transceiver too (what arrives ends in a fakesink).
    func buildPlayer(media: [MediaKind], always: Bool = false) throws(RunError) -> WebRTCPeer {
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
    func receivingBin(_ name: String) throws(RunError) -> Element {
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
    func watchIncomingStreams(of bin: Element, expected: [Codec]? = nil) {
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
    func addReceiveOnly(_ media: MediaKind, codecs: [Codec], to bin: Element, at location: SourceLocation?) throws(RunError) {
        let offered = codecs.isEmpty ? Codec.allCases.filter { $0.media == media } : codecs
        let twcc = media == .video ? EncoderPresets.twccReceiveCaps : ""
        do {
            let caps = try Caps(offered.map { EncoderPresets.receiveCaps(for: $0) + twcc }.joined(separator: ";"))
            _ = try bin.emit("add-transceiver", "recvonly", caps)
        } catch {
            throw RunError("cannot set up receiving \(media.rawValue): \(error.message)", at: location)
        }
    }

    /// `transport.ice.addresses`: host candidates on these addresses.
    func addICEAddresses(to bin: Element) throws(RunError) {
        guard !spec.transport.ice.addresses.isEmpty else { return }
        do { try ICEAgent.addLocalAddresses(spec.transport.ice.addresses, to: bin) } catch {
            throw RunError("transport.ice.addresses: \(error.message)", at: spec.transport.ice.location)
        }
    }
}
