import Foundation
import GStreamer
import SluiceFilterKit
import Synchronization

/// The send side: capture → filters → encoder (→ payloader → webrtcbin, or → tee/sink).
extension GraphBuilder {
    // MARK: Send side

    /// Builds capture → filters → encode → pay for one branch and links it to `webrtcbin`
    /// (or, without one, ends it in a fakesink after the encoder).
    package func buildSend(_ branch: SendBranchSpec, into webrtcbin: Element?) throws(RunError) {
        let cap = branch.capture
        guard let kind = CaptureRegistry.capture(for: cap.kind) else {
            throw RunError("unknown capture kind '\(cap.kind.name)'", at: cap.location)
        }
        let rawCaps =
            branch.media == .video
            ? "video/x-raw,width=\(cap.width),height=\(cap.height),framerate=\(cap.fps)/1"
            : "audio/x-raw,rate=\(cap.rate),channels=\(cap.channels)"
        let selector = try fallbackSelector(for: branch)
        if let selector { try add([selector]) }
        if branch.encode.passthrough {
            let chain = try kind.buildEncoded(cap, media: branch.media, codec: branch.encode.codec, with: self)
            try finishPassthrough(branch, from: chain + [selector].compactMap { $0 }, into: webrtcbin)
        } else {
            let chain = try kind.build(cap, media: branch.media, rawCaps: rawCaps, with: self)
            try finishSend(branch, from: chain + [selector].compactMap { $0 }, into: webrtcbin)
        }
        if let selector { try armFallback(selector, for: branch) }
    }

    /// Passthrough: the capture's encoded, parsed stream → a queue → payloader → webrtcbin (or
    /// the tee viewers attach to). No filters, no encoder: nothing is decoded, so there is no
    /// track gate, bitrate control or keyframe to make either.
    private func finishPassthrough(_ branch: SendBranchSpec, from capture: [Element], into webrtcbin: Element?) throws(RunError) {
        // Not leaky: dropping encoded frames would break every frame that refers to them.
        let queue = try make(
            "queue", [("max-size-buffers", "0"), ("max-size-bytes", "0"), ("max-size-time", "2000000000")], at: branch.location)
        let encodedFilters = try passthroughEncodedFilters(branch)
        var tail = SendTail(queue: queue, gate: queue, elements: [queue] + encodedFilters)
        // The cache a new viewer starts from holds what viewers are sent: the frames after the
        // encoded filters (an `e2ee` stream's ciphertext), not the capture's.
        let cached = encodedFilters.last?.staticPad("src") ?? queue.staticPad("sink")
        if branch.media == .video, let cached, let exit = queue.staticPad("src") {
            let cache = GOPCache(watching: cached)
            let requests = PassthroughKeyframeRequests(watching: exit, source: "send.video (\(branch.capture.kind.name) capture, passthrough)")
            state.withLock {
                $0.gopCache = cache
                $0.passthroughKeyframeRequests = requests
            }
        }
        counters.note("send.\(branch.media.rawValue).passthrough", "true")
        let recordTee = try recordingTee(for: branch)
        if let recordTee { tail.elements.append(recordTee) }
        let ladder = branch.media == .video && !branch.encode.renditions.isEmpty
        if ladder, webrtcbin != nil || !sendEndsInTee {
            throw RunError(
                "renditions are served to WHEP viewers (transport kind 'server'); a single peer gets one stream",
                at: branch.encode.renditions.first?.location ?? branch.encode.location)
        }
        if let webrtcbin {
            try endInWebRTC(branch, capture: capture, filters: [], tail: tail, live: true, webrtcbin: webrtcbin)
        } else {
            try endWithoutWebRTC(branch, capture: capture, filters: [], tail: tail)
        }
        if ladder, let tee = tees[.video] { try buildPassthroughLadder(branch, from: tee) }
        if let recordTee { try attachRecording(of: branch, to: recordTee) }
    }

    /// convert → scale/resample → rate → capsfilter, so any capture ends in the branch's format.
    package func normalizer(video: Bool, caps: String, at location: SourceLocation?) throws(RunError) -> [Element] {
        if video {
            return [
                try make("videoconvert", at: location), try make("videoscale", at: location),
                try make("videorate", [("drop-only", "true")], at: location),
                try make("capsfilter", [("caps", caps + ",format=I420")], at: location)
            ]
        }
        return [
            try make("audioconvert", at: location), try make("audioresample", at: location),
            try make("capsfilter", [("caps", caps)], at: location)
        ]
    }

    /// The elements between a branch's filters and its encoder: the queue, and the track gate.
    package struct SendTail {
        /// The queue after the filters (leaky for live captures).
        package var queue: Element
        /// The track gate (`SendControl`): passthrough until the control API disables the
        /// track (black frames, or silence) or sets the volume.
        package var gate: Element
        /// Every element from the queue on, in order (the encoder and what follows are appended).
        package var elements: [Element]
    }

