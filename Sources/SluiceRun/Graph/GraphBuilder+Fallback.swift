import GStreamer

/// `capture.fallback`: the switch between a live source and what is sent while it is away.
extension GraphBuilder {
    /// The `input-selector` a branch's capture ends in when its capture has a fallback (nil
    /// otherwise). Raw media may lose a frame at the switch back rather than go backwards in
    /// time; encoded media keeps the keyframe it switches at.
    package func fallbackSelector(for branch: SendBranchSpec) throws(RunError) -> Element? {
        guard let fallback = branch.capture.fallback else { return nil }
        return try make(
            "input-selector",
            [("sync-streams", "false"), ("cache-buffers", "false"), ("drop-backwards", branch.encode.passthrough ? "false" : "true")],
            at: fallback.location)
    }

    /// Once the branch is linked: the switch that watches the selector's first pad (the
    /// source's) and puts the fallback on air while the source is silent. The supervisor
    /// starts, stops and reports it with the run's sources.
    package func armFallback(_ selector: Element, for branch: SendBranchSpec) throws(RunError) {
        let capture = branch.capture
        guard let spec = capture.fallback, let input = selector.staticPad("sink_0") else {
            throw RunError("the fallback switch has no input from the source", at: capture.fallback?.location)
        }
        let slate = FallbackSlate(spec: spec, media: branch.media, codec: branch.encode.passthrough ? branch.encode.codec : nil)
        let picture = FallbackSlate.Picture(width: capture.width, height: capture.height, fps: capture.fps)
        let label = CaptureRegistry.capture(for: capture.kind)?.sourceLabel(of: capture) ?? "\(capture.kind.name) capture"
        let fallback = FallbackSwitch(source: label, slate: slate, selector: selector, input: input, pipeline: pipeline) {
            [weak self] (caps: Caps) throws(RunError) -> [Element] in
            guard let self else { throw RunError("the run is ending") }
            return try slate.elements(matching: caps, default: picture, with: self)
        }
        // A passed-through stream's keyframe requests go unanswered, except while the slate,
        // which has an encoder, is on air.
        if branch.media == .video, branch.encode.passthrough, let requests = state.withLock({ $0.passthroughKeyframeRequests }) {
            requests.letThrough { [weak fallback] in fallback?.isOnAir ?? false }
        }
        supervisor.watch(fallback: fallback)
    }
}
