import Foundation
import GStreamer
import SluiceSignalling
import Synchronization

/// A pipeline file's send section served to any number of WebRTC viewers (WHEP): capture,
/// filters and encoder run once per stream, ending in a `tee`; each viewer gets its own
/// payloader and webrtcbin fed from that tee, so N viewers cost one encode per stream.
public final class StreamHub: Sendable {
    public let spec: PipelineSpec
    public var name: String { spec.name }
    private let pipeline: Pipeline
    private let builder: GraphBuilder
    private let addresses: [String]
    private let viewers = Mutex<[String: Viewer]>([:])

    private struct Viewer: @unchecked Sendable {  // elements are MT-safe GstObjects; the struct is only touched under `viewers`
        var webrtcbin: Element
        var peer: WebRTCPeer
        var elements: [Element]
        var teePads: [(tee: Element, pad: Pad)]
    }

    /// Builds and starts the send branches of `spec` (its transport and receive sections are
    /// not used: each viewer is a peer of its own). ICE gathers on `addresses`.
    public init(spec: PipelineSpec, iceAddresses: [String]) throws(RunError) {
        guard spec.send?.video != nil || spec.send?.audio != nil else {
            throw RunError("pipeline '\(spec.name)' has nothing to serve: it has no send section", at: spec.transport.location)
        }
        self.spec = spec
        addresses = iceAddresses
        pipeline = Pipeline(name: "hub-\(spec.name)")
        builder = GraphBuilder(spec: spec, pipeline: pipeline, counters: RunCounters(), sendEndsInTee: true)
        for branch in [spec.send?.video, spec.send?.audio].compactMap({ $0 }) {
            try builder.buildSend(branch, into: nil)
        }
        guard pipeline.setState(.playing) != .failure else {
            throw RunError("the served pipeline '\(spec.name)' could not start")
        }
    }

    deinit { pipeline.setState(.null) }

    /// Viewers connected now.
    public var viewerCount: Int { viewers.withLock { $0.count } }
    /// Frames encoded so far (one encoder per stream, however many viewers).
    public var encodedVideoFrames: Int { builder.counters.sendVideoFrames.load(ordering: .relaxed) }
    /// Bytes of encoded video so far.
    public var encodedVideoBytes: Int { builder.counters.sendVideoBytes.load(ordering: .relaxed) }
    /// Statistics of the stream's Swift filters.
    public var filterStatistics: [FilterStatistics] { builder.swiftFilterStatistics }

    /// Adds a viewer for a WHEP offer; returns its id and the complete answer.
    public func addViewer(offer: String) async throws(RunError) -> (id: String, answer: String) {
        let id = UUID().uuidString.lowercased()
        let webrtcbin: Element
        do { webrtcbin = try Element.make("webrtcbin", name: "viewer-\(id)") } catch { throw RunError(error.message) }
        do {
            try webrtcbin.set("bundle-policy", fromString: "max-bundle")
            if !addresses.isEmpty { try ICEAgent.addLocalAddresses(addresses, to: webrtcbin) }
        } catch { throw RunError("cannot set up the viewer's webrtcbin: \(error.message)") }
        ICEAgent.disableUPnP(on: webrtcbin)
        WebRTCDefaults.apply(to: webrtcbin)
        var elements: [Element] = [webrtcbin]
        var teePads: [(Element, Pad)] = []
        var pending: [(teePad: Pad, queueSink: Pad)] = []
        do {
            try pipeline.add(webrtcbin)
            for branch in [spec.send?.video, spec.send?.audio].compactMap({ $0 }) {
                guard let tee = builder.tees[branch.media], let teePad = tee.requestPad("src_%u") else { continue }
                let codec = branch.encode.codec
                let queue = try Element.make("queue")
                try queue.set("leaky", fromString: "downstream")
                try queue.set("max-size-buffers", 30)
                let pay = try Element.make(DefaultElements.payloader(for: codec))
                for (k, v) in EncoderPresets.payloaderProperties(for: codec) where pay.hasProperty(k) { try pay.set(k, fromString: v) }
                let caps = try Element.make("capsfilter")
                try caps.set("caps", fromString: EncoderPresets.rtpCaps(for: codec))
                try pipeline.add([queue, pay, caps])
                try Element.link([queue, pay, caps])
                guard let sink = webrtcbin.requestPad("sink_%u"), let capsSrc = caps.staticPad("src"),
                      let queueSink = queue.staticPad("sink") else { throw GstError("webrtcbin refused an input") }
                // Declare the transceiver as sending this codec now: in 1.22 a requested pad's
                // transceiver has no kind until caps flow, so the viewer's offer would not be
                // matched to it and webrtcbin would answer with a new receive-only one.
                if let transceiver = sink.objectProperty("transceiver", as: Object.self) {
                    try transceiver.set("direction", fromString: "sendonly")
                    try transceiver.set("codec-preferences", value: try Caps(EncoderPresets.rtpCaps(for: codec)).asValue())
                }
                try capsSrc.link(sink)
                // The tee is linked only once the answer exists (below): data pushed into a
                // webrtcbin input before negotiation can stop that branch for good.
                pending.append((teePad, queueSink))
                elements += [queue, pay, caps]
                teePads.append((tee, teePad))
            }
            for e in elements.reversed() { e.syncStateWithParent() }

            let peer = WebRTCPeer(webrtcbin, label: "viewer")
            let answer = SDPRewrite.rejectingInactive(try await peer.answer(offer: offer))
            for p in pending { try p.teePad.link(p.queueSink) }
            viewers.withLock { $0[id] = Viewer(webrtcbin: webrtcbin, peer: peer, elements: elements, teePads: teePads) }
            // A new viewer needs a keyframe to start decoding: ask the shared encoders.
            for p in pending { p.queueSink.pushEvent(.forceKeyUnit()) }
            return (id, answer)
        } catch {
            // One place undoes a half-made viewer, whatever step failed.
            remove(elements: elements, teePads: teePads)
            switch error {
            case let e as NegotiationError: throw RunError("negotiation with the viewer failed: \(e.message)")
            case let e as GstError: throw RunError("cannot attach a viewer: \(e.message)")
            default: throw RunError("cannot attach a viewer: \(error)")
            }
        }
    }

    /// Adds trickled remote candidates to a viewer. False if the viewer is unknown.
    public func addCandidates(_ candidates: [(mid: String?, candidate: String)], toViewer id: String) -> Bool {
        guard let viewer = viewers.withLock({ $0[id] }) else { return false }
        for c in candidates { viewer.peer.addRemoteCandidate(ICECandidate(mlineIndex: 0, candidate: c.candidate)) }
        return true
    }

    /// Ends a viewer's session. False if unknown.
    @discardableResult
    public func removeViewer(_ id: String) -> Bool {
        guard let viewer = viewers.withLock({ $0.removeValue(forKey: id) }) else { return false }
        remove(elements: viewer.elements, teePads: viewer.teePads)
        return true
    }

    private func remove(elements: [Element], teePads: [(tee: Element, pad: Pad)]) {
        for (tee, pad) in teePads {
            if let peer = pad.peer { pad.unlink(peer) }
            tee.releaseRequestPad(pad)
        }
        for e in elements {
            e.setState(.null)
            try? pipeline.remove(e)
        }
    }
}
