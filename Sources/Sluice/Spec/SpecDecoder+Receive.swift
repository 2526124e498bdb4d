import Foundation

/// `receive:`, its branches, `decode:` and `sink:`.
extension SpecDecoder {
    static let receiveBranchKeys = ["codecs", "decode", "filters", "sink", "mosaic", "mix"]
    static let decodeKeys = ["element", "properties"]

    private enum SinkKind: String, CaseIterable {
        case stats, null, display, file
    }

    mutating func decodeReceive(_ entry: SpecEntry, transport: TransportSpec) -> Side<ReceiveBranchSpec> {
        var side = Side<ReceiveBranchSpec>(key: entry)
        guard let map = mapping(entry) else { return side }
        checkKeys(map, allowed: Self.sideKeys, context: "in receive")
        for media in MediaKind.allCases {
            guard let branch = map.entry(media.rawValue) else { continue }
            side.present[media] = branch.keyLocation
            let decoded = decodeReceiveBranch(branch, media: media)
            if media == .video { side.video = decoded } else { side.audio = decoded }
        }
        return side
    }

    mutating func decodeReceiveBranch(_ entry: SpecEntry, media: MediaKind) -> ReceiveBranchSpec? {
        guard let map = mapping(entry) else { return nil }
        checkKeys(map, allowed: Self.receiveBranchKeys, context: "in receive.\(media)")
        var branch = ReceiveBranchSpec(media: media, sink: SinkSpec(location: entry.keyLocation),
                                       location: entry.keyLocation)
        if let codecs = map.entry("codecs"), let items = list(codecs) {
            codecsLocations[media] = codecs.value.location
            let fitting = Codec.allCases.filter { $0.media == media }.map(\.rawValue)
            for item in items {
                guard let word = word(item, name: "codecs", what: "codec", choices: Codec.allCases.map(\.rawValue)),
                      let codec = Codec(rawValue: word) else { continue }
                if codec.media != media {
                    fail("codec '\(codec.rawValue)' is \(codec.media == .audio ? "an audio" : "a video") codec but this is the \(media) branch; use \(Self.orList(fitting))",
                         at: item.location)
                } else if !branch.codecs.contains(codec) {
                    branch.codecs.append(codec)
                }
            }
        }
        if let decode = map.entry("decode") { branch.decode = decodeDecode(decode) }
        if let filters = map.entry("filters") { branch.filters = decodeFilters(filters, media: media) }
        if let sink = map.entry("sink") { branch.sink = decodeSink(sink, media: media) }
        if let mosaic = map.entry("mosaic") { branch.mosaic = decodeMosaic(mosaic, media: media) }
        if let mix = map.entry("mix"), bool(mix) == true {
            if media == .audio {
                branch.mix = mix.keyLocation
            } else {
                fail("'mix' mixes the publishers' sound into one: it belongs in receive.audio (a picture of the room is `mosaic`)",
                     at: mix.keyLocation)
            }
        }
        if branch.decode.none {
            if let filters = map.entry("filters"), !branch.filters.isEmpty {
                fail("filters work on decoded frames: with `decode: none` remove the filters, or decode", at: filters.keyLocation)
            }
            if let sink = map.entry("sink"), ![SinkSpec.Kind.stats, .null].contains(branch.sink.kind) {
                fail("with `decode: none` nothing is decoded to show or record: use sink stats or null", at: sink.value.location)
            }
        }
        return branch
    }

    /// `mosaic: true` (1280x720) or `mosaic: {width: W, height: H}`.
    mutating func decodeMosaic(_ entry: SpecEntry, media: MediaKind) -> MosaicSpec? {
        guard media == .video else {
            fail("a mosaic is a picture: 'mosaic' belongs in receive.video", at: entry.keyLocation)
            return nil
        }
        var mosaic = MosaicSpec(location: entry.keyLocation)
        switch entry.value.content {
        case .scalar(let text, _) where text == "true": return mosaic
        case .scalar(let text, _) where text == "false": return nil
        case .mapping(let map):
            checkKeys(map, allowed: ["width", "height"], context: "in mosaic")
            if let w = map.entry("width"), let v = integer(w, range: 64...3840) { mosaic.width = v - v % 2 }
            if let h = map.entry("height"), let v = integer(h, range: 64...2160) { mosaic.height = v - v % 2 }
            return mosaic
        case .reported: return nil
        default:
            fail("'mosaic' is true or {width: W, height: H}, e.g. mosaic: {width: 1280, height: 720}", at: entry.value.location)
            return nil
        }
    }

    // MARK: - Decode

