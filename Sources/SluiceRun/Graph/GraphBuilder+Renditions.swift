import GStreamer
import Synchronization

/// What one rung's encoder has made. Kept apart from `RenditionOutput` so the probe that
/// counts (on the rung's tee, which owns it) holds no reference back to the tee.
package final class RenditionMeter: Sendable {
    package let frames = Atomic<Int>(0)
    package let bytes = Atomic<Int>(0)
    package let window = Mutex(RateWindow())
    /// When the rung's first frame arrived (`StageTimer.now()`), 0 before.
    package let firstFrameNs = Atomic<UInt64>(0)
    /// When its latest frame arrived, 0 before the first.
    package let lastFrameNs = Atomic<UInt64>(0)
    /// A rung without a frame for this long has stopped (a simulcast publisher's layer that
    /// went away): viewers leave it and none are moved to it.
    package static let stoppedAfterNs: UInt64 = 700_000_000

    /// Whether frames came and then stopped for `stoppedAfterNs`.
    package func hasStopped(nowNs: UInt64) -> Bool {
        let last = lastFrameNs.load(ordering: .relaxed)
        return last > 0 && nowNs > last && nowNs - last > Self.stoppedAfterNs
    }

    /// Counts what enters `tee` (the rung's output).
    package func count(at tee: Element) {
        tee.staticPad("sink")?.addProbe { [self] (info: borrowing Pad.ProbeInfo) in
            let now = StageTimer.now()
            lastFrameNs.store(now, ordering: .relaxed)
            if frames.add(1, ordering: .relaxed).newValue == 1 { firstFrameNs.store(now, ordering: .relaxed) }
            bytes.add(info.buffer?.size ?? 0, ordering: .relaxed)
            return .ok
        }
    }

    /// The average rate since the first frame, bit/s; nil before half a second of frames.
    package func averageBitsPerSecond(nowNs: UInt64) -> Int? {
        let first = firstFrameNs.load(ordering: .relaxed)
        guard first > 0, nowNs > first + 500_000_000 else { return nil }
        return Int(Double(bytes.load(ordering: .relaxed)) * 8 / (Double(nowNs - first) / 1e9))
    }
}

/// One rung of a served ladder as built: its encoded output (a `tee` viewers attach to) and
/// what its encoder has made.
package final class RenditionOutput: Sendable {
    package let rendition: Rendition
    /// Where the rung is in the ladder (0: the best; a relayed simulcast layer's is its place
    /// when the viewer's rungs were ranked).
    package let index: Int
    package let tee: Element
    /// The rung's encoder (the first element of its encode stage).
    package let encoder: Element?
    /// The rung's encoder's keyframe-request limiter.
    package let keyframeRequests: KeyframeRequestLimiter?
    package let meter: RenditionMeter
    package var frames: Int { meter.frames.load(ordering: .relaxed) }
    package var bytes: Int { meter.bytes.load(ordering: .relaxed) }

    package init(
        rendition: Rendition, index: Int, tee: Element, encoder: Element?, keyframeRequests: KeyframeRequestLimiter?,
        meter: RenditionMeter = RenditionMeter()
    ) {
        self.rendition = rendition; self.index = index; self.tee = tee; self.encoder = encoder
        self.keyframeRequests = keyframeRequests; self.meter = meter
    }

    /// The same rung (tee, encoder, meter) under another name, size and place.
    package func named(_ name: String, width: Int, height: Int, index: Int) -> RenditionOutput {
        var r = rendition
        r.name = name; r.width = width; r.height = height
        return RenditionOutput(rendition: r, index: index, tee: tee, encoder: encoder, keyframeRequests: keyframeRequests, meter: meter)
    }

    /// Whether this rung is a source's stream passed through (no encoder, no nominal rate).
    package var isPassthrough: Bool { rendition.bitrateKbps == 0 }

    /// The rung's nominal bitrate, bit/s. A passed-through source has none: its average so
    /// far stands in (1 Mbit/s before it has sent half a second).
    package var bitsPerSecond: Int {
        isPassthrough ? meter.averageBitsPerSecond(nowNs: StageTimer.now()) ?? 1_000_000 : rendition.bitrateKbps * 1000
    }

    /// What the rung sends now, bit/s: measured over the last 2 s; the nominal rate until a
    /// second has been measured. Read often (each viewer's feedback reads it).
    package func rate(nowNs: UInt64) -> Int {
        let total = bytes
        let measured = meter.window.withLock { w -> Double? in
            w.add(bytes: total, nowNs: nowNs)
            return w.bitsPerSecond
        }
        return measured.map { Int($0) } ?? bitsPerSecond
    }
}

/// A served video branch with `encode.renditions`: the picture, filtered once, feeds one
/// scaler and encoder per rung.
///
/// ```
/// … filters → queue → track gate → tee ─┬→ queue → videoscale → videorate → caps (rung 1) → encoder → parser → tee
///                                        ├→ queue → videoscale → videorate → caps (rung 2) → encoder → parser → tee
///                                        └→ …
/// ```
/// Each rung's queue is leaky: a rung whose encoder falls behind drops its own frames, not
/// the other rungs'. Viewers attach to the rungs' tees (`ViewerSet`, `RenditionSwitch`).
extension GraphBuilder {
    /// Builds the rungs after `head` (the track gate) and records them; the first rung's tee
    /// is the branch's tee (its frames are the stream's encoded frames).
    package func buildLadder(_ branch: SendBranchSpec, after head: Element) throws(RunError) -> [RenditionOutput] {
        let outputs = try buildRungs(branch.encode.renditions, of: branch, numberedFrom: 0, after: head)
        state.withLock { $0.renditions = outputs }
        return outputs
    }

