import Foundation
import GStreamer
import Logging
import Synchronization

/// A relayed publisher recorded as it arrives (`sluice serve --relay --relay-record PATH`):
/// its encoded video and audio, taken from the relay's tees without decoding, into segments
/// as `send.*.record` writes them. A simulcast publisher's recording takes its top (largest)
/// layer, once the relay knows its layers.
///
/// The recording joins the tees when the publisher's media are known (`attachWhenReady`),
/// from the next keyframe on (asked for as it joins), behind `isolate`: a recording that
/// fails (a full disk) stops itself, not the viewers. `finish` ends it with end-of-stream, so
/// its last segment is complete.
public final class RelayRecording: Sendable {
    /// Where and how relayed publishers are recorded.
    public struct Settings: Sendable {
        package let sink: RecordSink.Settings

        /// `path`: a segment template as `sink: {kind: record}`'s (`{name}` is the stream's name,
        /// `{n}` the segment's number, strftime's `%Y%m%d-%H%M%S`; its extension the container:
        /// .mkv, .mp4 or .ts); `segmentSeconds`: a new file at the first keyframe after them.
        /// Throws `RunError` saying what to write instead.
        public init(path: String, segmentSeconds: Double = 60) throws(RunError) {
            let template: SegmentTemplate
            switch SegmentTemplate.parse(path) {
            case .success(let t): template = t
            case .failure(let error): throw RunError(error.message)
            }
            guard let format = RecordFormat(rawValue: template.pathExtension) else {
                throw RunError("say which container to record the relay in: end the path in .mkv, .mp4 or .ts")
            }
            guard (1...86_400).contains(segmentSeconds) else {
                throw RunError("a segment lasts 1 to 86400 seconds, not \(String(format: "%g", segmentSeconds))")
            }
            var sink = RecordSink.Settings(template: template, format: format)
            sink.segmentSeconds = segmentSeconds
            self.sink = sink
        }

        /// The path template as written.
        public var path: String { sink.template.text }
    }

    private static let logger = Logger(label: "sluice.relay")
    /// How long a publisher's media may take to be known before what there is is recorded.
    package static let readyWithinNs: UInt64 = 10_000_000_000

    private let recording: SegmentedRecording
    /// The container the segments are written in.
    private let format: RecordFormat
    private let stream: String
    private struct State {
        /// The recording's queues, once attached: end-of-stream goes in there.
        var entrances: [Pad] = []
        var attached = false
        var finished = false
    }
    private let state = Mutex(State())

    /// The recording of relay `stream` into `pipeline` (nothing is written before `attach`).
    package init(_ settings: Settings, stream: String, in pipeline: Pipeline) throws(RunError) {
        self.stream = stream
        recording = try SegmentedRecording(settings.sink, pipelineName: stream)
        format = settings.sink.format
        do { try pipeline.add([recording.element]) } catch { throw RunError("cannot record '\(stream)': \(error.message)") }
        recording.element.syncStateWithParent()
    }

    /// The segments written so far.
    public var segments: [String] { recording.namer.written.segments }

    /// Attaches to `outputs` once the publisher's expected media (`expecting`) are there, and
    /// with simulcast its layers known; after `readyWithinNs`, to what there is. Polls (every
    /// 100 ms) until then, or until `finish`.
    package func attachWhenReady(to outputs: RelayOutputs, expecting media: Set<MediaKind>, in pipeline: Pipeline) {
        let started = StageTimer.now()
        Task.detached { [self] in
            while !state.withLock({ $0.finished || $0.attached }) {
                let ready = outputs.current()
                let late = StageTimer.now() &- started >= Self.readyWithinNs
                if Set(ready.map(\.media)).isSuperset(of: media) || (late && !ready.isEmpty) {
                    attach(ready, in: pipeline)
                    return
                }
                if late && StageTimer.now() &- started >= 3 * Self.readyWithinNs { return }
                try? await Task.sleep(for: .milliseconds(100))
            }
        }
    }

