import Foundation
import GStreamer
import Logging
import Synchronization

/// `sink: {kind: record, path: "rec/{name}-%Y%m%d-%H%M%S.mp4", segment: 60, keep: 24h}`:
/// a recording in segments of `segment` seconds, each a file of its own starting at a
/// keyframe, through splitmuxsink. With `decode: none` what arrives is recorded as it came,
/// without decoding (and the branch accepts only codecs the format holds); otherwise the
/// decoded frames are encoded again (`encode:`, H.264 and Opus by default). Video and audio
/// recorded to the same path share the segments.
package struct RecordSink: Sink {
    package let name = "record"
    package let keys = ["path", "segment", "format", "keep", "encode"]
    package let needsKeys: String? = "a recording needs a path; write `sink: {kind: record, path: \"rec/{name}-%Y%m%d-%H%M%S.mp4\"}`"

    package struct Settings: KindSettings, Equatable {
        package var template: SegmentTemplate
        package var format: RecordFormat
        /// Seconds per segment (a segment ends at the first keyframe after them).
        package var segmentSeconds: Double = 60
        /// Segments older than this are deleted as new ones start; nil keeps every one.
        package var keepSeconds: Double?
        /// The encoder for decoded media (nil: the format's default codec).
        package var encode: EncodeSpec?
        package var positionFree: any KindSettings {
            var s = self
            s.encode = encode?.positionFree
            return s
        }

        package func encoder(for media: MediaKind, at location: SourceLocation?) -> EncodeSpec {
            encode ?? EncodeSpec(codec: media == .video ? .h264 : .opus, bitrateKbps: media == .video ? 2000 : 64, location: location)
        }
    }

    package func decode(_ map: [SpecEntry], media: MediaKind, at location: SourceLocation, with decoder: inout SpecDecoder) -> SinkSpec.Kind? {
        guard let pathEntry = map.entry("path") else {
            decoder.fail(needsKeys ?? "", at: location)
            return nil
        }
        guard let path = decoder.nonEmptyText(pathEntry) else { return nil }
        let template: SegmentTemplate
        switch SegmentTemplate.parse(path) {
        case .success(let t): template = t
        case .failure(let error):
            decoder.fail(error.message, at: pathEntry.value.location)
            return nil
        }
        guard let format = decodeFormat(map, template: template, at: pathEntry, with: &decoder) else { return nil }
        var settings = Settings(template: template, format: format)
        if let e = map.entry("segment") { settings.segmentSeconds = seconds(e, what: "segment", range: 1...86_400, with: &decoder) ?? 60 }
        if let e = map.entry("keep"), let keep = seconds(e, what: "keep", range: 1...(366 * 86_400), with: &decoder) {
            if keep < settings.segmentSeconds {
                decoder.fail(
                    "keep (\(Int(keep)) s) is shorter than a segment (\(Int(settings.segmentSeconds)) s): every finished segment would be deleted at once; keep at least one segment",
                    at: e.value.location)
            }
            settings.keepSeconds = keep
        }
        if let e = map.entry("encode") { settings.encode = decodeEncode(e, media: media, format: format, with: &decoder) }
        return SinkSpec.Kind(name: name, settings: settings)
    }

    /// `format:`, or the path's extension; both must agree.
    private func decodeFormat(_ map: [SpecEntry], template: SegmentTemplate, at path: SpecEntry, with decoder: inout SpecDecoder) -> RecordFormat? {
        let fromExtension = RecordFormat(rawValue: template.pathExtension)
        guard let e = map.entry("format") else {
            if let fromExtension { return fromExtension }
            decoder.fail(
                "say which container to record: end the path in .mp4, .mkv or .ts, or write `format: mp4`", at: path.value.location)
            return nil
        }
        guard let format: RecordFormat = decoder.choice(e, what: "recording format") else { return nil }
        if let fromExtension, fromExtension != format {
            decoder.fail("the path ends in .\(fromExtension.rawValue) but format is \(format.rawValue); make them agree", at: e.value.location)
        }
        return format
    }

    private func seconds(_ e: SpecEntry, what: String, range: ClosedRange<Double>, with decoder: inout SpecDecoder) -> Double? {
        guard let text = decoder.text(e) else { return nil }
        guard let s = SpecScalars.durationSeconds(text), range.contains(s) else {
            decoder.fail(
                "invalid \(what) '\(text)'; write a duration from \(Int(range.lowerBound)) s to \(Int(range.upperBound / 86_400)) days, e.g. 60, 90s, 30m, 24h or 7d",
                at: e.value.location)
            return nil
        }
        return s
    }

    private func decodeEncode(_ e: SpecEntry, media: MediaKind, format: RecordFormat, with decoder: inout SpecDecoder) -> EncodeSpec {
        let (spec, codecLocation) = decoder.decodeEncode(e, media: media, branch: "receive.\(media)", defaultCodec: media == .video ? .h264 : .opus)
        if !format.codecs.contains(spec.codec) {
            let fitting = format.codecs.filter { $0.media == media }.map(\.rawValue)
            decoder.fail(
                "\(format.rawValue) cannot hold \(spec.codec.rawValue); use \(SpecDecoder.orList(fitting)), or another format",
                at: codecLocation ?? e.keyLocation)
        }
        return spec
    }

    package func encodedCodecs(_ sink: SinkSpec, media: MediaKind) -> [Codec]? {
        sink.kind.settings(as: Settings.self)?.format.codecs.filter { $0.media == media }
    }

    package func requiredElements(_ sink: SinkSpec, media: MediaKind) -> [String] {
        guard let s = sink.kind.settings(as: Settings.self) else { return [] }
        let enc = s.encoder(for: media, at: nil)
        var out = ["splitmuxsink", s.format.muxer.factory, "filesink"]
        if enc.gst == nil { out.append(enc.element ?? DefaultElements.encoder(for: enc.codec)) }
        if let p = DefaultElements.parser(for: enc.codec) { out.append(p) }
        return out
    }

    /// Decoded media: queue (→ audioresample) → encoder → parser → the recording.
    package func build(_ sink: SinkSpec, media: MediaKind, with b: GraphBuilder) throws(RunError) -> GraphBuilder.SinkStage {
        guard let s = sink.kind.settings(as: Settings.self) else { throw RunError("a recording needs 'path'", at: sink.location) }
        var chain: [Element] = [try b.make("queue", at: sink.location)]
        if media == .audio { chain.append(try b.make("audioresample", at: sink.location)) }
        chain += try b.encoderChain(s.encoder(for: media, at: sink.location), fps: b.spec.send?.video?.capture.fps ?? 30, forPayloader: false)
        return try stage(chain, s, media: media, at: sink.location, with: b)
    }

    /// `decode: none`: queue → the recording, the stream as it arrived.
    package func buildEncoded(_ sink: SinkSpec, media: MediaKind, with b: GraphBuilder) throws(RunError) -> GraphBuilder.SinkStage {
        guard let s = sink.kind.settings(as: Settings.self) else { throw RunError("a recording needs 'path'", at: sink.location) }
        let queue = try b.make("queue", at: sink.location)
        Self.dropUntimed(at: queue)
        return try stage([queue], s, media: media, at: sink.location, with: b)
    }

    /// Drops encoded buffers that arrive without a presentation time: the muxer stops the
    /// whole run on one ("Buffer has no PTS"; seen once, in a passed-through camera's first
    /// burst on a loaded machine). A warning says how many, once.
    package static func dropUntimed(at queue: Element) {
        let dropped = Atomic<Int>(0), logger = Logger(label: "sluice.record")
        queue.staticPad("sink")?.addProbe([.buffer, .bufferList]) { (info: borrowing Pad.ProbeInfo) in
            var untimed = false
            info.forEachBuffer { buffer in if buffer.pts == nil { untimed = true } }
            guard untimed else { return .ok }
            if dropped.add(1, ordering: .relaxed).newValue == 1 {
                logger.warning("a recorded stream delivered a buffer without a timestamp; dropped (the muxer cannot place it)")
            }
            return .drop
        }
    }

    private func stage(
        _ chain: [Element], _ s: Settings, media: MediaKind, at location: SourceLocation?, with b: GraphBuilder
    ) throws(RunError) -> GraphBuilder.SinkStage {
        guard let recording = b.state.withLock({ $0.recordings[s.template.text] }), let pad = recording.reserved[media] else {
            throw RunError("no recording was prepared for \(s.template.text)", at: location)
        }
        return GraphBuilder.SinkStage(owned: chain, muxPad: pad, final: recording.fileSink)
    }

    /// One splitmuxsink per path, with a pad reserved per medium recorded to it, made before
    /// media flows (a segment's muxer must know every stream before it writes its header).
    package func prepare(_ branches: [ReceiveBranchSpec], with b: GraphBuilder) throws(RunError) {
        var byPath: [String: (settings: Settings, media: [MediaKind], location: SourceLocation?)] = [:]
        for branch in branches {
            guard let s = branch.sink.kind.settings(as: Settings.self), b.state.withLock({ $0.recordings[s.template.text] == nil }) else { continue }
            byPath[s.template.text, default: (s, [], branch.sink.location)].media.append(branch.media)
        }
        for (_, planned) in byPath.sorted(by: { $0.key < $1.key }) {
            try b.segmentedRecording(planned.settings, media: planned.media, at: planned.location)
        }
    }
}
