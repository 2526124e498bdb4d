import GStreamer

extension CaptureSpec.Kind {
    /// Any file path or URI, decoded (uridecodebin). `loop` restarts it at end-of-stream.
    public static func file(uri: String, loop: Bool) -> CaptureSpec.Kind {
        CaptureSpec.Kind(name: "file", settings: FileCapture.Settings(uri: uri, loop: loop))
    }
}

/// `kind: file`: a media file or URI, decoded and paced to the pipeline clock.
package struct FileCapture: Capture {
    package let name = "file"

    package struct Settings: KindSettings, Equatable {
        package var uri: String
        package var loop: Bool
    }

    package func keys(for media: MediaKind) -> [String] { ["path", "uri", "loop"] }

    package func decode(
        _ map: [SpecEntry], media: MediaKind, into capture: inout CaptureSpec, at location: SourceLocation,
        with decoder: inout SpecDecoder
    ) -> CaptureSpec.Kind? {
        let loop = map.entry("loop").flatMap { decoder.bool($0) } ?? false
        let pathEntry = map.entry("path"), uriEntry = map.entry("uri")
        if pathEntry != nil, let uriEntry {
            decoder.fail("file capture has both 'path' and 'uri'; keep one of them", at: uriEntry.keyLocation)
        } else if let pathEntry, let path = decoder.nonEmptyText(pathEntry) {
            return .file(uri: decoder.fileURI(forPath: path), loop: loop)
        } else if let uriEntry, let uri = decoder.nonEmptyText(uriEntry) {
            guard SpecDecoder.looksLikeURI(uri) else {
                decoder.fail(
                    "'\(uri)' is not a URI; write e.g. file:///home/me/clip.webm, or use 'path:' for a file",
                    at: uriEntry.value.location)
                return nil
            }
            return .file(uri: uri, loop: loop)
        } else if pathEntry == nil, uriEntry == nil {
            decoder.fail("file capture needs 'path' (a file) or 'uri'", at: location)
        }
        return nil
    }

    /// A file is not live: it waits for the encoder, since clocksync paces it anyway.
    package func isLive(_ capture: CaptureSpec) -> Bool { false }

    package func requiredElements(for media: MediaKind) -> [String] { ["uridecodebin"] }

    package func build(_ cap: CaptureSpec, media: MediaKind, rawCaps: String, with b: GraphBuilder) throws(RunError) -> [Element] {
        let settings = cap.kind.settings(as: Settings.self) ?? Settings(uri: "", loop: false)
        // A file is not a live source: clocksync paces it to the pipeline clock.
        let pace = try b.pacer(at: cap.location)
        let chain = [pace] + (try b.normalizer(video: media == .video, caps: rawCaps, at: cap.location))
        try b.add(chain)
        guard let entrance = pace.staticPad("sink") else { throw RunError("clocksync has no sink pad") }
        let source = FileLooper(
            uri: GraphBuilder.uri(for: settings.uri), media: media, entrance: entrance,
            bin: b.pipeline, loop: settings.loop)
        do { _ = try source.start() } catch {
            throw RunError(KnownElements.missingHint(for: "uridecodebin") + " (\(error.message))", at: cap.location)
        }
        b.state.withLock { $0.fileSources.append(source) }
        return chain
    }
}
