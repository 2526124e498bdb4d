import Foundation
import GStreamer
import SluiceFilterKit
import Synchronization

/// The receive side: depayloader → decoder → filters → sink, built as webrtcbin exposes each
/// stream; recordings shared by media.
extension GraphBuilder {
    // MARK: Receive side

    /// Builds depay → decode → filters → sink for a new RTP pad of the receiving webrtcbin.
    /// Called on a streaming thread; errors are recorded for the runner to report.
    /// Loads the plugins of the depayloaders, parsers and decoders for `codecs`, by making
    /// each once. A receive branch is built when its first packet arrives, on the streaming
    /// thread that carries it; loading a plugin there (libav for H.264: ~100 ms) held the
    /// first frames back, to arrive later as a burst. The loading runs on a thread of its
    /// own: done in line it cost the run's start 60 ms (libav), while negotiation and ICE,
    /// which come first, need none of these plugins.
    package func prewarmReceive(_ codecs: [Codec]) {
        let thread = Thread {
            for codec in codecs {
                let names =
                    [DefaultElements.depayloader(for: codec), DefaultElements.decoder(for: codec)]
                    + [DefaultElements.parser(for: codec)].compactMap { $0 }
                for name in names { _ = try? Element.make(name) }
            }
            for name in ["videoconvert", "audioconvert", "fakesink", "appsink"] { _ = try? Element.make(name) }
        }
        thread.name = "sluice-receive-warmup"
        thread.start()
    }

    /// Builds the receive branch of what arrived on `pad`. With `firstOfEachMedium` (a WHIP
    /// publisher, whose offer has one section per medium), a second stream of a medium
    /// (another layer of a simulcast sender whose simulcast the answer did not take) goes to
    /// a fakesink.
    package func buildReceive(for pad: Pad, firstOfEachMedium: Bool = false) {
        buildLock.lock()
        defer { buildLock.unlock() }
        let media = (pad.currentCaps ?? pad.queryCaps())?.structure(at: 0)?.get("media", as: String.self).flatMap(MediaKind.init)
        let again = firstOfEachMedium && media.map { m in !state.withLock { $0.receivedMedia.insert(m).inserted } } == true
        do throws(RunError) {
            if again { try discard(pad) } else { try buildReceiveThrowing(for: pad) }
        } catch {
            state.withLock { if $0.error == nil { $0.error = error } }
            _ = Message.postApplication(from: pipeline, Structure(name: "sluice-build-failed"))
        }
    }

    /// What arrived on one of webrtcbin's pads: its medium and codec, and the branch that
    /// takes it (a default null branch for media the file does not receive).
    package struct ArrivingStream {
        package var media: MediaKind
        package var codec: Codec
        package var branch: ReceiveBranchSpec

        package init(media: MediaKind, codec: Codec, branch: ReceiveBranchSpec) {
            self.media = media; self.codec = codec; self.branch = branch
        }
    }

    package func buildReceiveThrowing(for pad: Pad) throws(RunError) {
        guard pad.direction == .src, let stream = try arrivingStream(on: pad) else { return }
        let media = stream.media, branch = stream.branch
        counters.note("receive.\(media.rawValue).codec", stream.codec.rawValue)
        if media == .video {
            let counters = counters
            pad.addProbe(.buffer) { (_: borrowing Pad.ProbeInfo) in
                counters.mark(StartUpStep.firstRTP)
                return .remove
            }
        }
        var chain = try depayloading(stream)
        if branch.decode.none {
            try buildUndecoded(chain, branch: branch, media: media, pad: pad)
            return
        }
        let decoder =
            if let factory = branch.decode.element {
                try make(factory, configuredBy: branch.decode.properties, at: branch.decode.location)
            } else {
                try make(DefaultElements.decoder(for: stream.codec), at: branch.location)
            }
        if !branch.encodedFilters.isEmpty { Self.asksForKeyframesOnMissingData(decoder) }
        stageTimer(for: media)?.timeDecoder(decoder)
        let convert = try make(media == .video ? "videoconvert" : "audioconvert", at: branch.location)
        let playout = try playoutSync(for: branch)
        chain += [decoder, convert] + [playout].compactMap { $0 }
        chain += try linkFiltersAndSink(branch, media: media, after: chain, convert: playout ?? convert)
        for e in chain.reversed() { e.syncStateWithParent() }
        announcePlayout(playout)
        countDecoded(at: decoder, video: media == .video)
        guard let entrance = chain[0].staticPad("sink") else { throw RunError("depayloader has no sink pad") }
        do { try pad.link(entrance) } catch {
            throw RunError("cannot link received \(media.rawValue) to \(chain[0]): \(error.message)", at: branch.location)
        }
        state.withLock {
            $0.receiveEntrances.append(entrance)
            $0.builtMedia.insert(media)
        }
    }