    /// Builds filters → queue → gate → encoder (→ payloader → webrtcbin, or → tee/sink) after
    /// `capture`, and links the whole branch.
    package func finishSend(_ branch: SendBranchSpec, from capture: [Element], into webrtcbin: Element?) throws(RunError) {
        let filters = try filterElements(branch.filters)
        // Live captures drop the oldest frame when the encoder falls behind (latency beats
        // completeness); a file waits instead, since clocksync paces it anyway (`Capture.isLive`).
        let live = CaptureRegistry.capture(for: branch.capture.kind)?.isLive(branch.capture) ?? true
        var tail = try sendTail(branch, live: live)
        if branch.media == .video, !branch.encode.renditions.isEmpty {
            if let first = branch.encodedFilters.first {
                throw RunError("encoded_filters cannot go with renditions yet: each rendition has its own encoder", at: first.location)
            }
            try finishLadder(
                branch, capture: capture, filters: filters, tail: tail.elements, queue: tail.queue,
                gate: tail.gate, into: webrtcbin)
            return
        }
        if branch.media == .video, !branch.encode.simulcast.isEmpty {
            try finishSimulcast(branch, capture: capture, filters: filters, tail: tail, into: webrtcbin)
            return
        }
        let mitigation = try mitigationStage(branch)
        tail.elements += mitigation?.elements ?? []
        try addEncoder(branch, to: &tail, mitigation: mitigation?.control)
        // `gop_cache`: viewers of a served stream start from the encoder's latest keyframe.
        if branch.encode.gopCache != nil, webrtcbin == nil, sendEndsInTee, let exit = tail.elements.last?.staticPad("src") {
            let cache = GOPCache(watching: exit)
            state.withLock { $0.gopCache = cache }
        }
        let recordTee = try recordingTee(for: branch)
        if let recordTee { tail.elements.append(recordTee) }
        if let webrtcbin {
            try endInWebRTC(branch, capture: capture, filters: filters, tail: tail, live: live, webrtcbin: webrtcbin)
        } else {
            try endWithoutWebRTC(branch, capture: capture, filters: filters, tail: tail)
        }
        if let recordTee { try attachRecording(of: branch, to: recordTee) }
    }

    /// The queue and the track gate of a branch (audio converts around its volume).
    private func sendTail(_ branch: SendBranchSpec, live: Bool) throws(RunError) -> SendTail {
        let enc = branch.encode
        let queue = try make(
            "queue",
            [
                ("max-size-buffers", "3"), ("max-size-bytes", "0"),
                ("max-size-time", "0"), ("leaky", live ? "downstream" : "no")
            ], at: branch.location)
        if branch.media == .video {
            let gate = try make("videobalance", at: enc.location, name: "\(branch.media.rawValue)-track")
            return SendTail(queue: queue, gate: gate, elements: [queue, gate])
        }
        let gate = try make("volume", at: enc.location, name: "\(branch.media.rawValue)-track")
        return SendTail(
            queue: queue, gate: gate,
            elements: [
                queue, try make("audioconvert", at: enc.location), gate,
                try make("audioconvert", at: enc.location), try make("audioresample", at: enc.location)
            ])
    }

    /// Thresholds in the file: videoscale ! videorate ! capsfilter before the encoder,
    /// passthrough until the target falls below them (`Mitigation`). Nil without thresholds.
    private func mitigationStage(_ branch: SendBranchSpec) throws(RunError) -> (elements: [Element], control: Mitigation)? {
        guard branch.media == .video, let adaptive = branch.encode.adaptive,
            adaptive.scaleBelowKbps != nil || adaptive.fpsBelowKbps != nil
        else { return nil }
        let filter = try make("capsfilter", [("caps", "video/x-raw")], at: adaptive.location, name: "video-mitigation")
        let elements = [
            try make("videoscale", at: adaptive.location),
            try make("videorate", [("drop-only", "true")], at: adaptive.location), filter
        ]
        let control = Mitigation(
            capsfilter: filter, width: branch.capture.width, height: branch.capture.height,
            fps: branch.capture.fps, scaleBelow: adaptive.scaleBelowKbps.map { $0 * 1000 },
            fpsBelow: adaptive.fpsBelowKbps.map { $0 * 1000 })
        return (elements, control)
    }

