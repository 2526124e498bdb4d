import Foundation
import GStreamer

/// The container a segmented recording writes (`format:`, or the path's extension).
package enum RecordFormat: String, Sendable, CaseIterable {
    /// Fragmented MP4 (a fragment a second: a recording cut short plays up to its last
    /// fragment), Matroska, MPEG-TS.
    case mp4, mkv, ts

    /// The codecs the container holds.
    package var codecs: [Codec] {
        switch self {
        case .mp4: [.h264, .vp9, .opus]
        case .mkv: [.h264, .vp8, .vp9, .opus]
        case .ts: [.h264, .opus]
        }
    }

    /// The muxer element and its settings.
    package var muxer: (factory: String, properties: [(String, String)]) {
        switch self {
        case .mp4: ("mp4mux", [("fragment-duration", "1000")])
        case .mkv: ("matroskamux", [])
        case .ts: ("mpegtsmux", [])
        }
    }
}

/// One segmented recording: splitmuxsink with the format's muxer and a file sink that
/// writes as it gets data, new files at keyframes every `segment` seconds, named and pruned
/// by a `SegmentNamer`.
package struct SegmentedRecording {
    /// splitmuxsink; media enter it through `pad(for:)`.
    package let element: Element
    /// The file sink inside it: its sink pad sees the end of the stream last.
    package let fileSink: Element
    package let namer: SegmentNamer

    /// Makes the elements (not yet added to a pipeline).
    package init(_ settings: RecordSink.Settings, pipelineName: String, at location: SourceLocation? = nil) throws(RunError) {
        let format = settings.format.muxer
        let mux = try GraphBuilder.element(format.factory, format.properties, at: location)
        fileSink = try GraphBuilder.element("filesink", [("async", "false"), ("buffer-mode", "unbuffered")], at: location)
        element = try GraphBuilder.element(
            "splitmuxsink",
            [("max-size-time", String(UInt64(settings.segmentSeconds * 1e9))), ("send-keyframe-requests", "true")],
            at: location)
        do {
            try element.set("muxer", object: mux)
            try element.set("sink", object: fileSink)
        } catch { throw RunError(error.message, at: location) }
        let namer = SegmentNamer(template: settings.template, pipelineName: pipelineName, keepSeconds: settings.keepSeconds)
        self.namer = namer
        element.connect("format-location") { (args: borrowing SignalArguments) -> Value? in
            Value(namer.next(index: Int(args.get(1, as: UInt32.self) ?? 0)))
        }
    }

    /// A request pad for one medium (`video` or `audio_%u`).
    package func pad(for media: MediaKind, at location: SourceLocation?) throws(RunError) -> Pad {
        guard let pad = element.requestPad(media == .video ? "video" : "audio_%u") else {
            throw RunError("splitmuxsink refused a \(media.rawValue) stream for \(namer.template.text)", at: location)
        }
        return pad
    }
}
