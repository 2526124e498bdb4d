import GStreamer

/// A served passthrough stream with `renditions`: the source's own stream is the best rung,
/// sent as it is; the rungs below it are decoded from it once and encoded.
///
/// ```
/// capture → parser → queue → tee (rung 0: the source, as it is) ─→ viewers
///                             └→ queue (leaky) → decoder → videoconvert → tee ─┬→ scale → encoder → tee (rung 1)
///                                                                              └→ …
/// ```
/// The decoder keeps the source's timestamps, so every rung carries the same frames at the
/// same times and a viewer moves between them as on any ladder (`RenditionSwitch`). A move
/// down is at the lower rung's next keyframe, which its encoder makes when asked. A move up
/// to the source waits for the source's own next keyframe: nothing can ask a passed-through
/// source for one. A viewer that starts on the source starts from its cached group of
/// pictures (`GOPCache`).
extension GraphBuilder {
    /// Builds the rungs below the source after `tee` (the passthrough stream's tee) and
    /// records the ladder, the source first.
    package func buildPassthroughLadder(_ branch: SendBranchSpec, from tee: Element) throws(RunError) {
        let enc = branch.encode
        let source = Rendition(
            name: SpecDecoder.sourceRenditionName, width: branch.capture.width, height: branch.capture.height,
            bitrateKbps: 0, location: enc.location)
        let top = RenditionOutput(rendition: source, index: 0, tee: tee, encoder: nil, keyframeRequests: nil)
        top.meter.count(at: tee)
        // Leaky: a decoder that falls behind loses its own frames (its pictures break until
        // the next keyframe) and never holds up the tee, which the source's viewers share.
        let decoding = [
            try make(
                "queue", [("max-size-buffers", "0"), ("max-size-bytes", "0"), ("max-size-time", "1000000000"), ("leaky", "downstream")],
                at: enc.location, name: "video-ladder-decode"),
            try make(DefaultElements.decoder(for: enc.codec), at: enc.location),
            try make("videoconvert", at: enc.location)
        ]
        try add(decoding)
        _ = try linkChain(decoding, media: .video, at: enc.location)
        guard let teePad = tee.requestPad("src_%u"), let entrance = decoding[0].staticPad("sink") else {
            throw RunError("the passthrough stream's tee refused the ladder's decoder", at: enc.location)
        }
        do { try teePad.link(entrance) } catch {
            throw RunError("cannot link the ladder's decoder: \(error.message)", at: enc.location)
        }
        let lower = try buildRungs(enc.renditions, of: branch, numberedFrom: 1, after: decoding[decoding.count - 1])
        state.withLock { $0.renditions = [top] + lower }
        counters.note("send.video.renditions", "source (passthrough) + \(lower.count) transcoded")
    }
}
