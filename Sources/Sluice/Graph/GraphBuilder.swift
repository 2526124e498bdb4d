import Foundation
import GStreamer
import SluiceFilterKit
import Synchronization

/// Turns a `PipelineSpec` into GStreamer elements inside one pipeline.
///
/// Send branches are built up front and linked into the sending webrtcbin; receive branches
/// are built when the receiving webrtcbin exposes a decoded-to-be RTP pad (`pad-added`),
/// which happens on a GStreamer streaming thread.
final class GraphBuilder: Sendable {
    let spec: PipelineSpec
    let pipeline: Pipeline
    let counters: RunCounters

    private struct State {
        var receiveEntrances: [Pad] = []
        var sinkPads: [Pad] = []
        var recordings: [String: Recording] = [:]
        var builtMedia: Set<MediaKind> = []
        var error: RunError?
        var fileSources: [FileLooper] = []
        var sections: [BranchKey: FilterSection] = [:]
        /// Every Swift filter element made during the run (kept for their statistics).
        var swiftFilters: [Element] = []
        var tees: [MediaKind: Element] = [:]
        /// The webrtcbin input pad of each send branch.
        var webrtcInputs: [MediaKind: Pad] = [:]
        /// Receive filters swapped in before that branch was built.
        var pendingReceiveFilters: [MediaKind: [FilterSpec]] = [:]
    }
    private let state = Mutex(State())
    /// Serializes receive-branch builds (video and audio pads can appear on two threads at
    /// once and may share a muxer).
    private let buildLock = NSLock()

    /// Without a webrtcbin, send branches end in a `tee` (for viewers to attach to) instead
    /// of a discarding sink.
    let sendEndsInTee: Bool

    /// Times encoder and decoder residence when measuring (`sluice measure`).
    let stageTimer: StageTimer?

    init(spec: PipelineSpec, pipeline: Pipeline, counters: RunCounters, sendEndsInTee: Bool = false,
         stageTimer: StageTimer? = nil) {
        self.spec = spec; self.pipeline = pipeline; self.counters = counters; self.sendEndsInTee = sendEndsInTee
        self.stageTimer = stageTimer
    }

    /// The `tee` each send branch ends in (with `sendEndsInTee`), by medium.
    var tees: [MediaKind: Element] { state.withLock { $0.tees } }
    /// The webrtcbin input pad each send branch feeds, by medium.
    var webrtcInputs: [MediaKind: Pad] { state.withLock { $0.webrtcInputs } }

    /// Pads where EOS is injected on stop (RTP does not carry end-of-stream).
    var receiveEntrances: [Pad] { state.withLock { $0.receiveEntrances } }
    /// Sink pads of the receive branches' final elements (EOS there means flushed to disk).
    var receiveSinkPads: [Pad] { state.withLock { $0.sinkPads } }
    /// The first error a streaming-thread build hit, if any.
    var asyncError: RunError? { state.withLock { $0.error } }
    /// Statistics of the Swift filter elements made so far, in creation order.
    var swiftFilterStatistics: [FilterStatistics] {
        state.withLock { $0.swiftFilters }.compactMap(FilterStatisticsDirectory.statistics(of:))
    }

    /// The media whose receive branches are built.
    var builtReceiveMedia: Set<MediaKind> { state.withLock { $0.builtMedia } }

    // MARK: Elements

    /// Creates an element, telling the user which package to install if it is missing.
    func make(_ factory: String, _ properties: [(String, String)] = [], at location: SourceLocation? = nil,
              name: String? = nil) throws(RunError) -> Element {
        let element: Element
        do { element = try Element.make(factory, name: name) } catch {
            throw RunError(KnownElements.missingHint(for: factory), at: location)
        }
        for (k, v) in properties {
            guard element.hasProperty(k) else { continue }  // older/newer element versions
            do { try element.set(k, fromString: v) } catch {
                throw RunError(error.message, at: location)
            }
        }
        return element
    }

