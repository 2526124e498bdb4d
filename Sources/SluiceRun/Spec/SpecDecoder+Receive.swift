import Foundation

/// `receive:`, its branches, `decode:` and `sink:`.
extension SpecDecoder {
    package static let receiveBranchKeys = ["codecs", "decode", "encoded_filters", "filters", "sink", "mosaic", "mix"]
    package static let decodeKeys = ["element", "properties"]

    package mutating func decodeReceive(_ entry: SpecEntry, transport: TransportSpec) -> Side<ReceiveBranchSpec> {
        var side = decodeSide(entry, name: "receive", otherKeys: ["playout"]) { decoder, branch, media in
            decoder.decodeReceiveBranch(branch, media: media)
        }
        if let playout = entry.value.entries?.entry("playout"), let choice = choice(playout, what: "playout", as: ReceivePlayout.self) {
            side.playout = choice
        }
        return side
    }

    package mutating func decodeReceiveBranch(_ entry: SpecEntry, media: MediaKind) -> ReceiveBranchSpec? {
        guard let map = mapping(entry) else { return nil }
        checkKeys(map, allowed: Self.receiveBranchKeys, context: "in receive.\(media)")
        var branch = ReceiveBranchSpec(
            media: media, sink: SinkSpec(location: entry.keyLocation),
            location: entry.keyLocation)
        if let codecs = map.entry("codecs"), let items = list(codecs) {
            codecsLocations[media] = codecs.value.location
            let fitting = Codec.allCases.filter { $0.media == media }.map(\.rawValue)
            for item in items {
                guard let word = word(item, name: "codecs", what: "codec", choices: Codec.allCases.map(\.rawValue)),
                    let codec = Codec(rawValue: word)
                else { continue }
                if codec.media != media {
                    fail(
                        "codec '\(codec.rawValue)' is \(codec.media == .audio ? "an audio" : "a video") codec but this is the \(media) branch; use \(Self.orList(fitting))",
                        at: item.location)
                } else if !branch.codecs.contains(codec) {
                    branch.codecs.append(codec)
                }
            }
        }
        if let decode = map.entry("decode") { branch.decode = decodeDecode(decode) }
        if let filters = map.entry("filters") { branch.filters = decodeFilters(filters, media: media) }
        if let encoded = map.entry("encoded_filters") {
            branch.encodedFilters = decodeFilters(encoded, media: media, encoded: true)
            let codecs = branch.codecs.isEmpty ? Codec.allCases.filter { $0.media == media } : branch.codecs
            checkEncodedFilterCodecs(
                branch.encodedFilters, codecs: codecs,
                branch: branch.codecs.isEmpty ? "receive.\(media) accepts every \(media) codec" : "receive.\(media).codecs",
                advice: branch.codecs.isEmpty ? "list the codecs it handles in `codecs:`" : "accept only codecs it handles")
        }
        if let sink = map.entry("sink") { branch.sink = decodeSink(sink, media: media) }
        if let mosaic = map.entry("mosaic") { branch.mosaic = decodeMosaic(mosaic, media: media) }
        if let mix = map.entry("mix"), bool(mix) == true {
            if media == .audio {
                branch.mix = mix.keyLocation
            } else {
                fail(
                    "'mix' mixes the publishers' sound into one: it belongs in receive.audio (a picture of the room is `mosaic`)",
                    at: mix.keyLocation)
            }
        }
        if branch.decode.none {
            if let filters = map.entry("filters"), !branch.filters.isEmpty {
                fail("filters work on decoded frames: with `decode: none` remove the filters, or decode", at: filters.keyLocation)
            }
            if let sink = map.entry("sink") { checkUndecodedSink(&branch, sink: sink, codecs: map.entry("codecs")) }
        }
        return branch
    }

    /// `decode: none` gives the sink the stream as it arrived: the sink must take it, and
    /// the branch accepts only the codecs it takes (all of them when `codecs:` is not given).
    private mutating func checkUndecodedSink(_ branch: inout ReceiveBranchSpec, sink: SpecEntry, codecs: SpecEntry?) {
        guard let kind = SinkRegistry.sink(for: branch.sink.kind) else { return }
        guard let takes = kind.encodedCodecs(branch.sink, media: branch.media) else {
            fail(
                "with `decode: none` nothing is decoded to show or encode: use sink stats, null or record, or decode",
                at: sink.value.location)
            return
        }
        guard let codecs else {
            branch.codecs = takes
            codecsLocations[branch.media] = sink.value.location
            return
        }
        for codec in branch.codecs where !takes.contains(codec) {
            fail(
                "the \(branch.sink.kind.name) sink cannot hold \(codec.rawValue) undecoded; accept \(SpecDecoder.orList(takes.map(\.rawValue))), or decode",
                at: codecs.value.location)
        }
    }

