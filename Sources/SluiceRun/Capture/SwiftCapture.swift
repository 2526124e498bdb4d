import GStreamer

extension CaptureSpec.Kind {
    /// A Swift `FrameSource` (video) or `AudioSource` (audio) by name, with its settings.
    public static func swift(name: String, settings: [FilterSetting]) -> CaptureSpec.Kind {
        CaptureSpec.Kind(name: "swift", settings: SwiftCapture.Settings(source: name, settings: settings))
    }
}

/// `kind: swift`: a `FrameSource` (video branch) or `AudioSource` (audio branch) written in
/// Swift (built in, or from a plugin), by name; the other keys of `capture:` are its settings.
package struct SwiftCapture: Capture {
    package let name = "swift"

    /// The source's name and its settings.
    package struct Settings: KindSettings, Equatable {
        package var source: String
        package var settings: [FilterSetting]
        package var positionFree: any KindSettings { Settings(source: source, settings: settings.positionFree) }
    }

    package func keys(for media: MediaKind) -> [String] { ["name"] }
    package var takesAnyKey: Bool { true }

    package func decode(
        _ map: [SpecEntry], media: MediaKind, into capture: inout CaptureSpec, at location: SourceLocation,
        with decoder: inout SpecDecoder
    ) -> CaptureSpec.Kind? {
        decoder.decodeSwiftCapture(map, nameEntry: map.entry("name"), media: media, at: location)
    }

    package func build(_ cap: CaptureSpec, media: MediaKind, rawCaps: String, with b: GraphBuilder) throws(RunError) -> [Element] {
        guard let swift = cap.kind.settings(as: Settings.self) else { throw RunError("a swift capture needs 'name'", at: cap.location) }
        if media == .audio { return try buildAudio(swift, cap, rawCaps: rawCaps, with: b) }
        guard let factory = FilterRegistry.shared.source(named: swift.source) else {
            throw RunError("no Swift source named '\(swift.source)' is registered in this program", at: cap.location)
        }
        let src = try b.make(
            factory.elementName,
            [
                ("width", "\(cap.width)"), ("height", "\(cap.height)"),
                ("fps", "\(cap.fps)"), ("format", factory.formats.first?.rawValue ?? "I420")
            ],
            at: cap.location)
        try configure(src, swift, at: cap.location)
        let chain = [src] + (try b.normalizer(video: true, caps: rawCaps, at: cap.location))
        try b.add(chain)
        return chain
    }

    /// An `AudioSource` at the branch's rate and channels, in its preferred format.
    private func buildAudio(_ swift: Settings, _ cap: CaptureSpec, rawCaps: String, with b: GraphBuilder) throws(RunError) -> [Element] {
        guard let factory = FilterRegistry.shared.audioSource(named: swift.source) else {
            throw RunError("no Swift audio source named '\(swift.source)' is registered in this program", at: cap.location)
        }
        let src = try b.make(
            factory.elementName,
            [
                ("rate", "\(cap.rate)"), ("channels", "\(cap.channels)"),
                ("format", factory.formats.first?.rawValue ?? "F32LE"), ("samples-per-buffer", "\(max(1, cap.rate / 100))")
            ],
            at: cap.location)
        try configure(src, swift, at: cap.location)
        let chain = [src] + (try b.normalizer(video: false, caps: rawCaps, at: cap.location))
        try b.add(chain)
        return chain
    }

    private func configure(_ src: Element, _ swift: Settings, at location: SourceLocation?) throws(RunError) {
        do {
            try SourceStateDirectory.state(of: src)?.configure(Dictionary(swift.settings.map { ($0.name, $0.value) }, uniquingKeysWith: { $1 }))
        } catch {
            throw RunError("source '\(swift.source)': \(error.message)", at: location)
        }
    }
}
