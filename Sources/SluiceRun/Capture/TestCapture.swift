import GStreamer

extension CaptureSpec.Kind {
    /// videotestsrc / audiotestsrc (`pattern`, `wave`, `frequency`, `live`).
    public static let test = CaptureSpec.Kind(name: "test")
}

/// `kind: test`: GStreamer's test sources, with the pattern or wave the file names.
package struct TestCapture: Capture {
    package let name = "test"

    /// videotestsrc patterns (GStreamer 1.22).
    package static let patterns = [
        "smpte", "snow", "black", "white", "red", "green", "blue", "checkers-1", "checkers-2",
        "checkers-4", "checkers-8", "circular", "blink", "smpte75", "zone-plate", "gamut",
        "chroma-zone-plate", "solid-color", "ball", "smpte100", "bar", "pinwheel", "spokes",
        "gradient", "colors", "smpte-rp-219"
    ]
    /// audiotestsrc waves (GStreamer 1.22).
    package static let waves = [
        "sine", "square", "saw", "triangle", "silence", "white-noise", "pink-noise", "sine-table",
        "ticks", "gaussian-noise", "red-noise", "blue-noise", "violet-noise"
    ]

    package func keys(for media: MediaKind) -> [String] {
        media == .video ? ["pattern", "live"] : ["wave", "frequency", "live"]
    }

    package func decode(
        _ map: [SpecEntry], media: MediaKind, into capture: inout CaptureSpec, at location: SourceLocation,
        with decoder: inout SpecDecoder
    ) -> CaptureSpec.Kind? {
        if let e = map.entry("pattern"), let v = decoder.word(e.value, name: "pattern", what: "test pattern", choices: Self.patterns) {
            capture.pattern = v
        }
        if let e = map.entry("wave"), let v = decoder.word(e.value, name: "wave", what: "test wave", choices: Self.waves) {
            capture.wave = v
        }
        if let e = map.entry("frequency"), let v = decoder.number(e) {
            let nyquist = Double(capture.rate) / 2
            if v > 0, v < nyquist {
                capture.frequency = v
            } else {
                decoder.fail(
                    "'frequency' must be above 0 and below half the sample rate (\(Int(nyquist)) Hz), got \(e.value.scalarText ?? "")",
                    at: e.value.location)
            }
        }
        if let e = map.entry("live"), let v = decoder.bool(e) { capture.live = v }
        return .test
    }

    package func isLive(_ capture: CaptureSpec) -> Bool { capture.live }

    package func requiredElements(for media: MediaKind) -> [String] { [media == .video ? "videotestsrc" : "audiotestsrc"] }

    package func build(_ cap: CaptureSpec, media: MediaKind, rawCaps: String, with b: GraphBuilder) throws(RunError) -> [Element] {
        let chain: [Element]
        if media == .video {
            chain = [
                try b.make("videotestsrc", [("is-live", "\(cap.live)"), ("pattern", cap.pattern)], at: cap.location),
                try b.make("capsfilter", [("caps", rawCaps + ",format=I420")], at: cap.location)
            ]
        } else {
            chain = [
                try b.make(
                    "audiotestsrc",
                    [
                        ("is-live", "\(cap.live)"), ("wave", cap.wave), ("freq", "\(cap.frequency)"),
                        ("samplesperbuffer", "\(max(1, cap.rate / 50))")
                    ], at: cap.location),
                try b.make("capsfilter", [("caps", rawCaps)], at: cap.location)
            ]
        }
        try b.add(chain)
        return chain
    }
}
