/// `fallback:` of a capture whose source can go away (`rtsp`, `srt`, `rtmp`): what the branch
/// sends while the source is away, so viewers keep their session and see that the source is
/// gone instead of a frozen picture. It goes on air after `after` seconds without media and
/// off at the source's first frame back (its first keyframe, when the branch passes the
/// source's encoding through). Its format is the source's, so nothing downstream renegotiates.
public struct FallbackSpec: Sendable, Equatable {
    /// What is sent instead of the source.
    public enum Content: Sendable, Equatable {
        /// A videotestsrc pattern (`slate`: SMPTE colour bars, the broadcast card for "no feed").
        case pattern(String)
        /// A still picture from a PNG or JPEG file (an absolute path).
        case image(path: String)
        /// Audio: silence.
        case silence
    }

    /// What is sent instead of the source.
    public var content: Content
    /// Seconds without media from the source before the fallback goes on air.
    public var afterSeconds: Double
    /// Text written in the middle of a video fallback (`text:`), with the built-in `text`
    /// filter (`sluice-text`); nil for none.
    public var text: String?
    /// Where `fallback:` was written in the pipeline file.
    public var location: SourceLocation?

    /// A fallback of `content`, on air after `afterSeconds` without media (default 1 s).
    public init(content: Content, afterSeconds: Double = 1, location: SourceLocation? = nil) {
        self.content = content
        self.afterSeconds = afterSeconds
        self.location = location
    }

    /// How the report and log name it (`pattern smpte`, `image slate.png`, `silence`).
    package var label: String {
        let what =
            switch content {
            case .pattern(let name): "pattern \(name)"
            case .image(let path): "image \(path.split(separator: "/").last.map(String.init) ?? path)"
            case .silence: "silence"
            }
        return what + (text.map { " with text '\($0)'" } ?? "")
    }
}
