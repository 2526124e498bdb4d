import Foundation
import GStreamer
import SluiceSignalling
import Synchronization

/// A WHIP publisher's media forwarded to WHEP viewers without decoding or re-encoding
/// (`sluice serve --relay`): the publisher's webrtcbin → depayloader (→ parser) → `tee` per
/// medium; each viewer gets a payloader and webrtcbin from that tee. A new viewer's keyframe
/// request travels back to the publisher as an RTCP PLI.
public final class RelayStream: Sendable {
    /// The stream's name, the path viewers ask for (`/whep/<name>`).
    public let name: String
    /// The publisher's WHIP session id.
    public let id: String
    private let pipeline: Pipeline
    private let peer: WebRTCPeer
    private let outputs = RelayOutputs()
    private let viewers: ViewerSet
    private let frames = RelayCounter()
    private let health = ViewerHealth()
    private let recording: RelayRecording?

    /// A relay whose webrtcbins use the default recipe with a `latencyMs` jitter buffer (ms), gathering
    /// ICE on `iceAddresses`. Throws `RunError` if the publisher's pipeline cannot be made.
    public convenience init(name: String, iceAddresses: [String], latencyMs: Int = 50) throws(RunError) {
        try self.init(name: name, recipe: WebRTCRecipe(latencyMs: latencyMs, addresses: iceAddresses))
    }

    /// A relay whose publisher and viewers get webrtcbins made by `recipe`; with `recording`,
    /// what the publisher sends is also recorded (`RelayRecording`).
    public init(name: String, recipe: WebRTCRecipe, recording: RelayRecording.Settings? = nil) throws(RunError) {
        self.name = name
        id = UUID().uuidString.lowercased()
        pipeline = SendLatency.pipeline(named: "relay-\(name)")
        if let recording { self.recording = try RelayRecording(recording, stream: name, in: pipeline) } else { self.recording = nil }
        let bin: Element
        do { bin = try recipe.make("publisher", in: pipeline) } catch {
            throw RunError("cannot set up the relay of '\(name)': \(error.message)")
        }
        peer = recipe.peer(bin, label: "relay-publisher")
        health.watchRTCP(of: bin)
        let outputs = outputs
        viewers = ViewerSet(pipeline: pipeline, recipe: recipe, stream: name) { outputs.current() }
        // Viewers' elements come and go in this pipeline: nothing may queue on its bus (each
        // message would keep its element, sockets and threads alive).
        pipeline.bus.handleSynchronously { _ in }
        // Captures only the pipeline and the tables: not the webrtcbin that owns the handler.
        let pipeline = pipeline, frames = frames
        bin.connect("pad-added") { (args: borrowing SignalArguments) -> Void in
            guard let pad = args.object(1, as: Pad.self), pad.direction == .src else { return }
            Self.forward(pad, into: pipeline, outputs: outputs, frames: frames)
        }
    }

    deinit { pipeline.setState(.null) }

    /// Builds depay (→ parse) → tee for a new RTP pad of the publisher.
    private static func forward(
        _ pad: Pad, into pipeline: Pipeline, outputs: RelayOutputs,
        frames: RelayCounter
    ) {
        guard let caps = pad.currentCaps ?? pad.queryCaps(), let s = caps.structure(at: 0),
            let media = MediaKind(rawValue: s.get("media", as: String.self) ?? ""),
            let codec = Codec.allCases.first(where: { $0.encodingName == (s.get("encoding-name", as: String.self) ?? "").uppercased() })
        else { return }
        do {
            var chain = [try Element.make(DefaultElements.depayloader(for: codec))]
            if codec == .h264 {
                let parse = try Element.make("h264parse")
                try parse.set("config-interval", fromString: "-1")
                chain.append(parse)
            }
            let tee = try Element.make("tee")
            try tee.set("allow-not-linked", true)
            chain.append(tee)
            try pipeline.add(chain)
            try Element.link(chain)
            for e in chain.reversed() { e.syncStateWithParent() }
            guard let entrance = chain[0].staticPad("sink") else { return }
            try pad.link(entrance)
            if media == .video {
                tee.staticPad("sink")?.addProbe { (_: borrowing Pad.ProbeInfo) in
                    frames.add(); return .ok
                }
            }
            var output = ViewerSet.Output(media: media, codec: codec, tee: tee)
            // A relay never reads the frames it forwards: they may be encrypted end to end
            // (`e2ee` keeps only VP8's header in the clear, none of VP9), which rtpvp8pay and
            // rtpvp9pay would fail to parse. VP8 and VP9 go out through Sluice's payloaders.
            output.opaqueFrames = codec == .vp8 || codec == .vp9
            outputs.add(output, from: pad, ssrc: s.get("ssrc", as: UInt32.self))
        } catch {
            // A medium that cannot be forwarded is simply not offered to viewers.
        }
    }