    /// The medium and codec `pad` carries (nil: not audio or video), and its branch.
    private func arrivingStream(on pad: Pad) throws(RunError) -> ArrivingStream? {
        guard let caps = pad.currentCaps ?? pad.queryCaps(), let s = caps.structure(at: 0) else {
            throw RunError("the receiving webrtcbin exposed a pad without caps")
        }
        let mediaName = s.get("media", as: String.self) ?? ""
        let encodingName = (s.get("encoding-name", as: String.self) ?? "").uppercased()
        guard let media = MediaKind(rawValue: mediaName) else { return nil }
        guard let codec = Codec.allCases.first(where: { $0.encodingName == encodingName }) else {
            throw RunError("the sender sent \(mediaName) as \(encodingName), which Sluice cannot decode")
        }
        let branch =
            (media == .video ? spec.receive?.video : spec.receive?.audio)
            ?? ReceiveBranchSpec(media: media, sink: SinkSpec(kind: .null))
        return ArrivingStream(media: media, codec: codec, branch: branch)
    }

    /// A second stream of one medium from the peer (a simulcast sender's other layer, when
    /// the answer did not take its simulcast): into a fakesink, so nothing stops on it.
    private func discard(_ pad: Pad) throws(RunError) {
        let sink = try make("fakesink", [("sync", "false"), ("async", "false")])
        try add([sink])
        sink.syncStateWithParent()
        guard let input = sink.staticPad("sink") else { return }
        do { try pad.link(input) } catch { throw RunError("cannot discard a second stream: \(error.message)") }
    }

    /// Depayloader, the branch's encoded filters, then the parser (`receivedEncodedFilters`).
    /// After a loss retransmission could not repair, video waits for a keyframe and asks for
    /// one, rather than decode damaged pictures until the next scheduled keyframe.
    package func depayloading(_ stream: ArrivingStream) throws(RunError) -> [Element] {
        let video = stream.media == .video, at = stream.branch.location
        var chain = [
            try make(
                DefaultElements.depayloader(for: stream.codec),
                video ? [("request-keyframe", "true"), ("wait-for-keyframe", "true")] : [], at: at)
        ]
        chain += try receivedEncodedFilters(stream)
        if let parser = DefaultElements.parser(for: stream.codec) { chain.append(try make(parser, at: at)) }
        return chain
    }

    /// Adds and links the branch after `convert`: its filter section and its sink stage.
    /// Returns the elements added after `chain` (filters, sink).
    private func linkFiltersAndSink(
        _ branch: ReceiveBranchSpec, media: MediaKind, after chain: [Element],
        convert: Element
    ) throws(RunError) -> [Element] {
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
        try linkSection(
            BranchKey(side: .receive, media: media), head: convert, filters: filters, specs: filterSpecs, tail: sinkFirst,
            at: branch.location)
        if let sinkPad = sink.final.staticPad("sink") {
            state.withLock { s in if !s.sinkPads.contains(sinkPad) { s.sinkPads.append(sinkPad) } }
        }
        let section = state.withLock { $0.sections[BranchKey(side: .receive, media: media)]?.elements } ?? []
        return section + sink.owned
    }

    /// Counts decoded frames (the first marks the first frame), learns the picture's size and
    /// the sound's level. Probe handlers capture only the counters: never the pad, the builder
    /// or the pipeline, which own the probe (that would be a reference cycle).
    private func countDecoded(at decoder: Element, video: Bool) {
        guard let src = decoder.staticPad("src") else { return }
        let counters = counters
        let audioIsFirstFrame = spec.send?.video == nil || spec.receive?.video == nil
        src.addProbe { (info: borrowing Pad.ProbeInfo) in
            if video {
                if counters.countDecodedVideoFrame() == 1 { counters.markFirstFrame() }
                return .ok
            }
            if counters.receiveAudioBuffers.add(1, ordering: .relaxed).newValue == 1, audioIsFirstFrame {
                counters.markFirstFrame()
            }
            // The level of what arrives (opusdec gives S16LE): the stats' audio level.
            if counters.receiveAudioIsS16.load(ordering: .relaxed), let sum = info.buffer?.withBytes(RunCounters.sumOfSquaresS16) {
                counters.receiveAudioSquares.add(Int(sum.squares), ordering: .relaxed)
                counters.receiveAudioSamples.add(sum.samples, ordering: .relaxed)
            }
            return .ok
        }
        src.addProbe(.eventDownstream) { (info: borrowing Pad.ProbeInfo) in
            guard info.event == .caps, let caps = info.currentCaps, let st = caps.structure(at: 0) else { return .ok }
            if video {
                counters.receiveVideoWidth.store(st.get("width", as: Int.self) ?? 0, ordering: .relaxed)
                counters.receiveVideoHeight.store(st.get("height", as: Int.self) ?? 0, ordering: .relaxed)
            } else {
                counters.receiveAudioIsS16.store(st.get("format", as: String.self) == "S16LE", ordering: .relaxed)
            }
            return .ok
        }
    }