    /// One scaler and encoder per rung in `rungs` after `head` (raw video), behind a tee;
    /// rung `i` of the list is rung `first + i` of the ladder. Rung 0 is the stream's own
    /// (the branch's tee, its keyframe requests, the first frame).
    package func buildRungs(
        _ rungs: [Rendition], of branch: SendBranchSpec, numberedFrom first: Int, after head: Element
    ) throws(RunError) -> [RenditionOutput] {
        let enc = branch.encode
        let split = try make("tee", [("allow-not-linked", "true")], at: enc.location, name: "video-ladder")
        try add([split])
        do { try head.link(split) } catch { throw RunError("cannot link the ladder: \(error.message)", at: enc.location) }
        var outputs: [RenditionOutput] = []
        for (offset, rung) in rungs.enumerated() {
            let output = try buildRung(rung, index: first + offset, of: branch, from: split)
            if output.index == 0 {
                let tee = output.tee
                state.withLock {
                    $0.keyframeRequests = output.keyframeRequests
                    $0.tees[.video] = tee
                }
                countSent(at: tee.staticPad("sink"), video: true, marksFirstFrame: true)
            }
            outputs.append(output)
        }
        return outputs
    }

    /// queue → videoscale → videorate → caps → encoder → parser → tee for `rung`, fed by
    /// `split`. The queue is leaky: a rung whose encoder falls behind drops its own frames.
    private func buildRung(_ rung: Rendition, index: Int, of branch: SendBranchSpec, from split: Element) throws(RunError) -> RenditionOutput {
        let enc = branch.encode
        let at = rung.location ?? enc.location
        let fps = rung.fps ?? branch.capture.fps
        var caps = "video/x-raw,width=\(rung.width),height=\(rung.height),pixel-aspect-ratio=1/1"
        if rung.fps != nil { caps += ",framerate=\(fps)/1" }
        var chain = [
            try make(
                "queue", [("max-size-buffers", "2"), ("max-size-bytes", "0"), ("max-size-time", "0"), ("leaky", "downstream")],
                at: at),
            try make("videoscale", at: at),
            try make("videorate", [("drop-only", "true")], at: at),
            try make("capsfilter", [("caps", caps)], at: at)
        ]
        var rungEncode = enc
        rungEncode.bitrateKbps = rung.bitrateKbps
        rungEncode.renditions = []
        rungEncode.passthrough = false
        let encoding = try encoderChain(rungEncode, fps: fps)
        chain += encoding
        let tee = try make("tee", [("allow-not-linked", "true")], at: at, name: "video-rendition-\(index)")
        chain.append(tee)
        try add(chain)
        _ = try linkChain(chain, media: .video, at: at)
        guard let branchPad = split.requestPad("src_%u"), let entrance = chain[0].staticPad("sink") else {
            throw RunError("the ladder's tee refused rendition '\(rung.name)'", at: at)
        }
        do { try branchPad.link(entrance) } catch { throw RunError("cannot link rendition '\(rung.name)': \(error.message)", at: at) }
        let limiter = encoding.first?.staticPad("src").map { KeyframeRequestLimiter(watching: $0) }
        let output = RenditionOutput(rendition: rung, index: index, tee: tee, encoder: encoding.first, keyframeRequests: limiter)
        output.meter.count(at: tee)
        if index == 0, let stageTimer, let entry = encoding.first { stageTimer.timeEncoder(from: entry, to: tee) }
        return output
    }
}

extension GraphBuilder {
    /// The end of a send branch with a ladder: capture → filters → queue → gate, then the rungs.
    package func finishLadder(
        _ branch: SendBranchSpec, capture: [Element], filters: [Element], tail: [Element], queue: Element,
        gate: Element, into webrtcbin: Element?
    ) throws(RunError) {
        let enc = branch.encode
        guard webrtcbin == nil, sendEndsInTee else {
            throw RunError(
                "renditions are served to WHEP viewers (transport kind 'server'); a single peer gets one stream",
                at: enc.renditions.first?.location ?? enc.location)
        }
        try add(filters + tail)
        try linkSend(branch, capture: capture, filters: filters, tail: tail)
        watchEnd(of: queue)
        let outputs = try buildLadder(branch, after: gate)
        // The control API's bitrate and keyframe act on the best rung.
        let top = outputs.first?.encoder
        state.withLock {
            $0.sendControls[.video] = SendControl(
                media: .video, codec: enc.codec, gate: gate, encoder: top,
                encoderFactory: top?.factoryName)
        }
        counters.note("send.video.codec", enc.codec.rawValue)
    }

    /// The rungs of the video ladder, best first (empty without one).
    package var renditions: [RenditionOutput] { state.withLock { $0.renditions } }
}
