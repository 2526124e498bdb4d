import Foundation
import GStreamer

extension CaptureSpec.Kind {
    /// A segmented recording played back (splitmuxsrc), from the segment holding `from`.
    package static func recording(_ settings: RecordingCapture.Settings) -> CaptureSpec.Kind {
        CaptureSpec.Kind(name: "recording", settings: settings)
    }
}

/// `kind: recording`: the segments a `record` sink or `record:` wrote, played back in order
/// as one stream (splitmuxsrc), from the segment that holds `from` (a local date and time)
/// or from the first. With `encode: none` the recorded H.264, VP8, VP9 or Opus goes to WebRTC
/// as it was recorded: every frame, paced by clocksync, never decoded. `sluice serve` with
/// such a file plays a recording to WHEP viewers.
package struct RecordingCapture: ParsedCapture {
    package let name = "recording"
    package let sourceFactory = "splitmuxsrc"
    package let urlProperty = "location"

    package struct Settings: KindSettings, Equatable {
        /// The recording's path, as its `record` section wrote it.
        package var template: SegmentTemplate
        /// The recorded pipeline's name, for `{name}` in the path.
        package var recordedName: String
        /// Where to start: the segment that holds this moment (nil: the first segment).
        package var from: Date?
        /// Segments left out: those still being written (splitmuxsrc reads each file's length
        /// when it starts, so a growing one would end its playback early).
        package var leaving: Set<String> = []
        /// Seconds a segment must have been left untouched to be played (0: any): a recording
        /// still running finishes a segment just after it starts the next.
        package var settled: TimeInterval = 0

        /// The segments to play: from the one that holds `from` (the last that started at
        /// or before it) to the newest finished one.
        package func segments(now: Date = Date()) -> [String] {
            let all = template.existingSegments(name: recordedName).filter { path in
                guard !leaving.contains(path) else { return false }
                guard settled > 0 else { return true }
                let modified = (try? FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date) ?? nil
                return (modified ?? .distantPast) < now.addingTimeInterval(-settled)
            }
            guard let from else { return all }
            let matcher = template.matcher(name: recordedName)
            let starts = all.map { matcher.startTime(of: $0) ?? .distantPast }
            let first = starts.lastIndex { $0 <= from } ?? 0
            return Array(all[first...])
        }
    }

    package func keys(for media: MediaKind) -> [String] { ["path", "name", "from"] }

    package func decode(
        _ map: [SpecEntry], media: MediaKind, into capture: inout CaptureSpec, at location: SourceLocation,
        with decoder: inout SpecDecoder
    ) -> CaptureSpec.Kind? {
        guard let pathEntry = map.entry("path"), let path = decoder.nonEmptyText(pathEntry) else {
            decoder.fail("a recording capture needs the recording's path, e.g. `path: \"rec/{name}-%Y%m%d-%H%M%S.mp4\"`", at: location)
            return nil
        }
        let template: SegmentTemplate
        switch SegmentTemplate.parse(path) {
        case .success(let parsed): template = parsed
        case .failure(let e):
            decoder.fail(e.message, at: pathEntry.value.location)
            return nil
        }
        let recordedName = map.entry("name").flatMap { decoder.nonEmptyText($0) }
        if template.pieces.contains(.name), recordedName == nil {
            decoder.fail("the path holds {name}: say whose recording this is, e.g. `name: rtsp-record`", at: pathEntry.value.location)
            return nil
        }
        var settings = Settings(template: template, recordedName: recordedName ?? "")
        if let e = map.entry("from"), let text = decoder.text(e) {
            guard let date = Self.moment(text) else {
                decoder.fail("invalid from '\(text)'; write a local date and time, e.g. 2026-11-27T09:30:00", at: e.value.location)
                return nil
            }
            guard template.startTime(of: template.path(name: settings.recordedName, index: 0, at: date), name: settings.recordedName) != nil else {
                decoder.fail("`from` needs the time in the segments' names: put %Y%m%d-%H%M%S (or %s) in the path", at: e.keyLocation)
                return nil
            }
            settings.from = date
        }
        return .recording(settings)
    }

    /// `2026-11-27T09:30:00` or `2026-11-27 09:30:00` (local time), or seconds since 1970.
    package static func moment(_ text: String) -> Date? {
        if let seconds = Double(text), seconds > 0 { return Date(timeIntervalSince1970: seconds) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = .current
        for format in ["yyyy-MM-dd'T'HH:mm:ss", "yyyy-MM-dd HH:mm:ss"] {
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }

    /// Recordings are files: clocksync paces them.
    package func isLive(_ capture: CaptureSpec) -> Bool { false }

    package func identity(of capture: CaptureSpec) -> SourceIdentity {
        let s = capture.kind.settings(as: Settings.self)
        let text = s?.template.text ?? ""
        let from = s?.from.map { " from \(Int($0.timeIntervalSince1970))" } ?? ""
        return SourceIdentity(key: "recording \(text) \(s?.recordedName ?? "")\(from)", label: "recording capture \(text)", secret: nil)
    }

    /// The segments are named by splitmuxsrc's `format-location`, listed when it starts; there
    /// must be at least one now.
    package func configure(_ source: Element, for capture: CaptureSpec) throws(GstError) {
        guard let s = capture.kind.settings(as: Settings.self) else { return }
        let first = s.segments()
        guard !first.isEmpty else {
            let whose = s.recordedName.isEmpty ? "" : " for '\(s.recordedName)'"
            throw GstError("no segment of \(s.template.text)\(whose) exists\(s.from == nil ? "" : " at or after the time asked for")")
        }
        source.connect("format-location") { (_: borrowing SignalArguments) -> Value? in
            let now = s.segments()
            return Value(strings: now.isEmpty ? first : now)
        }
    }
}