    private func make(_ factory: String, configuredBy properties: [Property], at location: SourceLocation?) throws(RunError) -> Element {
        let element = try make(factory, [(String, String)](), at: location)
        for p in properties {
            do { try element.set(p.name, fromString: p.value) } catch {
                throw RunError(error.message, at: p.location ?? location)
            }
        }
        return element
    }

    private func parse(_ fragment: String, at location: SourceLocation?) throws(RunError) -> Element {
        do { return try Bin.parse(GstLaunchFragment.normalized(fragment)) } catch {
            throw RunError("cannot build gst fragment '\(fragment)': \(error.message)", at: location)
        }
    }

    private func add(_ elements: [Element]) throws(RunError) {
        do { try pipeline.add(elements) } catch { throw RunError(error.message) }
    }

    /// Links a → b, inserting a converter only when their formats do not match directly.
    /// Returns the converter it inserted, if any.
    @discardableResult
    private func link(_ a: Element, _ b: Element, media: MediaKind, at location: SourceLocation?) throws(RunError) -> Element? {
        do { try a.link(b); return nil } catch {}
        let converter = try make(media == .video ? "videoconvert" : "audioconvert", at: location)
        try add([converter])
        do {
            try a.link(converter)
            try converter.link(b)
        } catch {
            throw RunError("\(error.message) (even through \(media == .video ? "videoconvert" : "audioconvert"))", at: location)
        }
        return converter
    }

    /// Links a chain from its end backwards, so each link is checked against what the rest
    /// of the chain really accepts (a queue's caps stand for its downstream's once linked).
    /// Returns the converters it inserted.
    @discardableResult
    private func linkChain(_ chain: [Element], media: MediaKind, at location: SourceLocation?) throws(RunError) -> [Element] {
        guard chain.count > 1 else { return [] }
        var converters: [Element] = []
        for i in (0..<(chain.count - 1)).reversed() {
            if let c = try link(chain[i], chain[i + 1], media: media, at: location) { converters.append(c) }
        }
        return converters
    }

    /// Links head → filters → tail and records that span as the branch's filter section,
    /// which `replaceFilters` can swap while the pipeline runs.
    private func linkSection(_ key: BranchKey, head: Element, filters: [Element], tail: Element,
                             at location: SourceLocation?) throws(RunError) {
        let converters = try linkChain([head] + filters + [tail], media: key.media, at: location)
        state.withLock { $0.sections[key] = FilterSection(head: head, tail: tail, elements: filters + converters) }
    }

    private func filterElements(_ filters: [FilterSpec]) throws(RunError) -> [Element] {
        var out: [Element] = []
        for f in filters {
            switch f.kind {
            case .element(let factory, let properties): out.append(try make(factory, configuredBy: properties, at: f.location))
            case .gst(let fragment): out.append(try parse(fragment, at: f.location))
            case .swift(let name, let settings, let onError):
                out.append(try swiftFilter(name, settings: settings, onError: onError, at: f.location))
            }
        }
        return out
    }

    /// A `sluice-NAME` element configured from the file's settings.
    func swiftFilter(_ name: String, settings: [FilterSetting], onError: FilterErrorPolicy,
                     at location: SourceLocation?) throws(RunError) -> Element {
        guard FilterRegistry.shared.filter(named: name) != nil else {
            throw RunError("no Swift filter named '\(name)' is registered in this program", at: location)
        }
        let element = try make("sluice-" + name, [(String, String)](), at: location)
        state.withLock { $0.swiftFilters.append(element) }
        do {
            for s in settings { try element.set(s.name, value: s.value.gValue) }
            try element.set("on-error", onError.rawValue)
        } catch {
            throw RunError("cannot configure filter '\(name)': \(error.message)", at: location)
        }
        return element
    }

    // MARK: Send side