    /// Starts the pipeline and answers the publisher's offer (complete, with candidates).
    /// Simulcast in the offer (`a=simulcast:send`) is accepted: every layer is kept, and each
    /// viewer gets one (`RelayLayers`).
    public func answer(offer: String) async throws(RunError) -> String {
        let simulcast: SimulcastOffer?
        do { simulcast = try SimulcastOffer.parse(offer) } catch { throw RunError("the publisher's simulcast cannot be taken: \(error)") }
        outputs.layers.withLock { $0 = simulcast.map(RelayLayers.init) }
        RelayFeedback.prepare(peer.webrtcbin, for: offer)
        guard pipeline.setState(.playing) != .failure else { throw RunError("the relay of '\(name)' could not start") }
        do {
            let answer = try await peer.answer(offer: offer)
            recording?.attachWhenReady(to: outputs, expecting: Self.media(in: offer), in: pipeline)
            return simulcast?.accepting(in: answer) ?? answer
        } catch {
            pipeline.setState(.null)
            throw RunError(error.message)
        }
    }

    /// The media an offer sends (its `m=` sections).
    private static func media(in offer: String) -> Set<MediaKind> {
        Set(SDPSession(offer).media.compactMap { MediaKind(rawValue: $0.kind) })
    }

    /// The recording's segments so far (empty without `--relay-record`).
    public var recordedSegments: [String] { recording?.segments ?? [] }

    /// Why the publisher counts as gone (see `PublishSession.deadReason`), or nil.
    public func deadReason(limits: ViewerLimits = ViewerLimits()) -> String? {
        health.heard(mediaCount: frames.value)
        return ViewerReaper.verdict(health: health, states: peer.states, now: .now, limits: limits)
    }

    /// Whether the publisher's media flows (a viewer can be fed): with simulcast, once its
    /// layers are known.
    public var isLive: Bool { !outputs.current().isEmpty }
    /// A simulcast publisher's layers seen so far, with their SSRCs, largest first (empty
    /// without simulcast).
    public var layers: [(rid: String, ssrc: UInt32, width: Int, height: Int)] { outputs.layers.withLock { $0 }?.seen ?? [] }

    /// One simulcast layer as viewers get it: its measured rate and its viewers now.
    public struct LayerFigures: Sendable {
        /// The layer's RTP stream id (or `ssrc-<n>` without one).
        public var rid: String
        /// What the publisher sends in it, bit/s, over the last 2 s.
        public var bitsPerSecond: Int
        /// Viewers getting it now.
        public var viewers: Int
        /// Whether the publisher sends it now (a frame within `RenditionMeter.stoppedAfterNs`):
        /// a publisher whose congestion control cannot carry a layer switches it off.
        public var sending: Bool
    }

    /// The layers a viewer can be given (empty without simulcast, or before they are known).
    public var layerFigures: [LayerFigures] {
        let rungs = outputs.layers.withLock { $0 }?.ranked() ?? []
        let watching = viewers.viewersByRung(), now = StageTimer.now()
        return rungs.map {
            LayerFigures(
                rid: $0.rendition.name, bitsPerSecond: $0.rate(nowNs: now), viewers: watching[$0.rendition.name] ?? 0,
                sending: !$0.meter.hasStopped(nowNs: now))
        }
    }

