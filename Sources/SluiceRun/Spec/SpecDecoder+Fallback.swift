import Foundation

extension SpecDecoder {
    /// `fallback:` of a live network capture: a word (`slate`, a test pattern, `silence`), or
    /// `{pattern: P, after: S}`, `{image: slate.png, after: S}` (video, either with `text: T`) or
    /// `{after: S}` (audio).
    package mutating func decodeFallback(_ entry: SpecEntry, media: MediaKind) -> FallbackSpec? {
        if case .scalar(let word, isNull: false) = entry.value.content {
            guard let content = fallbackWord(word, media: media, at: entry.value.location) else { return nil }
            return FallbackSpec(content: content, location: entry.keyLocation)
        }
        guard let map = mapping(entry) else { return nil }
        let keys = media == .video ? ["pattern", "image", "text", "after"] : ["after"]
        checkKeys(map, allowed: keys, context: "in capture.fallback")
        var spec = FallbackSpec(content: media == .video ? .pattern("smpte") : .silence, location: entry.keyLocation)
        if let e = map.entry("after"), let seconds = fallbackDelay(e) { spec.afterSeconds = seconds }
        if let e = map.entry("text") { spec.text = fallbackText(e) }
        let pattern = map.entry("pattern"), image = map.entry("image")
        if pattern != nil, let image {
            fail("fallback has both 'pattern' and 'image'; keep one of them", at: image.keyLocation)
        } else if let pattern, let word = fallbackWord(pattern, media: media) {
            spec.content = word
        } else if let image, let path = fallbackImage(image) {
            spec.content = .image(path: path)
        }
        return spec
    }

    /// `slate` (SMPTE bars; silence for audio), a test pattern, or `silence` for audio.
    private mutating func fallbackWord(_ word: String, media: MediaKind, at location: SourceLocation) -> FallbackSpec.Content? {
        if media == .audio {
            if word == "silence" || word == "slate" { return .silence }
            fail("unknown audio fallback '\(word)'; audio falls back to silence: write `fallback: silence`", at: location)
            return nil
        }
        if word == "slate" { return .pattern("smpte") }
        if TestCapture.patterns.contains(word) { return .pattern(word) }
        fail(
            "unknown fallback '\(word)'; write slate, a test pattern (\(TestCapture.patterns.prefix(7).joined(separator: ", ")), …), "
                + "or {image: offline.png}" + Suggestions.didYouMean(word, in: ["slate"] + TestCapture.patterns), at: location)
        return nil
    }

    private mutating func fallbackWord(_ entry: SpecEntry, media: MediaKind) -> FallbackSpec.Content? {
        guard let word = text(entry) else { return nil }
        return fallbackWord(word, media: media, at: entry.value.location)
    }

    /// A PNG or JPEG file that exists (relative to the pipeline file).
    private mutating func fallbackImage(_ entry: SpecEntry) -> String? {
        guard let text = nonEmptyText(entry) else { return nil }
        let base = URL(fileURLWithPath: file).deletingLastPathComponent()
        let path = URL(fileURLWithPath: text, relativeTo: base).standardizedFileURL.path
        guard FallbackImage.decoder(for: path) != nil else {
            fail("fallback image '\(text)' must be a .png, .jpg or .jpeg file", at: entry.value.location)
            return nil
        }
        guard FileManager.default.isReadableFile(atPath: path) else {
            fail("fallback image '\(text)' cannot be read (looked for \(path)); check the path, relative to this file", at: entry.value.location)
            return nil
        }
        return path
    }

    /// `text:`: 1 to 200 characters (the built-in font has capitals, digits and punctuation;
    /// lower case is drawn in capitals, anything else as `?`).
    private mutating func fallbackText(_ entry: SpecEntry) -> String? {
        guard let text = nonEmptyText(entry) else { return nil }
        guard text.count <= 200 else {
            fail("fallback text is \(text.count) characters long; write at most 200 (\\n starts a new line)", at: entry.value.location)
            return nil
        }
        return text
    }

    /// `after:`: 0.1 to 60 seconds without media.
    private mutating func fallbackDelay(_ entry: SpecEntry) -> Double? {
        guard let text = text(entry) else { return nil }
        guard let seconds = SpecScalars.durationSeconds(text), (0.1...60).contains(seconds) else {
            fail("invalid fallback delay '\(text)'; write seconds without media from 0.1 to 60, e.g. 1 or 500ms", at: entry.value.location)
            return nil
        }
        return seconds
    }
}