    /// A sink stage: elements this branch owns (to add and link), maybe a muxer pad to end
    /// in, and the element whose sink pad marks the end of the branch.
    public struct SinkStage {
        /// The elements this branch owns, in link order.
        public var owned: [Element]
        /// A reserved pad of a muxer shared with other branches, linked to last.
        public var muxPad: Pad? = nil
        /// The element whose sink pad ends the branch.
        public var final: Element

        /// A stage of `owned` elements (added and linked in order) that ends at `final`.
        public init(owned: [Element], muxPad: Pad? = nil, final: Element) {
            self.owned = owned; self.muxPad = muxPad; self.final = final
        }
    }

    /// `decode: none`: depayloader (and parser) → sink, counting encoded frames.
    package func buildUndecoded(_ chain: [Element], branch: ReceiveBranchSpec, media: MediaKind, pad: Pad) throws(RunError) {
        let sink = try sinkElements(branch, media: media, encoded: true)
        let all = chain + sink.owned
        try add(all)
        try linkChain(all, media: media, at: branch.location)
        if let muxPad = sink.muxPad {
            guard let out = all.last?.staticPad("src") else { throw RunError("the recording's queue has no output pad", at: branch.location) }
            do { try out.link(muxPad) } catch { throw RunError(error.message, at: branch.sink.location) }
        }
        for e in all.reversed() { e.syncStateWithParent() }
        if let sinkPad = sink.final.staticPad("sink") {
            state.withLock { s in if !s.sinkPads.contains(sinkPad) { s.sinkPads.append(sinkPad) } }
        }
        if let src = chain.last?.staticPad("src") {
            let counters = counters, video = media == .video
            src.addProbe { (_: borrowing Pad.ProbeInfo) in
                let n =
                    video
                    ? counters.countDecodedVideoFrame()
                    : counters.receiveAudioBuffers.add(1, ordering: .relaxed).newValue
                if n == 1 { counters.markFirstFrame() }
                return .ok
            }
        }
        guard let entrance = chain[0].staticPad("sink") else { throw RunError("depayloader has no sink pad") }
        do { try pad.link(entrance) } catch {
            throw RunError("cannot link the received \(media.rawValue) stream: \(error.message)", at: branch.location)
        }
        state.withLock {
            $0.receiveEntrances.append(entrance); $0.builtMedia.insert(media)
        }
    }

    /// The sink kind's elements for one receive branch (`Sink/`: one type per kind).
    package func sinkElements(_ branch: ReceiveBranchSpec, media: MediaKind, encoded: Bool = false) throws(RunError) -> SinkStage {
        guard let kind = SinkRegistry.sink(for: branch.sink.kind) else {
            throw RunError("unknown sink kind '\(branch.sink.kind.name)'", at: branch.sink.location)
        }
        return encoded
            ? try kind.buildEncoded(branch.sink, media: media, with: self) : try kind.build(branch.sink, media: media, with: self)
    }

    /// What every sink kind needs before any data flows (recordings: their muxers).
    package func prepareRecordings() throws(RunError) {
        for kind in SinkRegistry.kinds.all + [SinkRegistry.fragment] {
            let branches = spec.receiveBranches.filter { $0.sink.kind.name == kind.name }
            if !branches.isEmpty { try kind.prepare(branches, with: self) }
        }
    }

    /// Muxer pads reserved for a medium that never arrived; they get EOS on stop so the
    /// file is finalized with what did arrive.
    package var unusedRecordingPads: [Pad] {
        state.withLock { $0.recordings.values.flatMap { $0.reserved.values.filter { !$0.isLinked } } }
    }
}

extension GraphBuilder {
    /// Behind receive-side encoded filters, a frame they drop (a `faults` drop, a frame `e2ee`
    /// cannot decrypt) reaches the decoder as missing data (`ElementHandle.pushMissingData`),
    /// where the depayloader would have seen no loss: with `automatic-request-sync-points`
    /// (GstVideoDecoder, 1.20+) the decoder drops what follows until a keyframe, and asks for
    /// one upstream, which the RTP session sends as a PLI. Decoders without it are left as they are.
    package static func asksForKeyframesOnMissingData(_ decoder: Element) {
        guard decoder.hasProperty("automatic-request-sync-points") else { return }
        try? decoder.set("automatic-request-sync-points", true)
    }
}
