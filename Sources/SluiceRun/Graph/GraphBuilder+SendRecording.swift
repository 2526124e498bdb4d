import GStreamer

/// `send.<media>.record`: what a send branch sends — encoded, or passed through untouched —
/// also recorded in segments, through a tee before the payloader (or before a served
/// stream's tee), so the recording starts with the first frame and nothing is encoded twice.
extension GraphBuilder {
    /// The tee a recorded branch ends its encoding in (nil when the branch is not recorded).
    /// Makes the branch's recording, shared by the send branches that record to its path,
    /// the first time one asks.
    package func recordingTee(for branch: SendBranchSpec) throws(RunError) -> Element? {
        guard let record = branch.record, let settings = record.kind.settings(as: RecordSink.Settings.self) else { return nil }
        let path = settings.template.text
        if state.withLock({ $0.recordings[path] == nil }) {
            let media = spec.sendBranches.filter { $0.record?.kind.settings(as: RecordSink.Settings.self)?.template.text == path }.map(\.media)
            try segmentedRecording(settings, media: media, at: record.location)
        }
        return try make("tee", [("allow-not-linked", "true")], at: record.location, name: "\(branch.media.rawValue)-record-tee")
    }

    /// Adds a segmented recording to `settings`' path with one reserved pad per medium of
    /// `media`, and keeps it (`recordings`, by path) and its namer (for the summary).
    package func segmentedRecording(_ settings: RecordSink.Settings, media: [MediaKind], at location: SourceLocation?) throws(RunError) {
        let recording = try SegmentedRecording(settings, pipelineName: spec.name, at: location)
        try add([recording.element])
        var reserved: [MediaKind: Pad] = [:]
        for m in media { reserved[m] = try recording.pad(for: m, at: location) }
        state.withLock {
            $0.recordings[settings.template.text] = Recording(fileSink: recording.fileSink, reserved: reserved)
            $0.segmentNamers.append(recording.namer)
        }
    }

    /// Links `tee` (in the branch, linked) → queue (→ parser) → the recording's pad. Its end
    /// of stream is awaited on stop, so the last segment is finished.
    package func attachRecording(of branch: SendBranchSpec, to tee: Element) throws(RunError) {
        guard let record = branch.record, let settings = record.kind.settings(as: RecordSink.Settings.self),
            let recording = state.withLock({ $0.recordings[settings.template.text] }),
            let pad = recording.reserved[branch.media]
        else { throw RunError("no recording was prepared for send.\(branch.media.rawValue)", at: branch.record?.location ?? branch.location) }
        // Not leaky: a dropped encoded frame would break the frames after it. A stalled disk
        // holds at most two seconds here before the tee's other branches wait too.
        var chain = [try make("queue", [("max-size-buffers", "0"), ("max-size-bytes", "0"), ("max-size-time", "2000000000")], at: record.location)]
        // The payloader's H.264 is AVC; MPEG-TS wants a byte stream, which the parser makes.
        if let parser = DefaultElements.parser(for: branch.encode.codec) { chain.append(try make(parser, at: record.location)) }
        try add(chain)
        try linkChain([tee] + chain, media: branch.media, at: record.location)
        guard let out = chain.last?.staticPad("src") else { throw RunError("the recording's queue has no output pad", at: record.location) }
        do { try out.link(pad) } catch { throw RunError(error.message, at: record.location) }
        if let sinkPad = recording.fileSink.staticPad("sink") {
            state.withLock { s in if !s.sinkPads.contains(sinkPad) { s.sinkPads.append(sinkPad) } }
        }
    }

}