    /// Builds capture → filters → encode → pay for one branch and links it to `webrtcbin`
    /// (or, without one, ends it in a fakesink after the encoder).
    func buildSend(_ branch: SendBranchSpec, into webrtcbin: Element?) throws(RunError) {
        let video = branch.media == .video
        let cap = branch.capture
        var chain: [Element] = []
        let rawCaps = video
            ? "video/x-raw,width=\(cap.width),height=\(cap.height),framerate=\(cap.fps)/1"
            : "audio/x-raw,rate=\(cap.rate),channels=\(cap.channels)"

        switch cap.kind {
        case .test:
            if video {
                chain.append(try make("videotestsrc", [("is-live", "\(cap.live)"), ("pattern", cap.pattern)], at: cap.location))
                chain.append(try make("capsfilter", [("caps", rawCaps + ",format=I420")], at: cap.location))
            } else {
                chain.append(try make("audiotestsrc", [("is-live", "\(cap.live)"), ("wave", cap.wave),
                                                       ("freq", "\(cap.frequency)"),
                                                       ("samplesperbuffer", "\(max(1, cap.rate / 50))")], at: cap.location))
                chain.append(try make("capsfilter", [("caps", rawCaps)], at: cap.location))
            }
        case .camera(let device):
            guard FileManager.default.fileExists(atPath: device) else {
                throw RunError("camera device \(device) does not exist: connect a camera, set capture.device to one "
                               + "that exists (ls /dev/video*), or use capture.kind: test", at: cap.location)
            }
            chain.append(try make("v4l2src", [("device", device)], at: cap.location))
            chain += try normalizer(video: true, caps: rawCaps, at: cap.location)
        case .file(let uri, let loop):
            // A file is not a live source: clocksync paces it to the pipeline clock.
            let pace = try make("clocksync", [("sync", "true"), ("sync-to-first", "true")], at: cap.location)
            chain = [pace] + (try normalizer(video: video, caps: rawCaps, at: cap.location))
            try add(chain)
            guard let entrance = pace.staticPad("sink") else { throw RunError("clocksync has no sink pad") }
            let source = FileLooper(uri: Self.uri(for: uri), media: branch.media, entrance: entrance,
                                    bin: pipeline, loop: loop)
            do { _ = try source.start() } catch {
                throw RunError(KnownElements.missingHint(for: "uridecodebin") + " (\(error.message))", at: cap.location)
            }
            state.withLock { $0.fileSources.append(source) }
            try finishSend(branch, from: chain, startIndex: 0, into: webrtcbin)
            return
        case .gst(let fragment):
            chain.append(try parse(fragment, at: cap.location))
            chain += try normalizer(video: video, caps: rawCaps, at: cap.location)
        case .swift(let name, let settings):
            guard let factory = FilterRegistry.shared.source(named: name) else {
                throw RunError("no Swift source named '\(name)' is registered in this program", at: cap.location)
            }
            let src = try make(factory.elementName, [("width", "\(cap.width)"), ("height", "\(cap.height)"),
                                                     ("fps", "\(cap.fps)"), ("format", factory.formats.first?.rawValue ?? "I420")],
                               at: cap.location)
            do {
                try SourceStateDirectory.state(of: src)?.configure(Dictionary(settings.map { ($0.name, $0.value) }, uniquingKeysWith: { $1 }))
            } catch {
                throw RunError("source '\(name)': \(error.message)", at: cap.location)
            }
            chain.append(src)
            chain += try normalizer(video: true, caps: rawCaps, at: cap.location)
        }
        try add(chain)
        try finishSend(branch, from: chain, startIndex: 0, into: webrtcbin)
    }

    /// convert → scale/resample → rate → capsfilter, so any capture ends in the branch's format.
    private func normalizer(video: Bool, caps: String, at location: SourceLocation?) throws(RunError) -> [Element] {
        if video {
            return [try make("videoconvert", at: location), try make("videoscale", at: location),
                    try make("videorate", [("drop-only", "true")], at: location),
                    try make("capsfilter", [("caps", caps + ",format=I420")], at: location)]
        }
        return [try make("audioconvert", at: location), try make("audioresample", at: location),
                try make("capsfilter", [("caps", caps)], at: location)]
    }

