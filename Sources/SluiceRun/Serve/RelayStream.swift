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

    /// A relay whose webrtcbins use the default recipe with a `latencyMs` jitter buffer (ms), gathering
    /// ICE on `iceAddresses`. Throws `RunError` if the publisher's pipeline cannot be made.
    public convenience init(name: String, iceAddresses: [String], latencyMs: Int = 50) throws(RunError) {
        try self.init(name: name, recipe: WebRTCRecipe(latencyMs: latencyMs, addresses: iceAddresses))
    }

    /// A relay whose publisher and viewers get webrtcbins made by `recipe`.
    public init(name: String, recipe: WebRTCRecipe) throws(RunError) {
        self.name = name
        id = UUID().uuidString.lowercased()
        pipeline = SendLatency.pipeline(named: "relay-\(name)")
        let bin: Element
        do { bin = try recipe.make("publisher", in: pipeline) } catch {
            throw RunError("cannot set up the relay of '\(name)': \(error.message)")
        }
        peer = recipe.peer(bin, label: "relay-publisher")
        health.watchRTCP(of: bin)
        let outputs = outputs
        viewers = ViewerSet(pipeline: pipeline, recipe: recipe, stream: name) {
            outputs.table.withLock { o in [MediaKind.video, .audio].compactMap { o[$0] } }
        }
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
            outputs.table.withLock { $0[media] = ViewerSet.Output(media: media, codec: codec, tee: tee) }
        } catch {
            // A medium that cannot be forwarded is simply not offered to viewers.
        }
    }

    /// Starts the pipeline and answers the publisher's offer (complete, with candidates).
    public func answer(offer: String) async throws(RunError) -> String {
        guard pipeline.setState(.playing) != .failure else { throw RunError("the relay of '\(name)' could not start") }
        do { return try await peer.answer(offer: offer) } catch {
            pipeline.setState(.null)
            throw RunError(error.message)
        }
    }

    /// Why the publisher counts as gone (see `PublishSession.deadReason`), or nil.
    public func deadReason(limits: ViewerLimits = ViewerLimits()) -> String? {
        health.heard(mediaCount: frames.value)
        return ViewerReaper.verdict(health: health, states: peer.states, now: .now, limits: limits)
    }

    /// Whether the publisher's media flows (a viewer can be fed).
    public var isLive: Bool { outputs.table.withLock { !$0.isEmpty } }
    /// Media forwarded so far, with their codecs.
    public var media: [MediaKind: Codec] { outputs.table.withLock { $0.mapValues(\.codec) } }
    /// Viewers connected now.
    public var viewerCount: Int { viewers.count }
    /// Encoded video frames that came from the publisher.
    public var relayedVideoFrames: Int { frames.value }

    /// Adds a viewer for a WHEP offer.
    public func addViewer(offer: String) async throws(RunError) -> (id: String, answer: String) {
        guard isLive else { throw RunError("'\(name)' has no media yet: its publisher is still connecting; try again in a moment") }
        return try await viewers.addViewer(offer: offer)
    }

    /// Adds trickled remote candidates to a viewer. False if the viewer is unknown.
    public func addCandidates(_ candidates: [(mid: String?, candidate: String)], toViewer id: String) -> Bool {
        viewers.addCandidates(candidates, toViewer: id)
    }

    /// Ends a viewer's session (reason `deleted`). False if the viewer is unknown.
    @discardableResult
    public func removeViewer(_ id: String) -> Bool { viewers.removeViewer(id) }

    /// Viewers removed so far, by reason (see `ViewerSource.viewerRemovals`).
    public var viewerRemovals: [String: Int] { viewers.removalCounts }

    /// Ends the relay: every viewer, then the publisher's session (once the viewers' elements
    /// are gone, after any statistics read under way).
    public func stop() {
        let pipeline = pipeline
        viewers.removeAll { pipeline.setState(.null) }
    }
}

/// The tee and codec of each forwarded medium, shared with the pad-added handler.
package final class RelayOutputs: Sendable {
    package let table = Mutex<[MediaKind: ViewerSet.Output]>([:])
}

/// A frame counter shared with a pad probe.
package final class RelayCounter: Sendable {
    private let n = Atomic<Int>(0)
    package func add() { n.add(1, ordering: .relaxed) }
    package var value: Int { n.load(ordering: .relaxed) }
}