    /// `decode: auto` or `decode: {element: NAME, properties: {...}}`.
    mutating func decodeDecode(_ entry: SpecEntry) -> DecodeSpec {
        var decode = DecodeSpec(location: entry.keyLocation)
        switch entry.value.content {
        case .scalar(let text, let isNull):
            if isNull || text == "auto" { return decode }
            if text == "none" { decode.none = true; return decode }
            fail("unknown decode '\(text)'; write `decode: auto`, `decode: none` or `decode: {element: avdec_h264}`"
                 + Suggestions.didYouMean(text, in: ["auto", "none"]), at: entry.value.location)
            return decode
        case .sequence:
            fail("expected `auto` or a mapping for 'decode', got a list; write e.g. `decode: {element: avdec_h264}`",
                 at: entry.value.location)
            return decode
        case .reported:
            return decode
        case .mapping(let map):
            checkKeys(map, allowed: Self.decodeKeys, context: "in decode")
            var uses: [SpecPropertyUse] = []
            if let properties = map.entry("properties") { (decode.properties, uses) = self.properties(properties) }
            if let element = map.entry("element") {
                if let name = factoryName(element) {
                    decode.element = name
                    elements.append(SpecElementUse(factory: name, location: element.value.location,
                                                   named: true, properties: uses))
                }
            } else {
                fail("decode needs 'element' (the decoder to use), or write `decode: auto`", at: entry.keyLocation)
            }
            return decode
        }
    }

    // MARK: - Sink

    private static func sinkKeys(kind: SinkKind?, gst: Bool) -> [String] {
        if gst { return ["gst"] }
        switch kind {
        case .stats, .null, .display: return ["kind"]
        case .file: return ["kind", "path", "encode"]
        case nil: return ["kind", "path", "encode", "gst"]
        }
    }

    /// `sink: stats` (shorthand for `{kind: stats}`), `{kind: file, path: out.webm}`, or
    /// `{gst: "<fragment>"}`.
    mutating func decodeSink(_ entry: SpecEntry, media: MediaKind) -> SinkSpec {
        var sink = SinkSpec(location: entry.keyLocation)
        let choices = SinkKind.allCases.map(\.rawValue)
        switch entry.value.content {
        case .reported:
            return sink
        case .sequence:
            fail("expected a sink kind or a mapping for 'sink', got a list; write e.g. `sink: stats`", at: entry.value.location)
            return sink
        case .scalar:
            guard let word = sinkWord(entry.value, name: "sink", choices: choices),
                  let kind = SinkKind(rawValue: word) else { return sink }
            if kind == .file {
                fail("a file sink needs a path; write `sink: {kind: file, path: out.webm}`", at: entry.value.location)
                return sink
            }
            sink.kind = Self.simpleSink(kind)
            return sink
        case .mapping(let map):
            let kindEntry = map.entry("kind"), gstEntry = map.entry("gst")
            var kind: SinkKind?
            if let kindEntry, let word = sinkWord(kindEntry.value, name: "kind", choices: choices) {
                kind = SinkKind(rawValue: word)
            }
            if kindEntry != nil, let gstEntry {
                fail("sink has both 'kind' and 'gst'; keep one of them", at: gstEntry.keyLocation)
            } else if kindEntry == nil, gstEntry == nil {
                fail("sink needs a 'kind' (stats, null, display or file) or a 'gst' launch fragment", at: entry.keyLocation)
            }
            let isGst = gstEntry != nil && kindEntry == nil
            var allowed = Self.sinkKeys(kind: kind, gst: isGst)
            if kindEntry != nil, gstEntry != nil { allowed.append("gst") }  // reported above
            checkKeys(map, allowed: allowed, context: "in sink") { key in
                switch key {
                case "path", "encode": "'\(key)' only applies to kind file"
                case "gst": "'gst' replaces 'kind'; keep one of them"
                default: nil
                }
            }
            if isGst, let gstEntry {
                if let text = fragment(gstEntry) { sink.kind = .gst(text) }
                return sink
            }
            guard let kind else { return sink }
            guard kind == .file else {
                sink.kind = Self.simpleSink(kind)
                return sink
            }
            guard let pathEntry = map.entry("path") else {
                fail("a file sink needs 'path', e.g. `path: out.webm`", at: entry.keyLocation)
                return sink
            }
            guard let path = nonEmptyText(pathEntry) else { return sink }
            let ext = URL(fileURLWithPath: path).pathExtension.lowercased()
            guard let container = Container(rawValue: ext) else {
                fail("file sink '\(path)' has an unsupported container; use a .webm, .mkv or .mp4 extension",
                     at: pathEntry.value.location)
                return sink
            }
            var encode: EncodeSpec?
            if let encodeEntry = map.entry("encode") {
                let (spec, codecLocation) = decodeEncode(encodeEntry, media: media, branch: "receive.\(media)",
                                                         defaultCodec: container.defaultCodec(for: media))
                if !container.codecs.contains(spec.codec) {
                    let fitting = Codec.allCases.filter { container.codecs.contains($0) && $0.media == media }
                    fail("\(container.rawValue) cannot hold \(spec.codec.rawValue); use \(Self.orList(fitting.map(\.rawValue))), or another container",
                         at: codecLocation ?? encodeEntry.keyLocation)
                }
                encode = spec
            }
            sink.kind = .file(path: path, container: container, encode: encode)
            return sink
        }
    }

    /// A sink kind word; a plain `null` (which YAML reads as null) means the null sink.
    private mutating func sinkWord(_ node: SpecNode, name: String, choices: [String]) -> String? {
        if case .scalar(let text, true) = node.content, text.lowercased() == "null" { return "null" }
        return word(node, name: name, what: "sink kind", choices: choices)
    }

    private static func simpleSink(_ kind: SinkKind) -> SinkSpec.Kind {
        switch kind {
        case .stats: .stats
        case .null: .null
        case .display: .display
        case .file: .stats  // not reached: file sinks carry a path
        }
    }
}
