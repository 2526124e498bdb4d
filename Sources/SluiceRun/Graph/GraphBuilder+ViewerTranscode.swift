import GStreamer
import Logging

/// `passthrough: auto`: a served video stream passes through to viewers whose decoders take
/// the source as it is, and is decoded and encoded again for the others, by one encoder per
/// codec made when the first of them comes: H.264 Constrained Baseline for a camera's High
/// stream and aiortc, or an old phone, which offer Constrained Baseline only; VP8 for
/// Firefox without OpenH264, which offers no H.264 at all.
///
/// ```
/// capture → parser → queue → tee (the source, as it is) ─→ viewers that take its profile
///                             └→ queue (leaky) → [gate] decoder → videoconvert → x264 → parser → tee ─→ the others
///                             └→ queue (leaky) → [gate] decoder → videoconvert → vp8enc → tee ─→ those without H.264
/// ```
/// The branch starts at once from the source's cached group of pictures (`GOPCache`): a gate
/// at the decoder's input sends the group into the decoder first, so the decoder has its
/// keyframe without waiting for the source's next. The branch is removed when the last of
/// its viewers leaves, and made again for the next (`SharedBranch`).
extension GraphBuilder {
    private static let transcodeLogger = Logger(label: "sluice.serve")

    /// The stream encoded again in `codec` for viewers (`passthrough: auto`): a branch made
    /// on its first `acquire()` and removed on its last `release()`.
    package func viewerTranscode(for branch: SendBranchSpec, to codec: Codec) -> SharedBranch {
        viewerTranscodeState.withLock { (shared: inout [Codec: SharedBranch]) -> SharedBranch in
            if let made = shared[codec] { return made }
            let name = spec.name
            let made = SharedBranch(in: pipeline) { [weak self] () throws(RunError) -> SharedBranch.Built in
                guard let self else { throw RunError("the stream has ended") }
                return try self.buildViewerTranscode(branch, to: codec)
            } removed: {
                Self.transcodeLogger.notice(
                    "'\(name)': no viewer needs the stream encoded again as \(Self.described(codec)) any more; its encoder is stopped")
            }
            shared[codec] = made
            return made
        }
    }

    /// The stream's shared re-encodings for viewers made so far, by codec.
    package var viewerTranscodes: [Codec: SharedBranch] { viewerTranscodeState.withLock { $0 } }

    private static func described(_ codec: Codec) -> String { codec == .h264 ? "Constrained Baseline" : codec.encodingName }

    private func buildViewerTranscode(_ branch: SendBranchSpec, to codec: Codec) throws(RunError) -> SharedBranch.Built {
        let at = branch.encode.transcodeForViewers ?? branch.encode.location
        guard let source = tees[.video] else { throw RunError("the stream has no video to encode again", at: at) }
        let decoding = [
            try make(
                "queue", [("max-size-buffers", "0"), ("max-size-bytes", "0"), ("max-size-time", "1000000000"), ("leaky", "downstream")],
                at: at),
            try make(DefaultElements.decoder(for: branch.encode.codec), at: at),
            try make("videoconvert", at: at)
        ]
        let encoding = try encoderChain(EncodeSpec(codec: codec, bitrateKbps: branch.encode.transcodeKbps, location: at), fps: branch.capture.fps)
        let tee = try make("tee", [("allow-not-linked", "true")], at: at, name: "video-transcoded-\(codec.rawValue)")
        let chain = decoding + encoding + [tee]
        try add(chain)
        let input: (tee: Element, pad: Pad)
        do { input = try startViewerTranscode(chain, from: source, at: at) } catch {
            pipeline.removeBranch(chain, teePads: [])
            throw error
        }
        if let output = encoding.first?.staticPad("src") { _ = KeyframeRequestLimiter(watching: output) }
        counters.note("send.video.transcoded_for_viewers.\(codec.rawValue)", Self.described(codec))
        // A warning each time it is made: the stream now costs a decoder and an encoder.
        Self.transcodeLogger.warning(
            "'\(spec.name)': a viewer cannot decode the source as it is; encoding it again as \(Self.described(codec)) at \(branch.encode.transcodeKbps) kbit/s for such viewers"
        )
        return SharedBranch.Built(output: tee, elements: chain, input: input)
    }

    /// Links the branch (queue, decoder, convert, encoder…, tee), starts it, and feeds it from
    /// the source's tee; returns the request pad it holds there.
    private func startViewerTranscode(_ chain: [Element], from source: Element, at: SourceLocation?) throws(RunError) -> (tee: Element, pad: Pad) {
        _ = try linkChain(chain, media: .video, at: at)
        guard let entrance = chain[0].staticPad("sink"), let decoderInput = chain[1].staticPad("sink") else {
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
        do { try teePad.link(entrance) } catch {
            source.releaseRequestPad(teePad)
            throw RunError("cannot link the transcoding branch: \(error.message)", at: at)
        }
        return (source, teePad)
    }

}