    private func finishSend(_ branch: SendBranchSpec, from capture: [Element], startIndex: Int,
                            into webrtcbin: Element?) throws(RunError) {
        let video = branch.media == .video
        let enc = branch.encode
        let filters = try filterElements(branch.filters)
        // Live captures drop the oldest frame when the encoder falls behind (latency beats
        // completeness); a file waits instead, since clocksync paces it anyway.
        let live: Bool
        switch branch.capture.kind {
        case .file: live = false
        case .test: live = branch.capture.live
        case .camera, .gst, .swift: live = true
        }
        let queue = try make("queue", [("max-size-buffers", "3"), ("max-size-bytes", "0"),
                                       ("max-size-time", "0"), ("leaky", live ? "downstream" : "no")], at: branch.location)
        var tail: [Element] = [queue]
        if !video { tail.append(try make("audioconvert", at: enc.location)); tail.append(try make("audioresample", at: enc.location)) }
        tail += try encoderChain(enc, fps: branch.capture.fps)
        if video, let stageTimer, tail.count >= 2, let exit = tail.last {
            stageTimer.timeInOrder(StageTimer.encode, from: tail[1], to: exit)  // encoder (+ caps, parser)
        }
        guard let webrtcbin else {
            let sink = sendEndsInTee
                ? try make("tee", [("allow-not-linked", "true")], at: branch.location)
                : try make("fakesink", [("sync", "false"), ("async", "false")], at: branch.location)
            if sendEndsInTee { state.withLock { $0.tees[branch.media] = sink } }
            tail.append(sink)
            try add(filters + tail)
            try linkSend(branch, capture: Array(capture[startIndex...]), filters: filters, tail: tail)
            watchEnd(of: queue)
            countSent(at: sink.staticPad("sink"), video: video, marksFirstFrame: true)
            counters.note("send.\(branch.media.rawValue).codec", enc.codec.rawValue)
            return
        }
        // Payload type, SSRC and MID pinned on the payloader and in the caps webrtcbin reads,
        // so the offer signals what the packets carry.
        let rtp = RTPSendParameters.offering(enc.codec, mid: branch.media.rawValue)
        let pay = try make(DefaultElements.payloader(for: enc.codec), [], at: enc.location)
        do { try rtp.configure(pay) } catch {
            throw RunError("cannot set up the \(branch.media.rawValue) payloader: \(error.message)", at: enc.location)
        }
        tail.append(pay)
        let rtpCaps = try make("capsfilter", [("caps", rtp.caps)], at: enc.location)
        tail.append(rtpCaps)
        try add(filters + tail)
        try linkSend(branch, capture: Array(capture[startIndex...]), filters: filters, tail: tail)
        watchEnd(of: queue)

        countSent(at: pay.staticPad("sink"), video: video, marksFirstFrame: false)
        guard let src = rtpCaps.staticPad("src"), let sinkPad = webrtcbin.requestPad("sink_%u") else {
            throw RunError("webrtcbin refused a new \(branch.media.rawValue) input", at: branch.location)
        }
        do { try src.link(sinkPad) } catch {
            throw RunError("cannot link the \(branch.media.rawValue) payloader to webrtcbin: \(error.message)", at: enc.location)
        }
        counters.note("send.\(branch.media.rawValue).codec", enc.codec.rawValue)
        state.withLock { $0.webrtcInputs[branch.media] = sinkPad }
    }

