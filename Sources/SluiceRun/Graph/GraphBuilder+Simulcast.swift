import GStreamer
import SluiceSignalling
import Synchronization

/// One simulcast layer as built: what the control API, the keyframe requests and the start
/// of the connection act on.
package struct SimulcastLayerOutput: Sendable {
    /// The layer as the file gives it.
    package let layer: SimulcastLayer
    /// The layer's encoder.
    package let encoder: Element?
    /// The SSRC its packets carry (the server's keyframe requests name it).
    package let ssrc: UInt32
    /// The payloader's input, where keyframes are asked for when the connection comes up.
    /// (No start gate holds the layers back: the funnel's caps, which the offer is made from,
    /// only leave it with a packet.)
    package let entrance: Pad
    /// Keyframe requests that reach this layer's encoder.
    package let keyframeRequests: KeyframeRequestLimiter?
    /// Its picture size.
    package let width: Int
    /// Its picture height.
    package let height: Int
    /// What it sent, counted at the payloader's input (below the top layer; the top layer's
    /// frames are the branch's `send.video` count), and the keyframe requests it got.
    package let sent = SimulcastLayerCounts()
    /// Its gate before the encoder (`encode.adaptive_layers` only: otherwise never closed).
    package let gate = SimulcastLayerSwitch.Gate()
}

/// Frames, keyframes, bytes and peers' keyframe requests of one simulcast layer.
package final class SimulcastLayerCounts: Sendable {
    package let frames = Atomic<Int>(0)
    package let keyframes = Atomic<Int>(0)
    package let bytes = Atomic<Int>(0)
    package let requests = Atomic<Int>(0)

    /// Counts each encoded frame that enters `pad`.
    package func count(at pad: Pad) {
        pad.addProbe { [self] (info: borrowing Pad.ProbeInfo) in
            frames.add(1, ordering: .relaxed)
            bytes.add(info.buffer?.size ?? 0, ordering: .relaxed)
            if info.buffer?.isDeltaUnit == false { keyframes.add(1, ordering: .relaxed) }
            return .ok
        }
    }
}

/// Hands a peer's keyframe request to the simulcast layer it names.
///
/// webrtcbin 1.22 bundles a transceiver's streams through an `rtpfunnel` of its own, which
/// sends a keyframe request (rtpsession's upstream `GstForceKeyUnit`, with the SSRC the
/// peer's PLI or FIR named) only to an input whose caps carry that SSRC. A simulcast input
/// carries several, so its caps name none and every request ended there: a subscriber that
/// joined waited for the layer's next scheduled keyframe. A probe on that funnel's output
/// passes each request for one of the layers to its payloader's input, upstream to its
/// encoder (and that layer's `KeyframeRequestLimiter`).
package final class SimulcastKeyframeRoute: Sendable {
    private let layers: [UInt32: SimulcastLayerOutput]
    private let webrtcbin: Element
    private let installed = Atomic<Bool>(false)

    /// Routes requests for `layers`, which feed `webrtcbin`.
    package init(layers: [SimulcastLayerOutput], webrtcbin: Element) {
        self.layers = Dictionary(layers.map { ($0.ssrc, $0) }, uniquingKeysWith: { a, _ in a })
        self.webrtcbin = webrtcbin
    }

    /// Watches the output of webrtcbin's own funnels; once, when they exist (after
    /// negotiation). False while webrtcbin has none yet.
    @discardableResult
    package func install() -> Bool {
        guard !installed.load(ordering: .acquiring) else { return true }
        let funnels = (webrtcbin.cast(to: Bin.self)?.descendants ?? []).filter { $0.factoryName == "rtpfunnel" }
        guard !funnels.isEmpty, installed.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
        else { return installed.load(ordering: .acquiring) }
        for funnel in funnels {
            funnel.staticPad("src")?.addProbe(.eventUpstream) { [self] (info: borrowing Pad.ProbeInfo) in
                guard info.eventName == "GstForceKeyUnit", let ssrc = info.eventStructure?.get("ssrc", as: UInt32.self),
                    let layer = layers[ssrc]
                else { return .ok }
                layer.sent.requests.add(1, ordering: .relaxed)
                layer.entrance.pushEvent(.forceKeyUnit())
                return .drop
            }
        }
        return true
    }
}

