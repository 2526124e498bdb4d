import GStreamer
import SluiceRun

// A capture kind that is not built in, written the way a new kind is: this one file (its name,
// media, keys, settings, decoding, elements and build) plus its registry line
// (`CaptureRegistry.register(ShadeCapture())` in the test). It draws a flat picture.

extension CaptureSpec.Kind {
    static func shade(_ shade: String) -> CaptureSpec.Kind {
        CaptureSpec.Kind(name: "shade", settings: ShadeCapture.Settings(shade: shade))
    }
}

struct ShadeCapture: Capture {
    let name = "shade"

    struct Settings: KindSettings, Equatable {
        var shade: String
    }

    func refusal(for media: MediaKind) -> String? { media == .audio ? "shade capture draws pictures: it is video-only" : nil }
    func keys(for media: MediaKind) -> [String] { ["shade"] }

    func decode(
        _ map: [SpecEntry], media: MediaKind, into capture: inout CaptureSpec, at location: SourceLocation,
        with decoder: inout SpecDecoder
    ) -> CaptureSpec.Kind? {
        guard let entry = map.entry("shade") else { return .shade("black") }
        return decoder.word(entry.value, name: "shade", what: "shade", choices: ["black", "white"]).map { .shade($0) }
    }

    func requiredElements(for media: MediaKind) -> [String] { ["videotestsrc"] }

    func build(_ cap: CaptureSpec, media: MediaKind, rawCaps: String, with b: GraphBuilder) throws(RunError) -> [Element] {
        let shade = cap.kind.settings(as: Settings.self)?.shade ?? "black"
        let chain = [
            try b.make("videotestsrc", [("is-live", "true"), ("pattern", shade)], at: cap.location),
            try b.make("capsfilter", [("caps", rawCaps + ",format=I420")], at: cap.location)
        ]
        try b.add(chain)
        return chain
    }
}
