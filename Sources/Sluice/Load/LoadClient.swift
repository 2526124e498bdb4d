import GStreamer
import Synchronization

/// One synthetic client of a load run: its own pipeline and webrtcbin (its own ICE agent
/// and DTLS session), what it builds for each stream it receives, and what it saw
/// (`ClientObservation`), recorded from GStreamer's threads. A pipeline per client, not one
/// for the crowd: in one shared pipeline each client's latency and state changes walk every
/// other client's elements, and the crowd's CPU grew with the square of its size.
final class LoadClient: Sendable {
    let id: Int
    let peer: WebRTCPeer
    let decodes: Bool
    private let pipeline: Pipeline
    private let clock: LoadClock
    private let observed: Mutex<ClientObservation>
    private let chainError = Mutex<String?>(nil)

    /// Makes the client's pipeline and webrtcbin with a receive-only transceiver per receive
    /// branch of `spec` (offering the codecs the branch accepts; none when the service
    /// offers: its offer makes them), and starts it. Every bus
    /// message goes to `onMessage`, on the thread that posts it (nothing queues on the bus).
    init(
        id: Int, group: String, decodes: Bool, spec: PipelineSpec, clock: LoadClock, serviceOffers: Bool = false,
        onMessage: @escaping @Sendable (Message) -> Void
    ) throws(RunError) {
        self.id = id
        self.decodes = decodes
        let pipeline = Pipeline(name: "client\(id)")
        pipeline.bus.handleSynchronously(onMessage)
        self.pipeline = pipeline
        self.clock = clock
        observed = Mutex(ClientObservation(id: id, group: group, decodes: decodes, startedAt: clock.now))
        let bin: Element
        do {
            bin = try WebRTCRecipe(transport: spec.transport).make("c\(id)")
            for branch in spec.receiveBranches where !serviceOffers {
                let codecs = branch.codecs.isEmpty ? Codec.allCases.filter { $0.media == branch.media } : branch.codecs
                let twcc = branch.media == .video ? EncoderPresets.twccReceiveCaps : ""
                let caps = try Caps(codecs.map { EncoderPresets.receiveCaps(for: $0) + twcc }.joined(separator: ";"))
                _ = try bin.emit("add-transceiver", "recvonly", caps)
            }
            try pipeline.add(bin)
        } catch {
            throw RunError("load client \(id): cannot make its webrtcbin: \(error.message)", at: spec.transport.location)
        }
        peer = WebRTCPeer(bin, label: "client \(id)")
        // Weak: the bin owns this handler, and the client owns the bin.
        bin.connect("pad-added") { [weak self] (args: borrowing SignalArguments) in
            guard let pad = args.object(1, as: Pad.self) else { return }
            self?.attach(pad)
        }
        guard pipeline.setState(.playing) != .failure else {
            throw RunError("load client \(id): its pipeline could not start", at: spec.transport.location)
        }
    }

    /// What the client saw so far.
    var observation: ClientObservation { observed.withLock { $0 } }

    /// Why a stream the client received could not be played, if one could not.
    var receiveError: String? { chainError.withLock { $0 } }

    /// Changes the observation (from any thread).
    func note(_ change: (inout ClientObservation) -> Void) { observed.withLock { change(&$0) } }

    /// Builds and links the chain for a stream the webrtcbin exposes (a streaming thread).
    private func attach(_ pad: Pad) {
        guard pad.direction == .src, let arrival = LoadReceiveChain.arrival(on: pad) else { return }
        do {
            let (counted, chain) = try LoadReceiveChain.elements(for: arrival, client: id, decodes: decodes)
            try pipeline.add(chain)
            for (a, b) in zip(chain, chain.dropFirst()) { try a.link(b) }
            if let src = counted?.staticPad("src") { count(src) }
            for e in chain.reversed() { _ = e.syncStateWithParent() }
            guard let entrance = chain[0].staticPad("sink") else { return }
            try pad.link(entrance)
        } catch {
            let why = "cannot receive \(arrival.media.rawValue) (\(arrival.codec.rawValue)): \(error.message)"
            chainError.withLock { $0 = $0 ?? why }
        }
    }

    /// Counts each whole encoded frame leaving `src`: its arrival, whether it is a keyframe, its size.
    private func count(_ src: Pad) {
        let clock = clock
        src.addProbe { [weak self] (info: borrowing Pad.ProbeInfo) in
            guard let self, let buffer = info.buffer else { return .ok }
            let key = !buffer.isDeltaUnit, bytes = buffer.size, at = clock.now
            self.observed.withLock { $0.frames.record(at: at, keyframe: key, bytes: bytes) }
            return .ok
        }
    }

    /// Stops the client's pipeline (after it left).
    func remove() { pipeline.setState(.null) }
}