/// A video branch with `encode.simulcast`: the picture, filtered once, feeds one scaler,
/// encoder and payloader per layer, and the layers' packets share one transceiver.
///
/// ```
/// … filters → queue → track gate → tee ─┬→ queue → videoscale → caps (layer h) → encoder → [encoded filters] → payloader (SSRC, mid, rid) ─┐
///                                        ├→ queue → videoscale → caps (layer m) → encoder → payloader ──────────────────┤
///                                        └→ …                                                           rtpfunnel → caps (rids, a=simulcast) → webrtcbin
/// ```
/// webrtcbin 1.22 writes `a=rid:<rid> send` and `a=simulcast:send h;m;l` from the caps, and
/// `rtpfunnel` sends each keyframe request to the layer whose SSRC it names. Each layer's
/// queue is leaky: a layer whose encoder falls behind drops its own frames.
extension GraphBuilder {
    /// Builds the layers after the branch's track gate, and links their funnel to `webrtcbin`.
    package func finishSimulcast(
        _ branch: SendBranchSpec, capture: [Element], filters: [Element], tail: SendTail, into webrtcbin: Element?
    ) throws(RunError) {
        let enc = branch.encode
        if webrtcbin == nil, sendEndsInTee { return try finishSharedSimulcast(branch, capture: capture, filters: filters, tail: tail) }
        guard let webrtcbin else {
            throw RunError("simulcast layers go to a server over WebRTC; this run has no peer", at: enc.simulcast.first?.location ?? enc.location)
        }
        let split = try make("tee", [("allow-not-linked", "true")], at: enc.location, name: "video-simulcast")
        let elements = tail.elements + [split]
        try add(filters + elements)
        try linkSend(branch, capture: capture, filters: filters, tail: elements)
        watchEnd(of: tail.queue)
        // With `adaptive_layers` every layer's packets carry the TWCC extension, numbered in one
        // space by this funnel, so the server's feedback covers the whole publication.
        let funnel = try make("rtpfunnel", at: enc.location, name: "video-simulcast-funnel")
        let rtpCaps = try make("capsfilter", [("caps", Self.simulcastCaps(enc))], at: enc.location)
        try add([funnel, rtpCaps])
        do { try funnel.link(rtpCaps) } catch { throw RunError("cannot link the simulcast funnel: \(error.message)", at: enc.location) }
        var outputs: [SimulcastLayerOutput] = []
        for layer in enc.simulcast {
            outputs.append(try buildSimulcastLayer(layer, of: branch, from: split, into: funnel, top: outputs.isEmpty))
        }
        guard let src = rtpCaps.staticPad("src"), let input = webrtcbin.requestPad("sink_%u") else {
            throw RunError("webrtcbin refused a new video input", at: branch.location)
        }
        do { try src.link(input) } catch {
            throw RunError("cannot link the simulcast layers to webrtcbin: \(error.message)", at: enc.location)
        }
        let top = outputs.first
        state.withLock {
            $0.sendControls[.video] = SendControl(
                media: .video, codec: enc.codec, gate: tail.gate, encoder: top?.encoder, encoderFactory: top?.encoder?.factoryName)
            $0.keyframeRequests = top?.keyframeRequests
            $0.simulcastLayers = outputs
            $0.simulcastRoute = SimulcastKeyframeRoute(layers: outputs, webrtcbin: webrtcbin)
            $0.webrtcInputs[.video] = input
        }
        if enc.adaptiveLayers, let out = funnel.staticPad("src") {
            let layers = SimulcastLayerSwitch(layers: outputs)
            let cc = CongestionControl(limits: layers.limits, watching: out, onReport: { layers.update(with: $0) })
            state.withLock { $0.congestion = cc }
        }
        // The top layer is the branch's own count (`send.video`); the others count for themselves.
        countSent(at: top?.entrance, video: true, marksFirstFrame: false)
        for layer in outputs.dropFirst() { layer.sent.count(at: layer.entrance) }
        counters.note("send.video.codec", enc.codec.rawValue)
        counters.note("send.video.simulcast", enc.simulcast.map(\.rid).joined(separator: ","))
    }

