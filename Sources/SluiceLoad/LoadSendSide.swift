import GStreamer
import Synchronization
import SluiceRun
import SluiceMeasure

/// What a load client sends, in the crowd's one shared pipeline (`LoadPublisherHub`): for
/// each medium of the shared send section a branch of its own (leaky queue, payloader with a
/// fresh SSRC, a transceiver into the client's webrtcbin; `ViewerBranch`), fed by the
/// medium's tee once the service's answer is applied. Closed until the client's connection
/// is up (`StartGate`), then from a keyframe asked for at that moment. A publisher's and a
/// call member's media each have one.
package final class LoadSendSide: Sendable {
    package let webrtcbin: Element
    private let hub: LoadPublisherHub
    /// What this client is fed: its group's branches, or the shared section's outputs.
    private let fed: [ViewerSet.Output]
    private let client: Int
    /// The transceivers' direction: `sendonly` (a publisher), `sendrecv` (a call's member).
    private let direction: String
    /// Gets each video frame sent, as it enters the payloader (nil: not counted).
    private let record: LoadFrameRecorder?
    /// When this client speaks, in a room that mixes its members' audio (nil: always).
    private let turns: SpeakingTurns?
    private let parts: Mutex<ViewerAssembly>
    private let opener = Mutex<Task<Void, Never>?>(nil)
    private let failure = Mutex<String?>(nil)
    /// The element name prefixes whose errors are this client's (`hub.claimErrors`).
    private let claimed = Mutex<[String]>([])
    /// Its simulcast layers' keyframe route, installed once it is connected (nil: no layers).
    private let simulcastRoute = Mutex<SimulcastKeyframeRoute?>(nil)

    /// Client `client` (of load group `group`, if any)'s webrtcbin, named `name`, in `hub`'s
    /// pipeline; no branch yet. With `turns`, its audio is silent outside its turns.
    package init(
        client: Int, group: String? = nil, named name: String, hub: LoadPublisherHub, direction: String, record: LoadFrameRecorder?,
        turns: SpeakingTurns? = nil
    ) throws(RunError) {
        self.hub = hub
        fed = hub.outputs(for: group)
        self.client = client
        self.direction = direction
        self.record = record
        self.turns = turns
        do { webrtcbin = try hub.recipe.make(name, in: hub.pipeline) } catch {
            throw RunError("load client \(client): cannot make its webrtcbin: \(error.message)")
        }
        parts = Mutex(ViewerAssembly(webrtcbin: webrtcbin))
        claimErrors(of: name)
        // Running from the start: webrtcbin makes no offer or answer while it is in NULL.
        webrtcbin.syncStateWithParent()
    }

    /// Makes errors from elements named `prefix` (or `prefix-…`) this client's problem alone.
    package func claimErrors(of prefix: String) {
        claimed.withLock { $0.append(prefix) }
        // Weak: the hub outlives its clients; the claim goes with `remove`.
        hub.claimErrors(of: prefix) { [weak self] why in self?.failure.withLock { $0 = $0 ?? why } }
    }

    /// The parameters Sluice offers for each shared output: its own payload type, the MID
    /// webrtcbin 1.22 gives the media section it makes for this input (kind and index; the
    /// MID header extension must write the same, or a service that routes by it, as Janus
    /// does for an SSRC it does not know, drops the packets), and a fresh SSRC.
    package var offering: [RTPSendParameters] {
        fed.enumerated().map { index, output in
            var rtp = RTPSendParameters.offering(output.codec, mid: "\(output.media.rawValue)\(index)")
            rtp.ssrc = RTPSendParameters.randomSSRC()
            return rtp
        }
    }

    /// What the shared stream offers, to match an offer against: each output's medium and codec.
    package var outputs: [(media: MediaKind, codec: Codec)] { fed.map { ($0.media, $0.codec) } }

    /// Builds a branch per parameter set, each for the shared output of its medium.
    package func build(_ parameters: [RTPSendParameters]) throws(RunError) {
        do {
            try parts.withLock { p throws(GstError) in
                var added: [Element] = []
                for rtp in parameters {
                    guard let output = fed.first(where: { $0.media == rtp.codec.media }) else { continue }
                    if output.media == .video, let enc = hub.simulcast, !output.renditions.isEmpty {
                        added += try buildLayers(enc, of: output, into: &p)
                        continue
                    }
                    let branch = try ViewerBranch.build(
                        rtp, into: hub.pipeline, webrtcbin: webrtcbin, msid: "sluice-load-\(client)", direction: direction,
                        opaqueFrames: output.opaqueFrames)
                    added += branch.elements
                    guard let teePad = output.tee.requestPad("src_%u") else { throw GstError("the shared \(output.media.rawValue) tee gave no output") }
                    p.teePads.append((output.tee, teePad))
                    // From a passthrough source's cached group of pictures if there is one
                    // (`GOPCache`), else from a keyframe the opener asks for.
                    p.gates.append(
                        StartGate(
                            on: branch.entrance, waitForKeyframe: output.media == .video, cache: output.cache,
                            replayInto: branch.payloader.staticPad("sink"), askForKeyframe: true))
                    p.pending.append(ViewerAssembly.PendingLink(teePad: teePad, queueSink: branch.entrance))
                    if output.cache == nil { p.entrances.append(branch.entrance) }
                    if output.media == .video, let record, let sent = branch.payloader.staticPad("sink") {
                        LoadFrameCount.install(on: sent, record: record)
                    }
                    if output.media == .audio, let turns, let sent = branch.payloader.staticPad("sink") {
                        turns.install(on: sent)
                    }
                }
                p.elements += added
                for e in added.reversed() { e.syncStateWithParent() }
            }
        } catch {
            throw RunError("load client \(client): cannot make its branch of the shared stream: \(error.message)")
        }
    }

    /// The client's own payloader per shared simulcast layer, into one transceiver; each layer
    /// starts at a keyframe once the connection is up, the top layer's frames counted as sent.
    private func buildLayers(_ enc: EncodeSpec, of output: ViewerSet.Output, into p: inout ViewerAssembly) throws(GstError) -> [Element] {
        let input = try SimulcastInput.build(enc, rungs: output.renditions, into: hub.pipeline, webrtcbin: webrtcbin, direction: direction)
        for (index, layer) in input.layers.enumerated() {
            guard let teePad = layer.tee.requestPad("src_%u") else { throw GstError("a shared simulcast layer gave no output") }
            p.teePads.append((layer.tee, teePad))
            p.gates.append(
                StartGate(
                    on: layer.entrance, waitForKeyframe: true, cache: nil, replayInto: layer.payloader.staticPad("sink"), askForKeyframe: true))
            p.pending.append(ViewerAssembly.PendingLink(teePad: teePad, queueSink: layer.entrance))
            p.entrances.append(layer.entrance)
            if index == 0, let record, let sent = layer.payloader.staticPad("sink") { LoadFrameCount.install(on: sent, record: record) }
        }
        simulcastRoute.withLock { $0 = input.route }
        return input.elements
    }

    /// Links the branches to the shared stream, each behind a pad that swallows its failures
    /// (a failing client cannot stop the tee), and opens them once `peer` is connected.
    package func link(peer: WebRTCPeer, connectTimeout: Double) throws(RunError) {
        do {
            // Weak: the pads' failure handlers live as long as the branches this side owns.
            try parts.withLock { p throws(GstError) in
                try p.link { [weak self] flow in
                    self?.failure.withLock { $0 = $0 ?? "its branch of the shared stream stopped (\(flow))" }
                }
            }
        } catch {
            throw RunError("cannot link the client to the shared stream: \(error.message)")
        }
        var connected: (@Sendable () -> Void)?
        if let route = simulcastRoute.withLock({ $0 }) { connected = { route.install() } }
        let task = parts.withLock { $0.opener(for: peer, connectTimeout: connectTimeout, then: connected) }
        opener.withLock { $0 = task }
    }

    /// Why what the client sends could not flow, if it could not.
    package var problem: String? { failure.withLock { $0 } ?? hub.error }

    /// Removes the webrtcbin and the branches, then `after` (elements behind the webrtcbin).
    package func remove(after: [Element] = []) {
        opener.withLock { $0?.cancel() }
        let (elements, teePads) = parts.withLock { p in
            defer { p.elements = []; p.teePads = [] }
            return (p.elements, p.teePads)
        }
        hub.pipeline.removeBranch(elements + after, teePads: teePads)
        for prefix in claimed.withLock({ $0 }) { hub.release(prefix) }
    }
}
