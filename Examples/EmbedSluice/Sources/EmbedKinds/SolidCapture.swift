import GStreamer
import SluiceRun

/// `capture: {kind: solid, color: 0x2080e0}`: a live picture of one colour. A capture kind of
/// this program's own, written against Sluice's public API only: its name, the media it
/// refuses, its key and its decoding (with the file's own error positions), the elements it
/// needs and its build.
public struct SolidCapture: Capture {
    /// The colour, as `0xRRGGBB`.
    public struct Settings: KindSettings, Equatable {
        /// Red, green and blue, 8 bits each.
        public var rgb: UInt32
    }

    public let name = "solid"
    public init() {}

    public func refusal(for media: MediaKind) -> String? {
        media == .audio ? "a solid capture draws a picture: use it on send.video" : nil
    }

    public func keys(for media: MediaKind) -> [String] { ["color"] }

    public func decode(
        _ map: [SpecEntry], media: MediaKind, into capture: inout CaptureSpec, at location: SourceLocation,
        with decoder: inout SpecDecoder
    ) -> CaptureSpec.Kind? {
        guard let entry = map.entry("color") else { return CaptureSpec.Kind(name: name, settings: Settings(rgb: 0x808080)) }
        guard let text = decoder.text(entry) else { return nil }
        let digits = text.hasPrefix("0x") ? String(text.dropFirst(2)) : text
        guard digits.count == 6, let rgb = UInt32(digits, radix: 16) else {
            decoder.fail("'color' is a colour as 0xRRGGBB (0x2080e0 is a blue); '\(text)' is not", at: entry.value.location)
            return nil
        }
        return CaptureSpec.Kind(name: name, settings: Settings(rgb: rgb))
    }

    public func requiredElements(for media: MediaKind) -> [String] { ["videotestsrc"] }

    public func build(_ capture: CaptureSpec, media: MediaKind, rawCaps: String, with builder: GraphBuilder) throws(RunError) -> [Element] {
        let rgb = capture.kind.settings(as: Settings.self)?.rgb ?? 0x808080
        let chain = [
            try builder.make(
                "videotestsrc", [("is-live", "true"), ("pattern", "solid-color"), ("foreground-color", "\(0xff00_0000 | rgb)")],
                at: capture.location),
            try builder.make("capsfilter", [("caps", rawCaps + ",format=I420")], at: capture.location)
        ]
        try builder.add(chain)
        return chain
    }
}