    /// queue → videoscale → caps → encoder → parser → payloader for `layer`, fed by `split`,
    /// feeding `funnel`. `top`: the best layer, whose frames are the branch's own count.
    private func buildSimulcastLayer(
        _ layer: SimulcastLayer, of branch: SendBranchSpec, from split: Element, into funnel: Element, top: Bool
    ) throws(RunError) -> SimulcastLayerOutput {
        let enc = branch.encode, at = layer.location ?? enc.location
        let (width, height) = layer.size(of: branch.capture)
        var chain = [
            try make(
                "queue", [("max-size-buffers", "2"), ("max-size-bytes", "0"), ("max-size-time", "0"), ("leaky", "downstream")],
                at: at),
            try make("videoscale", at: at),
            try make("capsfilter", [("caps", "video/x-raw,width=\(width),height=\(height),pixel-aspect-ratio=1/1")], at: at)
        ]
        var layerEncode = enc
        layerEncode.bitrateKbps = layer.bitrateKbps
        layerEncode.simulcast = []
        let encoding = try encoderChain(layerEncode, fps: branch.capture.fps)
        let (pay, ssrc) = try Self.simulcastPayloader(layer, enc, opaque: !branch.encodedFilters.isEmpty, at: at)
        chain += try layerWithEncodedFilters(branch, in: encoding) + [pay]
        try add(chain)
        _ = try linkChain(chain, media: .video, at: at)
        guard let branchPad = split.requestPad("src_%u"), let entrance = chain[0].staticPad("sink"),
            let out = pay.staticPad("src"), let funnelPad = funnel.requestPad("sink_%u"), let payIn = pay.staticPad("sink")
        else { throw RunError("the simulcast tee or funnel refused layer '\(layer.rid)'", at: at) }
        do {
            try branchPad.link(entrance)
            try out.link(funnelPad)
        } catch { throw RunError("cannot link simulcast layer '\(layer.rid)': \(error.message)", at: at) }
        let limiter = encoding.first?.staticPad("src").map { KeyframeRequestLimiter(watching: $0) }
        let output = SimulcastLayerOutput(
            layer: layer, encoder: encoding.first, ssrc: ssrc, entrance: payIn, keyframeRequests: limiter, width: width, height: height)
        if let queued = chain[0].staticPad("src") { output.gate.install(on: queued) }
        if enc.adaptiveLayers {
            // The gate reads what the layer's own count (`countSent`, `sent.count`) adds up.
            let counters = counters, sent = output.sent
            output.gate.measure {
                top ? counters.sendVideoBytes.load(ordering: .relaxed) : sent.bytes.load(ordering: .relaxed)
            }
        }
        return output
    }

    /// The layer's payloader: Sluice's payload type, an SSRC of its own, and the MID and RID
    /// header extensions SFUs tell the layers apart by. `opaque`: the frames went through
    /// encoded filters (`OpaquePayloaders`).
    package static func simulcastPayloader(
        _ layer: SimulcastLayer, _ enc: EncodeSpec, opaque: Bool, at: SourceLocation?
    ) throws(RunError) -> (Element, UInt32) {
        let pay = try element(OpaquePayloaders.factory(for: enc.codec, opaque: opaque), at: at)
        var rtp = Self.simulcastParameters(enc)
        let ssrc = RTPSendParameters.randomSSRC()
        rtp.ssrc = ssrc
        rtp.rid = layer.rid
        do { try rtp.configure(pay, opaqueFrames: opaque) } catch {
            throw RunError("cannot set up simulcast layer '\(layer.rid)''s payloader: \(error.message)", at: at)
        }
        return (pay, ssrc)
    }

    /// What every layer's packets share: Sluice's payload type, the MID and the RID extension
    /// (and TWCC's with `adaptive_layers`).
    package static func simulcastParameters(_ enc: EncodeSpec) -> RTPSendParameters {
        var rtp = RTPSendParameters.offering(enc.codec, mid: MediaKind.video.rawValue, congestionControl: enc.adaptiveLayers)
        rtp.ridExtensionID = RTPSendParameters.offeredStreamIDExtensionID
        return rtp
    }

    /// What each simulcast layer sent, best first (empty without simulcast). The top layer's
    /// frames are the branch's own (`send.video`).
    package var simulcastReport: [RunSummary.SimulcastLayerReport] {
        let checked = counters.noted("send.video.simulcast_taken") != nil
        return state.withLock { $0.simulcastLayers }.enumerated().map { index, l in
            let c = counters, top = index == 0
            return RunSummary.SimulcastLayerReport(
                rid: l.layer.rid, width: l.width, height: l.height,
                frames: top ? c.sendVideoFrames.load(ordering: .relaxed) : l.sent.frames.load(ordering: .relaxed),
                keyframes: top ? c.sendVideoKeyframes.load(ordering: .relaxed) : l.sent.keyframes.load(ordering: .relaxed),
                bytes: top ? c.sendVideoBytes.load(ordering: .relaxed) : l.sent.bytes.load(ordering: .relaxed),
                keyframe_requests: l.sent.requests.load(ordering: .relaxed),
                switched_off: l.gate.counts?.off, switched_on: l.gate.counts?.on, taken_by_peer: checked ? !l.gate.isRefused : nil)
        }
    }

    /// The RTP caps webrtcbin reads the offer from: the codec and MID, the RID extension,
    /// `rid-<rid>=send` per layer and `a-simulcast` (`send h;m;l`, best first).
    package static func simulcastCaps(_ enc: EncodeSpec) -> String {
        var caps = simulcastParameters(enc).caps
        // The payloaders' MID extension puts `a-mid` in their own caps; the funnel's do not
        // carry it, and without it webrtcbin names the section otherwise (`video0`).
        caps += ",a-mid=(string)\(MediaKind.video.rawValue)"
        for layer in enc.simulcast { caps += ",rid-\(layer.rid)=(string)send" }
        caps += ",a-simulcast=(string)\"send \(enc.simulcast.map(\.rid).joined(separator: ";"))\""
        return caps
    }
}
