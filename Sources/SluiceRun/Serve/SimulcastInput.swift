import GStreamer

/// A publisher's simulcast transceiver fed by layers encoded elsewhere (the rungs of
/// `GraphBuilder.finishSharedSimulcast`, shared by a crowd of publishers): per layer a leaky
/// queue and a payloader of its own (a fresh SSRC, the layer's rid, the MID), into one
/// `rtpfunnel` → capsfilter (the rids and `a=simulcast`, as `GraphBuilder.simulcastCaps`) →
/// one webrtcbin input. Keyframe requests a service names by SSRC reach that layer's shared
/// encoder through `route`, once the connection is up.
package struct SimulcastInput {
    /// One layer's branch: the rung it is fed from, and its queue's input.
    package struct Layer {
        package var tee: Element
        package var entrance: Pad
        package var payloader: Element
    }

    /// Every element made, in the pipeline and linked.
    package var elements: [Element]
    /// The layers, best first (not yet linked to their rungs).
    package var layers: [Layer]
    /// Sends each keyframe request to the layer it names (`install()` once connected).
    package var route: SimulcastKeyframeRoute

    /// Builds the layers of `enc.simulcast` from `rungs` (one per layer, best first) into
    /// `webrtcbin`, whose transceiver for them takes `direction`.
    package static func build(
        _ enc: EncodeSpec, rungs: [RenditionOutput], into pipeline: Pipeline, webrtcbin: Element, direction: String = "sendonly"
    ) throws(GstError) -> SimulcastInput {
        let funnel = try Element.make("rtpfunnel")
        let caps = try Element.make("capsfilter")
        try caps.set("caps", fromString: GraphBuilder.simulcastCaps(enc))
        var elements = [funnel, caps]
        try pipeline.add(elements)
        try funnel.link(caps)
        var layers: [Layer] = [], outputs: [SimulcastLayerOutput] = []
        for (layer, rung) in zip(enc.simulcast, rungs) {
            let queue = try ViewerBranch.leakyQueue()
            let pay: Element, ssrc: UInt32
            do { (pay, ssrc) = try GraphBuilder.simulcastPayloader(layer, enc, opaque: false, at: layer.location) } catch {
                throw GstError(error.message)
            }
            try pipeline.add([queue, pay])
            try Element.link([queue, pay])
            guard let out = pay.staticPad("src"), let into = funnel.requestPad("sink_%u"), let entrance = queue.staticPad("sink"),
                let payIn = pay.staticPad("sink")
            else { throw GstError("the simulcast funnel refused layer '\(layer.rid)'") }
            try out.link(into)
            elements += [queue, pay]
            layers.append(Layer(tee: rung.tee, entrance: entrance, payloader: pay))
            outputs.append(
                SimulcastLayerOutput(
                    layer: layer, encoder: rung.encoder, ssrc: ssrc, entrance: payIn, keyframeRequests: rung.keyframeRequests,
                    width: rung.rendition.width, height: rung.rendition.height))
        }
        guard let sink = webrtcbin.requestPad("sink_%u"), let capsOut = caps.staticPad("src") else {
            throw GstError("webrtcbin refused the simulcast input")
        }
        if let transceiver = sink.objectProperty("transceiver", as: Object.self) { try transceiver.set("direction", fromString: direction) }
        try capsOut.link(sink)
        return SimulcastInput(elements: elements, layers: layers, route: SimulcastKeyframeRoute(layers: outputs, webrtcbin: webrtcbin))
    }
}
