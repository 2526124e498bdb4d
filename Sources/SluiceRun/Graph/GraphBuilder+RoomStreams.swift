import Foundation
import GStreamer

/// The receive side of a room (`kind: janus`): every publisher's stream arrives on the one
/// subscribing webrtcbin, and each gets its own branch — depayloader → the receive section's
/// encoded filters → decoder → its sink — counted under the publisher the session assigned to its MID.
extension GraphBuilder {
    /// `{publisher}` in a `file` sink's path: one file per publisher stream.
    package static let publisherPlaceholder = "{publisher}"

    /// Builds the branch of a new pad of the subscribing webrtcbin. Called on a streaming thread.
    package func buildRoomStream(for pad: Pad) {
        buildLock.lock()
        defer { buildLock.unlock() }
        do throws(RunError) {
            try buildRoomStreamThrowing(for: pad)
        } catch {
            state.withLock { if $0.error == nil { $0.error = error } }
            _ = Message.postApplication(from: pipeline, Structure(name: "sluice-build-failed"))
        }
    }

    private func buildRoomStreamThrowing(for pad: Pad) throws(RunError) {
        guard pad.direction == .src, let arriving = try roomStream(on: pad) else { return }
        let media = arriving.stream.media, branch = arriving.stream.branch, video = media == .video
        var chain = try depayloading(arriving.stream) // each publisher's own encoded filters (an `e2ee` key per stream)
        let decoder = try make(
            branch.decode.element ?? DefaultElements.decoder(for: arriving.stream.codec),
            at: branch.decode.location ?? branch.location)
        chain.append(decoder)
        chain.append(try make(video ? "videoconvert" : "audioconvert", at: branch.location))
        // One picture or one sound of the room: this stream becomes a cell of the mosaic, or is mixed in.
        if video, let mosaic {
            try add(chain)
            try linkChain(chain, media: media, at: branch.location)
            try joinMosaic(mosaic, from: chain[chain.count - 1], mid: arriving.mid, at: branch.location)
        } else if !video, let mix = roomMixer {
            chain.append(try make("audioresample", at: branch.location))
            try add(chain)
            try linkChain(chain, media: media, at: branch.location)
            try joinMix(mix, from: chain[chain.count - 1], at: branch.location)
        } else {
            let sink = try roomSink(branch, media: media, publisher: arriving.publisher)
            chain += sink
            try add(chain)
            try linkChain(chain, media: media, at: branch.location)
            if let sinkPad = sink.last?.staticPad("sink") {
                state.withLock { s in if !s.sinkPads.contains(sinkPad) { s.sinkPads.append(sinkPad) } }
            }
        }
        for e in chain.reversed() { e.syncStateWithParent() }
        let whole = (video && mosaic != nil) || (!video && roomMixer != nil)
        countRoomStream(decoder: decoder, slot: arriving.slot, video: video, intoTotals: !whole)
        guard let entrance = chain[0].staticPad("sink") else { throw RunError("depayloader has no sink pad") }
        do { try pad.link(entrance) } catch {
            throw RunError("cannot link \(arriving.publisher)'s \(media.rawValue) to \(chain[0]): \(error.message)", at: branch.location)
        }
        state.withLock {
            $0.receiveEntrances.append(entrance)
            if !whole { $0.builtMedia.insert(media) }
        }
    }

    /// A publisher's stream arriving in the room: what it is, and whose.
    package struct RoomArrival {
        package var stream: ArrivingStream
        package var mid: String
        package var slot: RoomStreams.Slot?
        package var publisher: String
    }

    /// The medium, codec and publisher of what `pad` carries (nil: not audio or video).
    private func roomStream(on pad: Pad) throws(RunError) -> RoomArrival? {
        guard let caps = pad.currentCaps ?? pad.queryCaps(), let s = caps.structure(at: 0) else {
            throw RunError("the subscribing webrtcbin exposed a pad without caps")
        }
        guard let media = MediaKind(rawValue: s.get("media", as: String.self) ?? "") else { return nil }
        let encodingName = (s.get("encoding-name", as: String.self) ?? "").uppercased()
        guard let codec = Codec.allCases.first(where: { $0.encodingName == encodingName }) else {
            throw RunError("a publisher sent \(media.rawValue) as \(encodingName), which Sluice cannot decode")
        }
        let mid = pad.objectProperty("transceiver", as: Object.self)?.get("mid", as: String.self) ?? "?"
        let slot =
            roomStreams.slot(mid: mid)
            ?? {
                roomStreams.assign([(mid: mid, publisher: "stream \(mid)", media: media)])
                return roomStreams.slot(mid: mid)
            }()
        slot?.record?.codec.withLock { $0 = codec.rawValue }
        let branch =
            (media == .video ? spec.receive?.video : spec.receive?.audio)
            ?? ReceiveBranchSpec(media: media, sink: SinkSpec(kind: .null))
        return RoomArrival(
            stream: ArrivingStream(media: media, codec: codec, branch: branch), mid: mid, slot: slot,
            publisher: slot?.record?.publisher ?? "stream \(mid)")
    }

    /// The sink elements of one publisher's stream: the receive section's sink, with a file
    /// of its own (`{publisher}` in the path) for recordings.
    private func roomSink(_ branch: ReceiveBranchSpec, media: MediaKind, publisher: String) throws(RunError) -> [Element] {
        if let kind = SinkRegistry.sink(for: branch.sink.kind),
            let own = try kind.roomStage(branch.sink, media: media, publisher: publisher, with: self)
        {
            return own
        }
        return try sinkElements(branch, media: media).owned
    }

    /// A publisher's name as part of a file name: letters, digits, '-', '_' and '.'.
    package static func fileSafe(_ name: String) -> String {
        let safe = String(name.prefix(64).map { $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) ? $0 : "_" })
        return safe.isEmpty || safe.hasPrefix(".") ? "_" + safe : safe
    }

    /// Counts decoded frames into the stream's record (and the run's totals), and learns its size.
    /// `intoTotals`: false where the mosaic's own output is what the run counts as received video.
    private func countRoomStream(decoder: Element, slot: RoomStreams.Slot?, video: Bool, intoTotals: Bool = true) {
        guard let src = decoder.staticPad("src") else { return }
        let counters = counters
        src.addProbe { (_: borrowing Pad.ProbeInfo) in
            slot?.record?.frames.add(1, ordering: .relaxed)
            guard intoTotals else { return .ok }
            let n =
                video
                ? counters.countDecodedVideoFrame()
                : counters.receiveAudioBuffers.add(1, ordering: .relaxed).newValue
            if n == 1 { counters.markFirstFrame() }
            return .ok
        }
        guard video else { return }
        src.addProbe(.eventDownstream) { (info: borrowing Pad.ProbeInfo) in
            if info.event == .caps, let caps = info.currentCaps, let st = caps.structure(at: 0) {
                let w = st.get("width", as: Int.self) ?? 0, h = st.get("height", as: Int.self) ?? 0
                slot?.record?.width.store(w, ordering: .relaxed)
                slot?.record?.height.store(h, ordering: .relaxed)
                guard intoTotals else { return .ok }
                counters.receiveVideoWidth.store(w, ordering: .relaxed)
                counters.receiveVideoHeight.store(h, ordering: .relaxed)
            }
            return .ok
        }
    }
}