    /// Counts what is handed on after encoding: frames (video) or packets (audio).
    /// Links encoder side, capture side, then the filter section between them.
    private func linkSend(_ branch: SendBranchSpec, capture: [Element], filters: [Element], tail: [Element]) throws(RunError) {
        try linkChain(tail, media: branch.media, at: branch.location)
        try linkChain(capture, media: branch.media, at: branch.location)
        guard let head = capture.last, let first = tail.first else { throw RunError("empty send branch", at: branch.location) }
        try linkSection(BranchKey(side: .send, media: branch.media), head: head, filters: filters, tail: first,
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
    private func watchEnd(of queue: Element) {
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
    private func countSent(at pad: Pad?, video: Bool, marksFirstFrame: Bool) {
        guard let pad else { return }
        let counters = counters
        pad.addProbe { (info: borrowing Pad.ProbeInfo) in
            if video {
                counters.sendVideoFrames.add(1, ordering: .relaxed)
                counters.sendVideoBytes.add(info.buffer?.size ?? 0, ordering: .relaxed)
                if marksFirstFrame && counters.sendVideoFrames.load(ordering: .relaxed) == 1 { counters.markFirstFrame() }
            } else {
                counters.sendAudioBuffers.add(1, ordering: .relaxed)
            }
            return .ok
        }
    }

    /// encoder (+ profile caps) (+ parser), from an `encode` section.
    func encoderChain(_ enc: EncodeSpec, fps: Int) throws(RunError) -> [Element] {
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
        if let parser = DefaultElements.parser(for: enc.codec) {
            out.append(try make(parser, parser == "h264parse" ? [("config-interval", "-1")] : [], at: enc.location))
        }
        return out
    }

    static func uri(for pathOrURI: String) -> String {
        if pathOrURI.contains("://") { return pathOrURI }
        let url = URL(fileURLWithPath: pathOrURI)
        return url.absoluteString
    }

    // MARK: Receive side

    /// Builds depay → decode → filters → sink for a new RTP pad of the receiving webrtcbin.
    /// Called on a streaming thread; errors are recorded for the runner to report.
    func buildReceive(for pad: Pad) {
        buildLock.lock()
        defer { buildLock.unlock() }
        do throws(RunError) {
            try buildReceiveThrowing(for: pad)
        } catch {
            state.withLock { if $0.error == nil { $0.error = error } }
            _ = Message.postApplication(from: pipeline, Structure(name: "sluice-build-failed"))
        }
    }

    private func buildReceiveThrowing(for pad: Pad) throws(RunError) {
        guard pad.direction == .src else { return }
        guard let caps = pad.currentCaps ?? pad.queryCaps(), let s = caps.structure(at: 0) else {
            throw RunError("the receiving webrtcbin exposed a pad without caps")
        }
        let mediaName = s.get("media", as: String.self) ?? ""
        let encodingName = (s.get("encoding-name", as: String.self) ?? "").uppercased()
        guard let media = MediaKind(rawValue: mediaName) else { return }
        guard let codec = Codec.allCases.first(where: { $0.encodingName == encodingName }) else {
            throw RunError("the sender sent \(mediaName) as \(encodingName), which Sluice cannot decode")
        }
        let branch = (media == .video ? spec.receive?.video : spec.receive?.audio)
            ?? ReceiveBranchSpec(media: media, sink: SinkSpec(kind: .null))
        counters.note("receive.\(media.rawValue).codec", codec.rawValue)

        let video = media == .video
        var chain: [Element] = []
        // After a loss retransmission could not repair, wait for a keyframe and ask for one,
        // rather than decode damaged pictures until the next scheduled keyframe.
        chain.append(try make(DefaultElements.depayloader(for: codec),
                              video ? [("request-keyframe", "true"), ("wait-for-keyframe", "true")] : [], at: branch.location))
        if let parser = DefaultElements.parser(for: codec) { chain.append(try make(parser, at: branch.location)) }
        if branch.decode.none {
            try buildUndecoded(chain, branch: branch, media: media, pad: pad)
            return
        }
        let decoder: Element
        if let factory = branch.decode.element {
            decoder = try make(factory, configuredBy: branch.decode.properties, at: branch.decode.location)
        } else {
            decoder = try make(DefaultElements.decoder(for: codec), at: branch.location)
        }
        chain.append(decoder)
        if video { stageTimer?.time(StageTimer.decode, from: decoder) }
        let convert = try make(video ? "videoconvert" : "audioconvert", at: branch.location)
        chain.append(convert)
        let filterSpecs = state.withLock { $0.pendingReceiveFilters[media] } ?? branch.filters
        let filters = try filterElements(filterSpecs)
        let sink = try sinkElements(branch, media: media)
        try add(chain + filters + sink.owned)
        if let muxPad = sink.muxPad {
            guard let out = sink.owned.last?.staticPad("src") else { throw RunError("the encoder has no output pad", at: branch.location) }
            do { try out.link(muxPad) } catch { throw RunError(error.message, at: branch.sink.location) }
        }
        try linkChain(sink.owned, media: media, at: branch.location)
        try linkChain(chain, media: media, at: branch.location)
        guard let sinkFirst = sink.owned.first else { throw RunError("empty sink stage", at: branch.sink.location) }
        try linkSection(BranchKey(side: .receive, media: media), head: convert, filters: filters, tail: sinkFirst,
                        at: branch.location)
        let section = state.withLock { $0.sections[BranchKey(side: .receive, media: media)]?.elements } ?? []
        chain += section + sink.owned
        for e in chain.reversed() { e.syncStateWithParent() }
        if let sinkPad = sink.final.staticPad("sink") {
            state.withLock { s in if !s.sinkPads.contains(sinkPad) { s.sinkPads.append(sinkPad) } }
        }

        // Count decoded frames and learn their size.
        if let src = decoder.staticPad("src") {
            // Probe handlers capture only the counters: never the pad, the builder or the
            // pipeline, which own the probe (that would be a reference cycle).
            let counters = counters
            let audioIsFirstFrame = spec.send?.video == nil || spec.receive?.video == nil
            src.addProbe { (_: borrowing Pad.ProbeInfo) in
                if video {
                    if counters.receiveVideoFrames.add(1, ordering: .relaxed).newValue == 1 {
                        counters.markFirstFrame()
                    }
                } else {
                    if counters.receiveAudioBuffers.add(1, ordering: .relaxed).newValue == 1, audioIsFirstFrame {
                        counters.markFirstFrame()
                    }
                }
                return .ok
            }
            if video {
                src.addProbe(.eventDownstream) { (info: borrowing Pad.ProbeInfo) in
                    if info.event == .caps, let caps = info.currentCaps, let st = caps.structure(at: 0) {
                        counters.receiveVideoWidth.store(st.get("width", as: Int.self) ?? 0, ordering: .relaxed)
                        counters.receiveVideoHeight.store(st.get("height", as: Int.self) ?? 0, ordering: .relaxed)
                    }
                    return .ok
                }
            }
        }
        guard let entrance = chain[0].staticPad("sink") else { throw RunError("depayloader has no sink pad") }
        do { try pad.link(entrance) } catch {
            throw RunError("cannot link received \(media.rawValue) to \(chain[0]): \(error.message)", at: branch.location)
        }
        state.withLock {
            $0.receiveEntrances.append(entrance)
            $0.builtMedia.insert(media)
        }
    }

    /// A sink stage: elements this branch owns (to add and link), maybe a muxer pad to end
    /// in, and the element whose sink pad marks the end of the branch.
    private struct SinkStage {
        var owned: [Element]
        /// A reserved pad of a muxer shared with other branches, linked to last.
        var muxPad: Pad? = nil
        var final: Element
    }

    /// `decode: none`: depayloader (and parser) → sink, counting encoded frames.
    private func buildUndecoded(_ chain: [Element], branch: ReceiveBranchSpec, media: MediaKind, pad: Pad) throws(RunError) {
        let sink = try sinkElements(branch, media: media)
        let all = chain + sink.owned
        try add(all)
        try linkChain(all, media: media, at: branch.location)
        for e in all.reversed() { e.syncStateWithParent() }
        if let sinkPad = sink.final.staticPad("sink") {
            state.withLock { s in if !s.sinkPads.contains(sinkPad) { s.sinkPads.append(sinkPad) } }
        }
        if let src = chain.last?.staticPad("src") {
            let counters = counters, video = media == .video
            src.addProbe { (_: borrowing Pad.ProbeInfo) in
                let n = video ? counters.receiveVideoFrames.add(1, ordering: .relaxed).newValue
                              : counters.receiveAudioBuffers.add(1, ordering: .relaxed).newValue
                if n == 1 { counters.markFirstFrame() }
                return .ok
            }
        }
        guard let entrance = chain[0].staticPad("sink") else { throw RunError("depayloader has no sink pad") }
        do { try pad.link(entrance) } catch {
            throw RunError("cannot link the received \(media.rawValue) stream: \(error.message)", at: branch.location)
        }
        state.withLock { $0.receiveEntrances.append(entrance); $0.builtMedia.insert(media) }
    }

    private func sinkElements(_ branch: ReceiveBranchSpec, media: MediaKind) throws(RunError) -> SinkStage {
        let video = media == .video
        let sink = branch.sink
        switch sink.kind {
        case .stats, .null:
            let e = try make("fakesink", [("sync", "false"), ("async", "false")], at: sink.location)
            return SinkStage(owned: [e], final: e)
        case .display:
            let e = try make(video ? "autovideosink" : "autoaudiosink", [("sync", "true")], at: sink.location)
            return SinkStage(owned: [e], final: e)
        case .gst(let fragment):
            let e = try parse(fragment, at: sink.location)
            return SinkStage(owned: [e], final: e)
        case .file(let path, let container, let encode):
            let enc = encode ?? EncodeSpec(codec: container.defaultCodec(for: media),
                                           bitrateKbps: video ? 2000 : 64, location: sink.location)
            var chain: [Element] = [try make("queue", at: sink.location)]
            if !video { chain += [try make("audioresample", at: sink.location)] }
            chain += try encoderChain(enc, fps: spec.send?.video?.capture.fps ?? 30)
            // One muxer per output path (prepareRecordings): video and audio recorded to the
            // same file share it, each through its reserved pad.
            guard let recording = state.withLock({ $0.recordings[path] }), let pad = recording.reserved[media] else {
                throw RunError("no muxer was prepared for \(path)", at: sink.location)
            }
            return SinkStage(owned: chain, muxPad: pad, final: recording.fileSink)
        }
    }

    /// Creates the muxer and file sink of every recording, with one muxer pad reserved per
    /// medium that writes to it. This runs before any data flows: a muxer that gets audio
    /// before its video pad exists writes its headers without the video stream.
    func prepareRecordings() throws(RunError) {
        var byPath: [String: (Container, [MediaKind], SourceLocation?)] = [:]
        for branch in [spec.receive?.video, spec.receive?.audio].compactMap({ $0 }) {
            guard case .file(let path, let container, _) = branch.sink.kind else { continue }
            byPath[path, default: (container, [], branch.sink.location)].1.append(branch.media)
        }
        for (path, (container, media, location)) in byPath.sorted(by: { $0.key < $1.key }) {
            var props: [(String, String)] = []
            if container == .mkv || container == .webm { props.append(("streamable", "false")) }
            let mux = try make(DefaultElements.muxer(for: container), props, at: location)
            let fileSink = try make("filesink", [("location", path), ("async", "false")], at: location)
            try add([mux, fileSink])
            try mux.link(fileSinkOrThrow: fileSink)
            var reserved: [MediaKind: Pad] = [:]
            for m in media {
                guard let pad = mux.requestPad(m == .video ? "video_%u" : "audio_%u") else {
                    throw RunError("\(DefaultElements.muxer(for: container)) refused a \(m.rawValue) stream for \(path)", at: location)
                }
                reserved[m] = pad
            }
            state.withLock { $0.recordings[path] = Recording(fileSink: fileSink, reserved: reserved) }
        }
    }

    /// Muxer pads reserved for a medium that never arrived; they get EOS on stop so the
    /// file is finalized with what did arrive.
    var unusedRecordingPads: [Pad] {
        state.withLock { $0.recordings.values.flatMap { $0.reserved.values.filter { !$0.isLinked } } }
    }
}

/// A file being recorded: its sink and the muxer pads reserved per medium.
private struct Recording {
    var fileSink: Element
    var reserved: [MediaKind: Pad]
}

private extension Element {
    func link(fileSinkOrThrow other: Element) throws(RunError) {
        do { try link(other) } catch { throw RunError(error.message) }
    }
}

/// A branch: side and medium.
struct BranchKey: Hashable, Sendable {
    var side: BranchSide
    var media: MediaKind
}

/// The filters of a branch and the fixed elements around them.
struct FilterSection: Sendable {
    /// The element whose src pad feeds the first filter.
    var head: Element
    /// The element whose sink pad takes the last filter's output.
    var tail: Element
    /// The filters and any converters inserted between them.
    var elements: [Element]
}

// MARK: - Hot swap

extension GraphBuilder {
    /// Replaces a branch's filters while the pipeline runs: new elements are built first,
    /// then swapped in while the section's upstream pad is idle (a probe holds the next
    /// frame until the relink is done, so no frame is lost). The encoder downstream keeps
    /// its format (converters are inserted as needed), so the WebRTC session is untouched.
    /// A receive branch not built yet takes the filters when it is.
    func replaceFilters(side: BranchSide, media: MediaKind, with specs: [FilterSpec],
                        timeout: Double = 3) async throws(RunError) {
        let key = BranchKey(side: side, media: media)
        guard let section = state.withLock({ $0.sections[key] }) else {
            if side == .receive {
                state.withLock { $0.pendingReceiveFilters[media] = specs }
                return
            }
            throw RunError("there is no send.\(media.rawValue) branch whose filters could be replaced")
        }
        let fresh = try filterElements(specs)
        guard let headPad = section.head.staticPad("src") else { throw RunError("the filter section has no input pad") }
        let outcome = SwapOutcome()
        headPad.addProbe(.idle) { [weak self] (_: borrowing Pad.ProbeInfo) in
            guard let self, outcome.begin() else { return .remove }
            outcome.finish(self.swap(key, section, to: fresh))
            return .remove
        }
        let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
        while ContinuousClock.now < deadline {
            if let result = outcome.result { return try result.get() }
            try? await Task.sleep(for: .milliseconds(5))
        }
        if outcome.cancelIfNotStarted() {
            throw RunError("the \(side.rawValue).\(media.rawValue) branch did not become idle within \(timeout) s; filters unchanged")
        }
        while outcome.result == nil { try? await Task.sleep(for: .milliseconds(5)) }  // started: it finishes promptly
        try outcome.result?.get()
    }

    /// Runs with the section's input idle-blocked. Links the new filters in; on failure puts
    /// the old ones back and reports why.
    private func swap(_ key: BranchKey, _ section: FilterSection, to fresh: [Element]) -> Result<Void, RunError> {
        let old = section.elements
        let oldChain = [section.head] + old + [section.tail]
        for i in 0..<(oldChain.count - 1) { oldChain[i].unlink(oldChain[i + 1]) }
        do {
            try add(fresh)
            let converters = try linkChain([section.head] + fresh + [section.tail], media: key.media, at: nil)
            for e in (fresh + converters).reversed() { e.syncStateWithParent() }
            for e in old {
                e.setState(.null)
                try? pipeline.remove(e)
            }
            state.withLock { $0.sections[key]?.elements = fresh + converters }
            return .success(())
        } catch {
            // Put the running filters back: they were only unlinked.
            let partial = [section.head] + fresh + [section.tail]
            for i in 0..<(partial.count - 1) { partial[i].unlink(partial[i + 1]) }
            for e in fresh { e.setState(.null); try? pipeline.remove(e) }
            for i in 0..<(oldChain.count - 1) { try? oldChain[i].link(oldChain[i + 1]) }
            return .failure(error)
        }
    }
}

/// The result of a swap, handed from the probe's thread to the waiting task.
private final class SwapOutcome: Sendable {
    private enum Phase { case waiting, started, cancelled }
    private let state = Mutex<(phase: Phase, result: Result<Void, RunError>?)>((.waiting, nil))

    /// Claims the swap for the probe; false if the waiter gave up first.
    func begin() -> Bool {
        state.withLock { s in
            guard s.phase == .waiting else { return false }
            s.phase = .started
            return true
        }
    }
    func finish(_ r: Result<Void, RunError>) { state.withLock { $0.result = r } }
    var result: Result<Void, RunError>? { state.withLock { $0.result } }
    /// Gives up if the probe has not started; false if it has (the caller must wait).
    func cancelIfNotStarted() -> Bool {
        state.withLock { s in
            guard s.phase == .waiting else { return false }
            s.phase = .cancelled
            return true
        }
    }
}
