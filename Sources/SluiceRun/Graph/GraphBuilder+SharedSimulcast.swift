import GStreamer

/// Simulcast layers encoded once for many publishers (`sluice load` with `encode.simulcast`,
/// the send section ending in tees): each layer's scaler and encoder end in a tee of its own,
/// as a served ladder's rungs do, and every publisher takes its own payloader per layer from
/// them (`SimulcastInput`).
extension GraphBuilder {
    /// capture → filters → queue → gate, then one rung per simulcast layer, best first.
    package func finishSharedSimulcast(
        _ branch: SendBranchSpec, capture: [Element], filters: [Element], tail: SendTail
    ) throws(RunError) {
        let enc = branch.encode
        let at = enc.simulcast.first?.location ?? enc.location
        guard branch.encodedFilters.isEmpty else {
            throw RunError(
                "a crowd's simulcast layers are encoded once and go out without encoded filters; remove 'encoded_filters' or 'simulcast'",
                at: at)
        }
        try add(filters + tail.elements)
        try linkSend(branch, capture: capture, filters: filters, tail: tail.elements)
        watchEnd(of: tail.queue)
        let rungs = enc.simulcast.map { layer in
            let size = layer.size(of: branch.capture)
            return Rendition(name: layer.rid, width: size.width, height: size.height, bitrateKbps: layer.bitrateKbps, location: layer.location)
        }
        guard let head = tail.elements.last else { throw RunError("the simulcast branch has no end to split", at: at) }
        let outputs = try buildRungs(rungs, of: branch, numberedFrom: 0, after: head)
        let top = outputs.first?.encoder
        state.withLock {
            $0.renditions = outputs
            $0.sendControls[.video] = SendControl(
                media: .video, codec: enc.codec, gate: tail.gate, encoder: top, encoderFactory: top?.factoryName)
        }
        counters.note("send.video.codec", enc.codec.rawValue)
        counters.note("send.video.simulcast", enc.simulcast.map(\.rid).joined(separator: ","))
    }
}