    /// Joins each output's tee (with simulcast, the video's is the top layer's) that the
    /// container holds; the others are logged and left out.
    private func attach(_ outputs: [ViewerSet.Output], in pipeline: Pipeline) {
        let holds = format.rawValue
        let kept = outputs.filter { output in
            guard format.codecs.contains(output.codec) else {
                Self.logger.warning(
                    "relay '\(stream)': its \(output.media.rawValue) (\(output.codec.rawValue)) does not go into .\(holds) and is not recorded; record to .mkv, which holds every codec the relay forwards"
                )
                return false
            }
            return true
        }
        // Every pad is requested before any data reaches the muxer, which takes no new stream later.
        let pads = kept.map { try? recording.pad(for: $0.media, at: nil) }
        var entrances: [Pad] = [], recorded: [String] = []
        for (output, pad) in zip(kept, pads) {
            do throws(RunError) {
                guard let pad else { throw RunError("the recording took no \(output.media.rawValue) stream") }
                entrances.append(try join(output, into: pad, in: pipeline))
                recorded.append("\(output.media.rawValue) (\(output.codec.rawValue))")
            } catch {
                Self.logger.error("relay '\(stream)': its \(output.media.rawValue) cannot be recorded: \(error.message)")
            }
        }
        Self.logger.info("relay '\(stream)': recording \(recorded.isEmpty ? "nothing" : recorded.joined(separator: ", ")) to \(recording.namer.template.text)")
        state.withLock {
            $0.entrances = entrances
            $0.attached = true
        }
    }

    /// tee → queue (→ parser) → the recording's `pad`, from the next keyframe on. Returns the
    /// queue's input.
    private func join(_ output: ViewerSet.Output, into pad: Pad, in pipeline: Pipeline) throws(RunError) -> Pad {
        // Not leaky: a dropped encoded frame would break the frames after it.
        var chain = [try GraphBuilder.element("queue", [("max-size-buffers", "0"), ("max-size-bytes", "0"), ("max-size-time", "2000000000")])]
        // The relay's H.264 may be a byte stream or AVC, as its viewers took it: the parser
        // gives the container what it wants.
        if let parser = DefaultElements.parser(for: output.codec) { chain.append(try GraphBuilder.element(parser)) }
        guard let entrance = chain[0].staticPad("sink"), let exit = chain.last?.staticPad("src") else {
            throw RunError("the recording's queue has no pads")
        }
        do {
            try pipeline.add(chain)
            try Element.link(chain)
            try exit.link(pad)
            for e in chain.reversed() { e.syncStateWithParent() }
        } catch { throw RunError(error.message) }
        if output.media == .video { Self.startAtKeyframe(entrance) }
        RecordSink.dropUntimed(at: chain[0])
        guard let branch = output.tee.requestPad("src_%u") else { throw RunError("the relay's tee refused the recording") }
        branch.dropReconfigure()
        let stream = stream, media = output.media.rawValue, told = RelayCounter(1)
        branch.isolate(into: entrance) { flow in
            guard flow != .eos, flow != .flushing, told.take() else { return }
            Self.logger.error("relay '\(stream)': its \(media) recording stopped (\(flow)); the relay goes on")
        }
        do { try branch.link(entrance) } catch {
            output.tee.releaseRequestPad(branch)
            throw RunError(error.message)
        }
        return entrance
    }

    /// Drops the frames before the first keyframe at `pad` (a segment must start with one),
    /// asking upstream for it once: the publisher gets a PLI.
    private static func startAtKeyframe(_ pad: Pad) {
        let ask = RelayCounter(1)
        pad.addProbe(.buffer) { (info: borrowing Pad.ProbeInfo) in
            guard info.buffer?.isDeltaUnit ?? false else { return .remove }
            if ask.take() { _ = info.padReference.pushEvent(.forceKeyUnit()) }
            return .drop
        }
    }

    /// Ends the recording: end-of-stream into its queues, then waits (at most `timeout`
    /// seconds) for it to reach the file, so the last segment is complete.
    package func finish(timeout: Double = 3) async {
        let entrances = state.withLock { s -> [Pad] in
            s.finished = true
            return s.entrances
        }
        guard !entrances.isEmpty, let fileInput = recording.fileSink.staticPad("sink") else { return }
        let eos = EndOfStream(arrivingAt: [fileInput]) {
            for entrance in entrances { _ = entrance.sendEvent(.eos()) }
        }
        await eos.wait(timeout: timeout)
    }
}
