import GStreamer
import Logging

/// `passthrough: auto`: a served H.264 stream passes through to viewers whose decoders take
/// the source's profile, and is decoded and encoded again as Constrained Baseline for the
/// others, by one encoder made when the first of them comes (a camera's High stream and
/// aiortc, or an old phone, which offer Constrained Baseline only).
///
/// ```
/// capture → parser → queue → tee (the source, as it is) ─→ viewers that take its profile
///                             └→ queue (leaky) → [gate] decoder → videoconvert → x264 → parser → tee ─→ the others
/// ```
/// The branch starts at once from the source's cached group of pictures (`GOPCache`): a gate
/// at the decoder's input sends the group into the decoder first, so the decoder has its
/// keyframe without waiting for the source's next. It stays until the stream ends.
extension GraphBuilder {
    private static let transcodeLogger = Logger(label: "sluice.serve")

    /// The tee of the stream encoded again for viewers (`passthrough: auto`), built on the
    /// first call.
    func viewerTranscodeTee(for branch: SendBranchSpec) throws(RunError) -> Element {
        try viewerTranscode.withLock { (built: inout Element?) throws(RunError) -> Element in
            if let built { return built }
            let tee = try buildViewerTranscode(branch)
            built = tee
            return tee
        }
    }

    private func buildViewerTranscode(_ branch: SendBranchSpec) throws(RunError) -> Element {
        let at = branch.encode.transcodeForViewers ?? branch.encode.location
        guard let source = tees[.video] else { throw RunError("the stream has no video to encode again", at: at) }
        let decoding = [
            try make(
                "queue", [("max-size-buffers", "0"), ("max-size-bytes", "0"), ("max-size-time", "1000000000"), ("leaky", "downstream")],
                at: at),
            try make(DefaultElements.decoder(for: branch.encode.codec), at: at),
            try make("videoconvert", at: at)
        ]
        let encoding = try encoderChain(EncodeSpec(codec: .h264, bitrateKbps: Self.viewerTranscodeKbps, location: at), fps: branch.capture.fps)
        let tee = try make("tee", [("allow-not-linked", "true")], at: at, name: "video-transcoded")
        let chain = decoding + encoding + [tee]
        try add(chain)
        _ = try linkChain(chain, media: .video, at: at)
        if let output = encoding.first?.staticPad("src") { _ = KeyframeRequestLimiter(watching: output) }
        guard let entrance = decoding[0].staticPad("sink"), let decoderInput = decoding[1].staticPad("sink") else {
            throw RunError("the transcoding branch has no input", at: at)
        }
        // From a keyframe: the cached group goes into the decoder first, then the source's
        // frames as they come. The gate is at the decoder's input, so the group is sent from
        // the queue's thread, the only one that feeds the decoder: sent from the tee's, it
        // raced the queue's own stream-start, which makes the decoder drain and lose its
        // reference pictures (grey frames until the source's next keyframe: 6 runs of 13; 0 of 5 since).
        let gate = StartGate(on: decoderInput, waitForKeyframe: true, cache: gopCache)
        gate.open()
        for element in chain.reversed() { element.syncStateWithParent() }
        guard let teePad = source.requestPad("src_%u") else { throw RunError("the stream's tee refused the transcoding branch", at: at) }
        do { try teePad.link(entrance) } catch { throw RunError("cannot link the transcoding branch: \(error.message)", at: at) }
        counters.note("send.video.transcoded_for_viewers", "h264 constrained-baseline")
        // A warning, once: the stream now costs a decoder and an encoder.
        Self.transcodeLogger.warning(
            "'\(spec.name)': a viewer cannot decode the source's H.264 profile; encoding it again as Constrained Baseline at \(Self.viewerTranscodeKbps) kbit/s for such viewers"
        )
        return tee
    }

    /// The bitrate the stream is encoded again at for viewers (`passthrough: auto`), kbit/s.
    static let viewerTranscodeKbps = 2000
}