    /// The encoder chain, with what controls it: the branch's `SendControl`, the keyframe
    /// request limiter (video), and the stage timer's encoder probes.
    private func addEncoder(_ branch: SendBranchSpec, to tail: inout SendTail, mitigation: Mitigation?) throws(RunError) {
        let enc = branch.encode, video = branch.media == .video
        let encoding = try withEncodedFilters(branch, in: try encoderChain(enc, fps: branch.capture.fps))
        tail.elements += encoding
        state.withLock {
            var control = SendControl(
                media: branch.media, codec: enc.codec, gate: tail.gate,
                encoder: encoding.first, encoderFactory: encoding.first?.factoryName)
            control.mitigation = mitigation
            $0.sendControls[branch.media] = control
        }
        // Peers' PLIs and FIRs (and Sluice's own requests) reach the encoder at most every
        // half second; those in between become one request at its end.
        if video, let output = encoding.first?.staticPad("src") {
            let limiter = KeyframeRequestLimiter(watching: output)
            state.withLock { $0.keyframeRequests = limiter }
        }
        if let timer = stageTimer(for: branch.media), let entry = encoding.first, let exit = tail.elements.last {
            timer.timeEncoder(from: entry, to: exit) // encoder (+ caps, parser)
        }
    }

    /// Without WebRTC (`kind: none`, or a served stream's tee): the encoded stream ends in a
    /// fakesink, or a tee viewers' branches attach to.
    private func endWithoutWebRTC(
        _ branch: SendBranchSpec, capture: [Element], filters: [Element],
        tail: SendTail
    ) throws(RunError) {
        let sink =
            sendEndsInTee
            ? try make("tee", [("allow-not-linked", "true")], at: branch.location)
            : try make("fakesink", [("sync", "false"), ("async", "false")], at: branch.location)
        if sendEndsInTee { state.withLock { $0.tees[branch.media] = sink } }
        let elements = tail.elements + [sink]
        try add(filters + elements)
        try linkSend(branch, capture: capture, filters: filters, tail: elements)
        watchEnd(of: tail.queue)
        countSent(at: sink.staticPad("sink"), video: branch.media == .video, marksFirstFrame: true)
        counters.note("send.\(branch.media.rawValue).codec", branch.encode.codec.rawValue)
    }

    /// Into webrtcbin: payloader and RTP caps pinned (payload type, SSRC, MID, so the offer
    /// signals what the packets carry), the start gate, congestion control, the input pad.
    private func endInWebRTC(
        _ branch: SendBranchSpec, capture: [Element], filters: [Element], tail: SendTail,
        live: Bool, webrtcbin: Element
    ) throws(RunError) {
        let enc = branch.encode, video = branch.media == .video
        let rtp = RTPSendParameters.offering(enc.codec, mid: branch.media.rawValue, congestionControl: video && enc.adaptive != nil)
        let pay = try make(payloaderFactory(for: branch), [], at: enc.location)
        do {
            try rtp.configure(pay, opaqueFrames: !branch.encodedFilters.isEmpty)
        } catch {
            throw RunError("cannot set up the \(branch.media.rawValue) payloader: \(error.message)", at: enc.location)
        }
        let rtpCaps = try make("capsfilter", [("caps", rtp.caps)], at: enc.location)
        let elements = tail.elements + [pay, rtpCaps]
        try add(filters + elements)
        try linkSend(branch, capture: capture, filters: filters, tail: elements)
        watchEnd(of: tail.queue)
        if live { addStartGate(before: pay, video: video, media: branch.media) }
        countSent(at: pay.staticPad("sink"), video: video, marksFirstFrame: false)
        if video, let adaptive = enc.adaptive, let out = pay.staticPad("src"),
            let control = state.withLock({ $0.sendControls[branch.media] })
        {
            let cc = CongestionControl(limits: adaptive.limits, control: control, watching: out)
            state.withLock { $0.congestion = cc }
        }
        guard let src = rtpCaps.staticPad("src"), let sinkPad = webrtcbin.requestPad("sink_%u") else {
            throw RunError("webrtcbin refused a new \(branch.media.rawValue) input", at: branch.location)
        }
        do { try src.link(sinkPad) } catch {
            throw RunError("cannot link the \(branch.media.rawValue) payloader to webrtcbin: \(error.message)", at: enc.location)
        }
        counters.note("send.\(branch.media.rawValue).codec", enc.codec.rawValue)
        state.withLock {
            $0.webrtcInputs[branch.media] = sinkPad
            $0.sendRTP[branch.media] = SendRTP(payloader: pay, capsfilter: rtpCaps, input: sinkPad, parameters: rtp)
        }
    }

    /// Nothing encoded before the connection can carry it goes on (`StartGate`); the encoder
    /// keeps running, warm, and makes a keyframe when the gate opens, so the first frame the
    /// peer decodes is the one captured then. Live captures only: a file is content, sent
    /// whole from its first frame.
    private func addStartGate(before pay: Element, video: Bool, media: MediaKind) {
        guard let entrance = pay.staticPad("sink") else { return }
        let counters = counters
        let gate = StartGate(on: entrance, waitForKeyframe: video, cache: video ? gopCache : nil) {
            if video { counters.mark(StartUpStep.keyframeSent) }
        }
        state.withLock { $0.startGates[media] = (gate, entrance) }
    }