    /// Viewers moved to a larger (up) or smaller (down) layer so far.
    public var layerMoves: (up: Int, down: Int) { viewers.rungMoves }
    /// Media forwarded so far, with their codecs.
    public var media: [MediaKind: Codec] { outputs.table.withLock { $0.mapValues(\.codec) } }
    /// Viewers connected now.
    public var viewerCount: Int { viewers.count }
    /// Encoded video frames that came from the publisher.
    public var relayedVideoFrames: Int { frames.value }

    /// Adds a viewer for a WHEP offer.
    public func addViewer(offer: String, layer: String?) async throws(RunError) -> (id: String, answer: String) {
        guard isLive else { throw RunError("'\(name)' has no media yet: its publisher is still connecting; try again in a moment") }
        return try await viewers.addViewer(offer: offer, layer: layer)
    }

    /// Adds trickled remote candidates to a viewer. False if the viewer is unknown.
    public func addCandidates(_ candidates: [(mid: String?, candidate: String)], toViewer id: String) -> Bool {
        viewers.addCandidates(candidates, toViewer: id)
    }

    /// Ends a viewer's session (reason `deleted`). False if the viewer is unknown.
    @discardableResult
    public func removeViewer(_ id: String) -> Bool { viewers.removeViewer(id) }

    /// Holds viewer `id` on the layer named `layer`, or with nil lets its estimate choose
    /// again. False if the viewer is unknown; throws `RunError` naming the layers.
    public func pinLayer(_ layer: String?, ofViewer id: String) throws(RunError) -> Bool {
        try viewers.pin(viewer: id, to: layer)
    }

    /// The layers a viewer can be held on, best first (empty: one layer only).
    public var layerNames: [String] { viewers.layerNames }

    /// Viewers removed so far, by reason (see `ViewerSource.viewerRemovals`).
    public var viewerRemovals: [String: Int] { viewers.removalCounts }

    /// Ends the relay: its recording (end-of-stream, bounded wait), every viewer, then the
    /// publisher's session (once the viewers' elements are gone, after any statistics read
    /// under way).
    public func stop() async {
        await recording?.finish()
        let pipeline = pipeline
        viewers.removeAll { pipeline.setState(.null) }
    }
}

/// The tee and codec of each forwarded medium, shared with the pad-added handler; with
/// simulcast, the video layers.
package final class RelayOutputs: Sendable {
    package let table = Mutex<[MediaKind: ViewerSet.Output]>([:])
    /// Set before the publisher's offer is applied when it sends simulcast.
    package let layers = Mutex<RelayLayers?>(nil)

    /// Records a forwarded medium; a simulcast publisher's video pads are layers.
    package func add(_ output: ViewerSet.Output, from pad: Pad, ssrc: UInt32?) {
        let simulcast = layers.withLock { $0 }
        if output.media == .video, let simulcast, let ssrc {
            simulcast.watch(pad: pad, ssrc: ssrc, tee: output.tee, codec: output.codec)
        }
        table.withLock { t in
            // A simulcast publisher's first layer stands for its video; the rest join through `layers`.
            if output.media == .video, t[.video] != nil, simulcast != nil { return }
            t[output.media] = output
        }
    }

    /// What a viewer joining now can be fed: with simulcast, nothing until its layers are
    /// known (a viewer fed before would get the sound alone), then every layer a rung
    /// (largest first), starting in the middle.
    package func current() -> [ViewerSet.Output] {
        let layers = self.layers.withLock { $0 }
        let rungs = layers?.ranked()
        if layers != nil && rungs?.isEmpty != false { return [] }
        return table.withLock { o in [MediaKind.video, .audio].compactMap { o[$0] } }.compactMap { output in
            guard output.media == .video, let rungs, let best = rungs.first else { return output }
            var video = output
            video.tee = best.tee
            video.renditions = rungs
            video.startRendition = rungs.count / 2
            return video
        }
    }
}

/// A counter shared with a pad probe.
package final class RelayCounter: Sendable {
    private let n: Atomic<Int>
    package init(_ start: Int = 0) { n = Atomic(start) }
    package func add() { n.add(1, ordering: .relaxed) }
    package var value: Int { n.load(ordering: .relaxed) }
    /// Counts one down; false once nothing is left.
    package func take() -> Bool { n.subtract(1, ordering: .relaxed).oldValue > 0 }
}