    /// `mosaic: true` (1280x720) or `mosaic: {width: W, height: H}`.
    package mutating func decodeMosaic(_ entry: SpecEntry, media: MediaKind) -> MosaicSpec? {
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
    package mutating func decodeDecode(_ entry: SpecEntry) -> DecodeSpec {
        var decode = DecodeSpec(location: entry.keyLocation)
        switch entry.value.content {
        case .scalar(let text, let isNull):
            if isNull || text == "auto" { return decode }
            if text == "none" { decode.none = true; return decode }
            fail(
                "unknown decode '\(text)'; write `decode: auto`, `decode: none` or `decode: {element: avdec_h264}`"
                    + Suggestions.didYouMean(text, in: ["auto", "none"]), at: entry.value.location)
            return decode
        case .sequence:
            fail(
                "expected `auto` or a mapping for 'decode', got a list; write e.g. `decode: {element: avdec_h264}`",
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
                    elements.append(
                        SpecElementUse(
                            factory: name, location: element.value.location,
                            named: true, properties: uses))
                }
            } else {
                fail("decode needs 'element' (the decoder to use), or write `decode: auto`", at: entry.keyLocation)
            }
            return decode
        }
    }

    // MARK: - Sink

    /// `sink: stats` (shorthand for `{kind: stats}`), `{kind: file, path: out.webm}`, or
    /// `{gst: "<fragment>"}`; the kind's own keys are decoded by the kind (`Sink/`).
    package mutating func decodeSink(_ entry: SpecEntry, media: MediaKind) -> SinkSpec {
        var sink = SinkSpec(location: entry.keyLocation)
        switch entry.value.content {
        case .reported:
            return sink
        case .sequence:
            fail("expected a sink kind or a mapping for 'sink', got a list; write e.g. `sink: stats`", at: entry.value.location)
            return sink
        case .scalar:
            guard let kind = sinkKind(entry.value, name: "sink") else { return sink }
            if let needs = kind.needsKeys {
                fail(needs, at: entry.value.location)
                return sink
            }
            if let value = kind.decode([], media: media, at: entry.keyLocation, with: &self) { sink.kind = value }
            return sink
        case .mapping(let map):
            let kindEntry = map.entry("kind"), gstEntry = map.entry("gst")
            var kind = kindEntry.flatMap { sinkKind($0.value, name: "kind") }
            if kindEntry != nil, let gstEntry {
                fail("sink has both 'kind' and 'gst'; keep one of them", at: gstEntry.keyLocation)
            } else if kindEntry == nil, gstEntry == nil {
                let names = KindRegistry<any Sink>.list(SinkRegistry.kinds.names, conjunction: "or")
                fail("sink needs a 'kind' (\(names)) or a 'gst' launch fragment", at: entry.keyLocation)
            } else if kindEntry == nil {
                kind = SinkRegistry.fragment
            }
            var allowed =
                (kind == nil || kindEntry != nil ? ["kind"] : [])
                + (kind?.keys ?? SinkRegistry.kinds.all.flatMap(\.keys) + ["gst"])
            if kindEntry != nil, gstEntry != nil { allowed.append("gst") } // reported above
            checkKeys(map, allowed: allowed, context: "in sink") { key in Self.sinkKeyHint(key) }
            guard let kind else { return sink }
            let usable = map.filter { allowed.contains($0.key) }
            if let value = kind.decode(usable, media: media, at: entry.keyLocation, with: &self) { sink.kind = value }
            return sink
        }
    }

    /// The sink kind `node` names (otherwise reported).
    private mutating func sinkKind(_ node: SpecNode, name: String) -> (any Sink)? {
        sinkWord(node, name: name, choices: SinkRegistry.kinds.names).flatMap { SinkRegistry.kinds.kind(named: $0) }
    }

    /// Why `key` does not belong: another kind's, or the fragment's.
    private static func sinkKeyHint(_ key: String) -> String? {
        if key == "gst" { return "'gst' replaces 'kind'; keep one of them" }
        let owners = SinkRegistry.kinds.all.filter { $0.keys.contains(key) }.map(\.name)
        return owners.isEmpty ? nil : "'\(key)' only applies to kind \(KindRegistry<any Sink>.list(owners))"
    }

    /// A sink kind word; a plain `null` (which YAML reads as null) means the null sink.
    private mutating func sinkWord(_ node: SpecNode, name: String, choices: [String]) -> String? {
        if case .scalar(let text, true) = node.content, text.lowercased() == "null" { return "null" }
        return word(node, name: name, what: "sink kind", choices: choices)
    }
}
