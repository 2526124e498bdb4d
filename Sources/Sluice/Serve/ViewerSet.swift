import Foundation
import GStreamer
import SluiceSignalling
import Synchronization

/// The WebRTC viewers of one stream: each gets its own queue, payloader and webrtcbin fed
/// from the stream's `tee` per medium (no re-encoding), linked once its answer exists.
/// Used by `StreamHub` (a pipeline file's send section) and `RelayStream` (a WHIP
/// publisher's media, forwarded).
final class ViewerSet: Sendable {
    /// What a viewer can be fed: the encoded stream of each medium, and its codec.
    struct Output { var media: MediaKind; var codec: Codec; var tee: Element }

    private let pipeline: Pipeline
    private let addresses: [String]
    private let outputs: @Sendable () -> [Output]
    private let viewers = Mutex<[String: Viewer]>([:])

    private struct Viewer: @unchecked Sendable {  // elements are MT-safe GstObjects; the struct is only touched under `viewers`
        var webrtcbin: Element
        var peer: WebRTCPeer
        var elements: [Element]
        var teePads: [(tee: Element, pad: Pad)]
    }

    init(pipeline: Pipeline, addresses: [String], outputs: @escaping @Sendable () -> [Output]) {
        self.pipeline = pipeline; self.addresses = addresses; self.outputs = outputs
    }

    var count: Int { viewers.withLock { $0.count } }

    /// Ends every viewer's session.
    func removeAll() {
        for id in viewers.withLock({ Array($0.keys) }) { removeViewer(id) }
    }

    /// Adds a viewer for a WHEP offer; returns its id and the complete answer.
    func addViewer(offer: String) async throws(RunError) -> (id: String, answer: String) {
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
            for output in outputs() {
                guard let teePad = output.tee.requestPad("src_%u") else { continue }
                let codec = output.codec
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
                teePads.append((output.tee, teePad))
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
    func addCandidates(_ candidates: [(mid: String?, candidate: String)], toViewer id: String) -> Bool {
        guard let viewer = viewers.withLock({ $0[id] }) else { return false }
        for c in candidates { viewer.peer.addRemoteCandidate(ICECandidate(mlineIndex: 0, candidate: c.candidate)) }
        return true
    }

    /// Ends a viewer's session. False if unknown.
    @discardableResult
    func removeViewer(_ id: String) -> Bool {
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