    /// Counts what is handed on after encoding: frames (video) or packets (audio).
    /// Links encoder side, capture side, then the filter section between them.
    package func linkSend(_ branch: SendBranchSpec, capture: [Element], filters: [Element], tail: [Element]) throws(RunError) {
        try linkChain(tail, media: branch.media, at: branch.location)
        try linkChain(capture, media: branch.media, at: branch.location)
        guard let head = capture.last, let first = tail.first else { throw RunError("empty send branch", at: branch.location) }
        try linkSection(
            BranchKey(side: .send, media: branch.media), head: head, filters: filters, specs: branch.filters, tail: first,
            at: branch.location)
        if branch.media == .video {
            // Frames in and out of the filter stage: what filters (or a swap) lose shows here.
            let counters = counters
            head.staticPad("src")?.addProbe { (_: borrowing Pad.ProbeInfo) in
                counters.captureVideoFrames.add(1, ordering: .relaxed)
                return .ok
            }
            first.staticPad("sink")?.addProbe { (_: borrowing Pad.ProbeInfo) in
                counters.filteredVideoFrames.add(1, ordering: .relaxed)
                return .ok
            }
        }
    }

    /// Counts a send branch as ended when its source's end-of-stream reaches the encoder
    /// queue (a file without `loop`, a fragment with `num-buffers`).
    package func watchEnd(of queue: Element) {
        let counters = counters
        queue.staticPad("sink")?.addProbe(.eventDownstream) { (info: borrowing Pad.ProbeInfo) in
            if info.event == .eos {
                counters.endedSendBranches.add(1, ordering: .relaxed)
                return .remove
            }
            return .ok
        }
    }

    /// Without a receiver (`transport: none`) the first encoded frame is the first frame.
    package func countSent(at pad: Pad?, video: Bool, marksFirstFrame: Bool) {
        guard let pad else { return }
        let counters = counters
        pad.addProbe { (info: borrowing Pad.ProbeInfo) in
            if video {
                let n = counters.sendVideoFrames.add(1, ordering: .relaxed).newValue
                counters.sendVideoBytes.add(info.buffer?.size ?? 0, ordering: .relaxed)
                if info.buffer?.isDeltaUnit == false {
                    counters.sendVideoKeyframes.add(1, ordering: .relaxed)
                    let asked = counters.keyframeRequestedAt.exchange(-1, ordering: .relaxed)
                    if asked >= 0 { counters.framesUntilKeyframe.store(max(1, n - asked), ordering: .relaxed) }
                }
                if marksFirstFrame && counters.sendVideoFrames.load(ordering: .relaxed) == 1 { counters.markFirstFrame() }
            } else {
                counters.sendAudioBuffers.add(1, ordering: .relaxed)
            }
            return .ok
        }
    }

    /// encoder (+ profile caps) (+ parser), from an `encode` section. `forPayloader`: the
    /// parser's output fixed to what the payloader takes (otherwise left to negotiation,
    /// for a muxer that wants another stream format).
    package func encoderChain(_ enc: EncodeSpec, fps: Int, forPayloader: Bool = true) throws(RunError) -> [Element] {
        var out: [Element] = []
        if let fragment = enc.gst {
            out.append(try parse(fragment, at: enc.location))
        } else {
            let factory = enc.element ?? DefaultElements.encoder(for: enc.codec)
            let element = try make(factory, EncoderPresets.encoderProperties(enc, element: factory, fps: fps), at: enc.location)
            for p in enc.properties {
                do { try element.set(p.name, fromString: p.value) } catch { throw RunError(error.message, at: p.location) }
            }
            out.append(element)
        }
        if let caps = EncoderPresets.encodedCaps(for: enc.codec, preset: enc.preset) {
            out.append(try make("capsfilter", [("caps", caps)], at: enc.location))
        }
        return out + (try parserChain(for: enc.codec, at: enc.location, forPayloader: forPayloader))
    }

    /// The codec's parser (H.264: SPS/PPS with every keyframe) and the caps the payloader
    /// takes, after an encoder or a passthrough source's depayloader.
    package func parserChain(for codec: Codec, at location: SourceLocation?, forPayloader: Bool = true) throws(RunError) -> [Element] {
        var out: [Element] = []
        if let parser = DefaultElements.parser(for: codec) {
            out.append(try make(parser, parser == "h264parse" ? [("config-interval", "-1")] : [], at: location))
        }
        if forPayloader, let caps = EncoderPresets.parsedCaps(for: codec) {
            out.append(try make("capsfilter", [("caps", caps)], at: location))
        }
        return out
    }

    package static func uri(for pathOrURI: String) -> String {
        if pathOrURI.contains("://") { return pathOrURI }
        let url = URL(fileURLWithPath: pathOrURI)
        return url.absoluteString
    }
}
