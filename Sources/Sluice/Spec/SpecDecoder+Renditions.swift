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
extension SpecDecoder {
    static let renditionKeys = ["name", "width", "height", "fps", "bitrate", "start"]
    /// Most rungs a ladder may have: each is a live encoder.
    static let maxRenditions = 4

    /// Decodes the list (rung by rung); the checks against the capture and the rest of
    /// `encode` are `checkRenditions`.
    mutating func decodeRenditions(_ entry: SpecEntry, into encode: inout EncodeSpec) {
        guard let items = list(entry) else { return }
        guard items.count >= 2 else {
            fail("a ladder needs at least two renditions; for one picture size set capture's width and height and encode's bitrate",
                 at: entry.value.location)
            return
        }
        guard items.count <= Self.maxRenditions else {
            fail("a ladder has at most \(Self.maxRenditions) renditions (each is a live encoder), got \(items.count)",
                 at: items[Self.maxRenditions].location)
            return
        }
        var rungs: [Rendition] = []
        var start: (index: Int, location: SourceLocation)?
        for (i, item) in items.enumerated() {
            guard let map = item.entries else {
                if case .reported = item.content { return }
                fail("each rendition is a mapping such as {width: 854, height: 480, bitrate: 1000}, got \(item.kindDescription)",
                     at: item.location)
                return
            }
            checkKeys(map, allowed: Self.renditionKeys, context: "in a rendition")
            guard let w = map.entry("width"), let h = map.entry("height"), let b = map.entry("bitrate") else {
                let missing = ["width", "height", "bitrate"].filter { map.entry($0) == nil }
                fail("rendition \(i + 1) needs \(Self.orList(missing).replacingOccurrences(of: " or ", with: " and ")), e.g. {width: 854, height: 480, bitrate: 1000}",
                     at: item.location)
                return
            }
            guard let width = integer(w, range: 16...7680), let height = integer(h, range: 16...4320) else { return }
            for (value, e) in [(width, w), (height, h)] where value % 2 != 0 {
                fail("'\(e.key)' must be even (4:2:0 video halves it for colour), got \(value)", at: e.value.location)
                return
            }
            guard let text = text(b) else { return }
            guard let kbps = SpecScalars.bitrateKbps(text), (30...100_000).contains(kbps) else {
                fail("invalid rendition bitrate '\(text)'; write kbit/s between 30 and 100000 (1000, 1000k, 1M)", at: b.value.location)
                return
            }
            var fps: Int?
            if let f = map.entry("fps") {
                guard let v = integer(f, range: 1...240) else { return }
                fps = v
            }
            var name = "\(height)p"
            if let n = map.entry("name") {
                guard let t = nonEmptyText(n) else { return }
                name = t
            }
            if let s = map.entry("start"), let on = bool(s), on {
                if let first = start {
                    fail("only one rendition can be where viewers start; rendition \(first.index + 1) already has `start: true`",
                         at: s.value.location)
                    return
                }
                start = (i, s.value.location)
            }
            if let previous = rungs.last, kbps >= previous.bitrateKbps {
                fail("renditions go from the best to the least: rendition \(i + 1)'s bitrate (\(kbps) kbit/s) must be below rendition \(i)'s (\(previous.bitrateKbps))",
                     at: b.value.location)
                return
            }
            if rungs.contains(where: { $0.name == name }) {
                fail("two renditions are named '\(name)'; give each a distinct 'name'", at: map.entry("name")?.value.location ?? item.location)
                return
            }
            rungs.append(Rendition(name: name, width: width, height: height, fps: fps, bitrateKbps: kbps, location: item.location))
        }
        encode.renditions = rungs
        encode.startRendition = start?.index ?? 0
        encode.bitrateKbps = rungs[encode.startRendition].bitrateKbps
    }

    /// What a ladder cannot be combined with, and rungs larger than the capture.
    mutating func checkRenditions(_ encode: EncodeSpec, entries map: [SpecEntry], capture: CaptureSpec) {
        guard !encode.renditions.isEmpty else { return }
        if let b = map.entry("bitrate") {
            fail("each rendition has its own bitrate; remove encode 'bitrate' (a viewer moves between the rungs by its own estimate)",
                 at: b.keyLocation)
        }
        if let g = map.entry("gst") {
            fail("a ladder needs one encoder per rendition, which Sluice sets up; remove 'gst' (use 'element' and 'properties')",
                 at: g.keyLocation)
        }
        for rung in encode.renditions {
            guard let at = rung.location else { continue }
            if rung.width > capture.width || rung.height > capture.height {
                fail("rendition '\(rung.name)' (\(rung.width)x\(rung.height)) is larger than the capture (\(capture.width)x\(capture.height)); renditions scale the picture down",
                     at: at)
            } else if let fps = rung.fps, fps > capture.fps {
                fail("rendition '\(rung.name)' asks for \(fps) fps but the capture has \(capture.fps); renditions can only drop frames",
                     at: at)
            }
        }
    }
}
