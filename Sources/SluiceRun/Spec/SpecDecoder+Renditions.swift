import Foundation

/// `encode.renditions:`: a served stream's ladder, one encoder per rung.
///
/// ```yaml
/// encode:
///   codec: h264
///   renditions:
///     - {width: 1280, height: 720, bitrate: 2500}
///     - {width: 854, height: 480, bitrate: 1000, start: true}
///     - {width: 426, height: 240, bitrate: 300}
/// ```
///
/// With `passthrough: true` the source's own stream is the best rung (named `source`), and
/// the list holds the rungs below it: decoded once from the source, encoded in `codec`.
extension SpecDecoder {
    package static let renditionKeys = ["name", "width", "height", "fps", "bitrate", "start"]
    /// Most rungs a ladder may have: each is a live encoder.
    package static let maxRenditions = 4

    /// A ladder while it is decoded: the rungs so far and the one viewers start on (nil: the first).
    private struct Ladder {
        var rungs: [Rendition] = []
        var start: Int?
    }

    /// The name of a passthrough ladder's best rung: the source's stream, as it is.
    public static let sourceRenditionName = "source"

    /// Decodes the list (rung by rung); the checks against the capture and the rest of
    /// `encode` are `checkRenditions`. With `encode.passthrough` (decided first), the list is
    /// the rungs below the source.
    package mutating func decodeRenditions(_ entry: SpecEntry, into encode: inout EncodeSpec) {
        let passthrough = encode.passthrough
        guard
            let items = list(
                entry, counts: (passthrough ? 1 : 2)...Self.maxRenditions,
                tooFew: passthrough
                    ? "list at least one rendition below the source, e.g. [{width: 640, height: 360, bitrate: 800}]"
                    : "a ladder needs at least two renditions; for one picture size set capture's width and height and encode's bitrate",
                tooMany: "a ladder has at most \(Self.maxRenditions) renditions (each is a live encoder)")
        else { return }
        var ladder = Ladder()
        for (i, item) in items.enumerated() {
            guard decodeRung(item, index: i, into: &ladder) else { return }
        }
        if passthrough, let taken = ladder.rungs.first(where: { $0.name == Self.sourceRenditionName }) {
            fail(
                "'\(Self.sourceRenditionName)' names the passed-through stream, the best rung; give this rendition another 'name'",
                at: taken.location ?? entry.value.location)
            return
        }
        encode.renditions = ladder.rungs
        // Served, a passthrough ladder's rung 0 is the source: the list's rungs come after it.
        encode.startRendition = ladder.start.map { passthrough ? $0 + 1 : $0 } ?? 0
        if !passthrough { encode.bitrateKbps = ladder.rungs[encode.startRendition].bitrateKbps }
    }

    /// Rendition `index` (from 0) added to the ladder: its values, then whether it is the
    /// start, below the previous rung's bitrate and distinctly named. False: it was refused.
    private mutating func decodeRung(_ item: SpecNode, index i: Int, into ladder: inout Ladder) -> Bool {
        guard let map = item.entries else {
            if case .reported = item.content { return false }
            fail(
                "each rendition is a mapping such as {width: 854, height: 480, bitrate: 1000}, got \(item.kindDescription)",
                at: item.location)
            return false
        }
        checkKeys(map, allowed: Self.renditionKeys, context: "in a rendition")
        guard let w = map.entry("width"), let h = map.entry("height"), let b = map.entry("bitrate") else {
            let missing = ["width", "height", "bitrate"].filter { map.entry($0) == nil }
            fail(
                "rendition \(i + 1) needs \(Self.orList(missing).replacingOccurrences(of: " or ", with: " and ")), e.g. {width: 854, height: 480, bitrate: 1000}",
                at: item.location)
            return false
        }
        guard let rung = decodeRungValues(map, width: w, height: h, bitrate: b, at: item.location) else { return false }
        if let s = map.entry("start"), let on = bool(s), on {
            if let first = ladder.start {
                fail(
                    "only one rendition can be where viewers start; rendition \(first + 1) already has `start: true`",
                    at: s.value.location)
                return false
            }
            ladder.start = i
        }
        if let previous = ladder.rungs.last, rung.bitrateKbps >= previous.bitrateKbps {
            fail(
                "renditions go from the best to the least: rendition \(i + 1)'s bitrate (\(rung.bitrateKbps) kbit/s) must be below rendition \(i)'s (\(previous.bitrateKbps))",
                at: b.value.location)
            return false
        }
        if ladder.rungs.contains(where: { $0.name == rung.name }) {
            fail("two renditions are named '\(rung.name)'; give each a distinct 'name'", at: map.entry("name")?.value.location ?? item.location)
            return false
        }
        ladder.rungs.append(rung)
        return true
    }

    /// A rung's picture size (even), bitrate, frame rate and name (default `<height>p`), each
    /// checked on its own; nil when one is invalid.
    private mutating func decodeRungValues(
        _ map: [SpecEntry], width w: SpecEntry, height h: SpecEntry, bitrate b: SpecEntry,
        at location: SourceLocation
    ) -> Rendition? {
        guard let width = integer(w, range: 16...7680), let height = integer(h, range: 16...4320) else { return nil }
        for (value, e) in [(width, w), (height, h)] where value % 2 != 0 {
            fail("'\(e.key)' must be even (4:2:0 video halves it for colour), got \(value)", at: e.value.location)
            return nil
        }
        guard let text = text(b) else { return nil }
        guard let kbps = SpecScalars.bitrateKbps(text), (30...100_000).contains(kbps) else {
            fail("invalid rendition bitrate '\(text)'; write kbit/s between 30 and 100000 (1000, 1000k, 1M)", at: b.value.location)
            return nil
        }
        var fps: Int?
        if let f = map.entry("fps") {
            guard let v = integer(f, range: 1...240) else { return nil }
            fps = v
        }
        var name = "\(height)p"
        if let n = map.entry("name") {
            guard let t = nonEmptyText(n) else { return nil }
            name = t
        }
        return Rendition(name: name, width: width, height: height, fps: fps, bitrateKbps: kbps, location: location)
    }

    /// What a ladder cannot be combined with, and rungs larger than the capture.
    package mutating func checkRenditions(_ encode: EncodeSpec, entries map: [SpecEntry], capture: CaptureSpec) {
        guard !encode.renditions.isEmpty else { return }
        if let b = map.entry("bitrate") {
            fail(
                "each rendition has its own bitrate; remove encode 'bitrate' (a viewer moves between the rungs by its own estimate)",
                at: b.keyLocation)
        }
        if let g = map.entry("gst") {
            fail(
                "a ladder needs one encoder per rendition, which Sluice sets up; remove 'gst' (use 'element' and 'properties')",
                at: g.keyLocation)
        }
        for rung in encode.renditions {
            guard let at = rung.location else { continue }
            if rung.width > capture.width || rung.height > capture.height {
                fail(
                    "rendition '\(rung.name)' (\(rung.width)x\(rung.height)) is larger than the capture (\(capture.width)x\(capture.height)); renditions scale the picture down",
                    at: at)
            } else if let fps = rung.fps, fps > capture.fps {
                fail(
                    "rendition '\(rung.name)' asks for \(fps) fps but the capture has \(capture.fps); renditions can only drop frames",
                    at: at)
            }
        }
    }
}
