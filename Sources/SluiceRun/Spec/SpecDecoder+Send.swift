import Foundation

/// `send:`, its branches, `capture:` and `encode:`.
extension SpecDecoder {
    package static let sideKeys = ["video", "audio"]
    package static let sendBranchKeys = ["capture", "filters", "encode", "encoded_filters", "record", "send"]

    package mutating func decodeSend(_ entry: SpecEntry) -> Side<SendBranchSpec> {
        decodeSide(entry, name: "send") { decoder, branch, media in decoder.decodeSendBranch(branch, media: media) }
    }

    /// `send:` or `receive:`: a `video` and an `audio` branch, each decoded by `branch`.
    package mutating func decodeSide<Branch>(
        _ entry: SpecEntry, name: String, otherKeys: [String] = [],
        branch decodeBranch: (inout SpecDecoder, SpecEntry, MediaKind) -> Branch?
    ) -> Side<Branch> {
        var side = Side<Branch>(key: entry)
        guard let map = mapping(entry) else { return side }
        checkKeys(map, allowed: Self.sideKeys + otherKeys, context: "in \(name)")
        for media in MediaKind.allCases {
            guard let branch = map.entry(media.rawValue) else { continue }
            side.present[media] = branch.keyLocation
            let decoded = decodeBranch(&self, branch, media)
            if media == .video { side.video = decoded } else { side.audio = decoded }
        }
        return side
    }

    package mutating func decodeSendBranch(_ entry: SpecEntry, media: MediaKind) -> SendBranchSpec? {
        guard let map = mapping(entry) else { return nil }
        checkKeys(map, allowed: Self.sendBranchKeys, context: "in send.\(media)")
        var capture = CaptureSpec(location: entry.keyLocation)
        if let captureEntry = map.entry("capture") {
            capture = decodeCapture(captureEntry, media: media)
        } else {
            fail("send.\(media) needs a 'capture' section, e.g. `capture: {kind: test}`", at: entry.keyLocation)
        }
        let filters = map.entry("filters").map { decodeFilters($0, media: media) } ?? []
        var encode = Self.defaultEncode(for: media, location: entry.keyLocation)
        if let encodeEntry = map.entry("encode") {
            if encodeEntry.value.scalarText == "none" {
                encode = Self.passthroughEncode(encodeEntry, media: media)
            } else {
                encode = decodeEncode(encodeEntry, media: media, branch: "send.\(media)").spec
                checkRenditions(encode, entries: encodeEntry.value.entries ?? [], capture: capture)
            }
            if encode.passthrough {
                checkPassthrough(encodeEntry, media: media, capture: capture, filters: map.entry("filters"))
            }
        }
        if let send = map.entry("send") {
            _ = word(send.value, name: "send", what: "send target", choices: ["webrtc"])
        }
        var branch = SendBranchSpec(
            media: media, capture: capture, filters: filters, encode: encode,
            location: entry.keyLocation)
        if let encoded = map.entry("encoded_filters") {
            branch.encodedFilters = decodeFilters(encoded, media: media, encoded: true)
            checkEncodedFilterCodecs(
                branch.encodedFilters, codecs: [encode.codec], branch: "send.\(media) encodes \(encode.codec.rawValue)",
                advice: "encode with a codec it handles")
        }
        if let record = map.entry("record") { branch.record = decodeSendRecord(record, branch: branch) }
        checkSimulcast(branch, encodeEntries: map.entry("encode")?.value.entries ?? [])
        return branch
    }

    /// `record: {path, segment, format, keep}`: the branch's encoded stream recorded as a
    /// `record` sink records (no `encode`: what is sent is what is recorded).
    package mutating func decodeSendRecord(_ entry: SpecEntry, branch: SendBranchSpec) -> SinkSpec? {
        guard let map = mapping(entry) else { return nil }
        let sink = RecordSink()
        checkKeys(map, allowed: sink.keys.filter { $0 != "encode" }, context: "in send.\(branch.media).record")
        guard let kind = sink.decode(map.filter { $0.key != "encode" }, media: branch.media, at: entry.keyLocation, with: &self),
            let settings = kind.settings(as: RecordSink.Settings.self)
        else { return nil }
        let codec = branch.encode.codec
        if !settings.format.codecs.contains(codec) {
            let fitting = RecordFormat.allCases.filter { $0.codecs.contains(codec) }.map(\.rawValue)
            fail(
                "send.\(branch.media) sends \(codec.rawValue), which \(settings.format.rawValue) cannot hold; record to \(Self.orList(fitting))",
                at: entry.keyLocation)
        }
        if !branch.encode.renditions.isEmpty, !branch.encode.passthrough {
            fail("a branch with renditions cannot be recorded yet; record it on the receiving side (`sink: {kind: record}`)", at: entry.keyLocation)
        }
        return SinkSpec(kind: kind, location: entry.keyLocation)
    }

    /// The encoder settings used when a branch has no `encode:`: VP8 at 2000 kbit/s for
    /// video, Opus at 64 kbit/s for audio.
    package static func defaultEncode(for media: MediaKind, location: SourceLocation?) -> EncodeSpec {
        media == .video
            ? EncodeSpec(codec: .vp8, bitrateKbps: 2000, location: location)
            : EncodeSpec(codec: .opus, bitrateKbps: 64, location: location)
    }

    // MARK: - Capture

    /// `capture:`: a kind (`CaptureRegistry`) or a `gst` fragment, the branch's raw format,
    /// and the kind's own keys, decoded by the kind.
    package mutating func decodeCapture(_ entry: SpecEntry, media: MediaKind) -> CaptureSpec {
        var capture = CaptureSpec(location: entry.keyLocation)
        guard let map = mapping(entry) else { return capture }
        let kindEntry = map.entry("kind"), gstEntry = map.entry("gst")
        var kind = kindEntry.flatMap { captureKind($0, media: media) }
        if kindEntry != nil, let gstEntry {
            fail("capture has both 'kind' and 'gst'; keep one of them", at: gstEntry.keyLocation)
        } else if kindEntry == nil, gstEntry == nil {
            let names = KindRegistry<any Capture>.list(CaptureRegistry.kinds.names, conjunction: "or")
            fail("capture needs a 'kind' (\(names)) or a 'gst' launch fragment", at: entry.keyLocation)
        } else if kindEntry == nil {
            kind = CaptureRegistry.fragment
        }
        var allowed = Self.captureKeys(kind, media: media, named: kindEntry != nil)
        if kindEntry != nil, gstEntry != nil { allowed.append("gst") } // reported above
        if kind?.takesAnyKey == true {
            // Its own settings may share a name with another kind's key (`wave`, `frequency`);
            // only the keys every capture has, and the raw format's, stay reserved.
            let reserved = Set(["kind", "gst", "fallback"] + CaptureRegistry.formatKeys(for: .video) + CaptureRegistry.formatKeys(for: .audio))
            allowed += map.map(\.key).filter { !reserved.contains($0) }
        }
        checkKeys(map, allowed: allowed, context: "in capture") { key in Self.captureKeyHint(key, media: media) }
        // Keys not allowed were reported above and are ignored here.
        let usable = map.filter { allowed.contains($0.key) }
        decodeFormat(usable, media: media, into: &capture)
        if let kind, let value = kind.decode(usable, media: media, into: &capture, at: entry.keyLocation, with: &self) {
            capture.kind = value
        }
        if let e = usable.entry("fallback") { capture.fallback = decodeFallback(e, media: media) }
        return capture
    }

    /// The kind `kind:` names, if it exists and captures `media` (otherwise reported).
    private mutating func captureKind(_ entry: SpecEntry, media: MediaKind) -> (any Capture)? {
        guard let word = word(entry.value, name: "kind", what: "capture kind", choices: CaptureRegistry.kinds.names),
            let kind = CaptureRegistry.kinds.kind(named: word)
        else { return nil }
        if let refusal = kind.refusal(for: media) {
            fail(refusal, at: entry.value.location)
            return nil
        }
        return kind
    }

    /// The keys a capture of `kind` may have (every kind's for `media`, when the kind is unknown).
    private static func captureKeys(_ kind: (any Capture)?, media: MediaKind, named: Bool) -> [String] {
        let own = kind.map { $0.keys(for: media) } ?? (CaptureRegistry.kinds.all.flatMap { $0.keys(for: media) } + ["gst"])
        let fallback = kind.map(\.reconnects) ?? true ? ["fallback"] : []
        return (named || kind == nil ? ["kind"] : []) + own + fallback + CaptureRegistry.formatKeys(for: media)
    }

    /// Every key some capture of `media` may have.
    private static func everyCaptureKey(_ media: MediaKind) -> [String] {
        ["kind", "gst", "fallback"] + CaptureRegistry.formatKeys(for: media) + CaptureRegistry.kinds.all.flatMap { $0.keys(for: media) }
    }

    /// Why `key` does not belong: the other medium's, or another kind's.
    private static func captureKeyHint(_ key: String, media: MediaKind) -> String? {
        let other: MediaKind = media == .video ? .audio : .video
        if everyCaptureKey(other).contains(key), !everyCaptureKey(media).contains(key) {
            return "'\(key)' is \(other == .video ? "a video" : "an audio") key and this is the \(media) branch"
        }
        let owners = CaptureRegistry.kinds.all.filter { $0.keys(for: media).contains(key) }.map(\.name)
        if !owners.isEmpty { return "'\(key)' only applies to kind \(KindRegistry<any Capture>.list(owners))" }
        if key == "gst" { return "'gst' replaces 'kind'; keep one of them" }
        if key == "fallback" {
            let live = CaptureRegistry.kinds.all.filter(\.reconnects).map(\.name)
            return "'fallback' only applies to live network sources that can go away (kind \(Self.orList(live)))"
        }
        return nil
    }

    /// The branch's raw format: width, height and fps; or rate and channels.
    private mutating func decodeFormat(_ map: [SpecEntry], media: MediaKind, into capture: inout CaptureSpec) {
        if let e = map.entry("width"), let v = evenDimension(e) { capture.width = v }
        if let e = map.entry("height"), let v = evenDimension(e) { capture.height = v }
        if let e = map.entry("fps"), let v = integer(e, range: 1...240) { capture.fps = v }
        if let e = map.entry("rate"), let v = integer(e, range: 8000...192000) { capture.rate = v }
        if let e = map.entry("channels"), let v = integer(e, range: 1...8) { capture.channels = v }
    }

    /// Video width/height: an even integer from 16 to 7680.
    private mutating func evenDimension(_ entry: SpecEntry) -> Int? {
        guard let value = integer(entry, range: 16...7680) else { return nil }
        guard value % 2 == 0 else {
            fail(
                "\(entry.key) must be even for 4:2:0 video, got \(value); use \(value - 1) or \(value + 1)",
                at: entry.value.location)
            return nil
        }
        return value
    }

    /// `file://` URI for a capture path; a relative path is relative to the pipeline file's
    /// directory.
    package func fileURI(forPath path: String) -> String {
        let base = URL(fileURLWithPath: file).deletingLastPathComponent()
        return URL(fileURLWithPath: path, relativeTo: base).standardizedFileURL.absoluteString
    }

    /// `scheme:rest` with an RFC 3986 scheme.
    package static func looksLikeURI(_ text: String) -> Bool {
        guard let colon = text.firstIndex(of: ":"), colon > text.startIndex else { return false }
        let scheme = text[..<colon]
        guard let first = scheme.first, first.isASCII, first.isLetter else { return false }
        return scheme.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }
            && text.index(after: colon) < text.endIndex
    }

    // MARK: - Encode

    /// `bitrate: {min: 300, start: 1500, max: 2500}` (kbit/s, units allowed as for a plain
    /// bitrate). `min` and `max` are required; `start` defaults to 1000 within them.
    /// `scale_below` and `fps_below` (between min and max) lower the resolution, then the
    /// frame rate, while the target is under them.
    package mutating func decodeAdaptiveBitrate(_ map: [SpecEntry], at location: SourceLocation) -> AdaptiveBitrate? {
        let keys = ["min", "start", "max", "scale_below", "fps_below"]
        checkKeys(map, allowed: keys, context: "in bitrate") { _ in nil }
        if map.contains(where: { !keys.contains($0.key) }) { return nil } // one mistake, one diagnostic
        func kbps(_ key: String) -> (Int, SourceLocation)? {
            guard let e = map.entry(key), let text = text(e) else { return nil }
            guard let v = SpecScalars.bitrateKbps(text) else {
                fail("invalid bitrate '\(text)' for '\(key)'; write kbit/s as an integer (2000) or with a unit (2000k, 2M)", at: e.value.location)
                return nil
            }
            guard (30...100_000).contains(v) else {
                fail("'\(key)' must be between 30 and 100000 kbit/s, got \(text)", at: e.value.location)
                return nil
            }
            return (v, e.value.location)
        }
        let lo = kbps("min"), hi = kbps("max"), start = kbps("start")
        guard map.entry("min") != nil, map.entry("max") != nil else {
            fail("an adaptive bitrate needs 'min' and 'max' (and may give 'start'), e.g. {min: 300, start: 1500, max: 2500}", at: location)
            return nil
        }
        guard let (minKbps, _) = lo, let (maxKbps, maxLocation) = hi else { return nil }
        guard minKbps <= maxKbps else {
            fail("'max' (\(maxKbps) kbit/s) is below 'min' (\(minKbps) kbit/s)", at: maxLocation)
            return nil
        }
        if map.entry("start") != nil && start == nil { return nil }
        let startKbps = start?.0 ?? min(max(1000, minKbps), maxKbps)
        if let (s, at) = start, !(minKbps...maxKbps).contains(s) {
            fail("'start' (\(s) kbit/s) must lie between 'min' (\(minKbps)) and 'max' (\(maxKbps))", at: at)
            return nil
        }
        var thresholds: [String: Int] = [:]
        for key in ["scale_below", "fps_below"] where map.entry(key) != nil {
            guard let (v, at) = kbps(key) else { return nil }
            guard v > minKbps && v <= maxKbps else {
                fail("'\(key)' (\(v) kbit/s) must lie above 'min' (\(minKbps)) and at most 'max' (\(maxKbps)): below it the picture is made smaller", at: at)
                return nil
            }
            thresholds[key] = v
        }
        if let scale = thresholds["scale_below"], let fps = thresholds["fps_below"], fps > scale,
            let at = map.entry("fps_below")?.value.location
        {
            fail("'fps_below' (\(fps)) is above 'scale_below' (\(scale)): the resolution goes first, then the frame rate", at: at)
            return nil
        }
        return AdaptiveBitrate(
            minKbps: minKbps, startKbps: startKbps, maxKbps: maxKbps, scaleBelowKbps: thresholds["scale_below"],
            fpsBelowKbps: thresholds["fps_below"], location: location)
    }

    package static func encodeKeys(media: MediaKind) -> [String] {
        media == .video
            ? [
                "codec", "passthrough", "bitrate", "keyframe_interval", "preset", "element", "properties", "gst", "renditions",
                "gop_cache", "simulcast", "adaptive_layers"
            ]
            : ["codec", "passthrough", "bitrate", "preset", "element", "properties", "gst"]
    }

    /// Decodes an `encode:` mapping; also returns where its codec was written (for container
    /// checks).
    package mutating func decodeEncode(
        _ entry: SpecEntry, media: MediaKind, branch: String,
        defaultCodec: Codec? = nil
    ) -> (spec: EncodeSpec, codecLocation: SourceLocation?) {
        var encode = Self.defaultEncode(for: media, location: entry.keyLocation)
        if let defaultCodec { encode.codec = defaultCodec }
        guard let map = mapping(entry) else { return (encode, nil) }
        checkKeys(map, allowed: Self.encodeKeys(media: media), context: "in encode") { key in
            ["keyframe_interval", "renditions", "gop_cache", "simulcast", "adaptive_layers"].contains(key)
                ? "'\(key)' is a video key and this is the audio branch" : nil
        }
        let codecLocation = decodeEncodeCodec(map, media: media, into: &encode)
        if let e = map.entry("passthrough"), e.value.scalarText == "auto" || bool(e) == true {
            encode.passthrough = true
            if e.value.scalarText == "auto" {
                if codecLocation == nil, media == .video { encode.codec = .h264 } // auto is about H.264's profiles
                decodePassthroughAuto(e, media: media, into: &encode)
                decodeTranscodeBitrate(map, into: &encode)
            }
            refuseEncoderKeys(map, allowing: e.value.scalarText == "auto" ? ["bitrate"] : [])
            if let cache = map.entry("gop_cache") {
                fail("a passthrough stream always starts its viewers from the source's latest keyframe; remove 'gop_cache'", at: cache.keyLocation)
            }
            if media == .video, let e = map.entry("renditions") { decodeRenditions(e, into: &encode) }
            if media == .video, let e = map.entry("simulcast") {
                fail(
                    "each simulcast layer is encoded from the decoded picture, and passthrough decodes nothing; remove 'simulcast' or 'passthrough'",
                    at: e.keyLocation)
            }
            return (encode, codecLocation)
        }
        decodeEncodeBitrate(map, media: media, into: &encode)
        if media == .video, let e = map.entry("keyframe_interval"), let v = integer(e, range: 1...10_000) {
            encode.keyframeInterval = v
        }
        if media == .video, let e = map.entry("renditions") {
            decodeRenditions(e, into: &encode)
        }
        if media == .video, let e = map.entry("simulcast") { decodeSimulcast(e, into: &encode) }
        if media == .video, let e = map.entry("adaptive_layers"), let on = bool(e) {
            if on, encode.simulcast.isEmpty {
                fail("'adaptive_layers' switches simulcast layers on and off; add 'simulcast' layers or remove it", at: e.keyLocation)
            }
            encode.adaptiveLayers = on
        }
        if media == .video, let e = map.entry("gop_cache"), bool(e) == true {
            if encode.renditions.isEmpty {
                encode.gopCache = e.value.location
            } else {
                fail("'gop_cache' keeps one encoder's frames; with 'renditions' each viewer starts from its rung's keyframe", at: e.value.location)
            }
        }
        if let e = map.entry("preset"), let preset: EncoderPreset = choice(e, what: "encoder preset") {
            encode.preset = preset
        }
        decodeEncoderElement(map, encodeLocation: entry.keyLocation, into: &encode)
        return (encode, codecLocation)
    }

    /// `codec`, which must be one of the branch's media; returns where it was written (nil:
    /// not given or not a codec).
    private mutating func decodeEncodeCodec(_ map: [SpecEntry], media: MediaKind, into encode: inout EncodeSpec) -> SourceLocation? {
        guard let e = map.entry("codec"), let codec: Codec = choice(e, what: "codec") else { return nil }
        if codec.media == media {
            encode.codec = codec
        } else {
            let fitting = Codec.allCases.filter { $0.media == media }.map(\.rawValue)
            fail(
                "codec '\(codec.rawValue)' is \(codec.media == .audio ? "an audio" : "a video") codec but this is the \(media) branch; use \(Self.orList(fitting))",
                at: e.value.location)
        }
        return e.value.location
    }

    /// `bitrate` next to `passthrough: auto`: the rate the stream is encoded again at for the
    /// viewers that cannot take it as it is (one rate: those encoders do not adapt).
    private mutating func decodeTranscodeBitrate(_ map: [SpecEntry], into encode: inout EncodeSpec) {
        guard let e = map.entry("bitrate") else { return }
        if e.value.entries != nil {
            fail("with 'passthrough: auto', 'bitrate' is the one rate the stream is encoded again at (2000)", at: e.value.location)
            return
        }
        var written = encode
        written.bitrateKbps = 0 // stays 0 if the rate is refused
        decodeEncodeBitrate(map, media: .video, into: &written)
        if written.bitrateKbps > 0 { encode.transcodeKbps = written.bitrateKbps }
    }

    /// `bitrate`: one rate in kbit/s, or (video only) a mapping of adaptive limits whose start
    /// rate becomes the bitrate.
    private mutating func decodeEncodeBitrate(_ map: [SpecEntry], media: MediaKind, into encode: inout EncodeSpec) {
        if let e = map.entry("bitrate"), let limits = e.value.entries {
            if media == .video {
                if let adaptive = decodeAdaptiveBitrate(limits, at: e.value.location) {
                    encode.adaptive = adaptive
                    encode.bitrateKbps = adaptive.startKbps
                }
            } else {
                fail("only video adapts its bitrate to the network; give the audio branch one bitrate (64)", at: e.value.location)
            }
        } else if let e = map.entry("bitrate"), let text = text(e) {
            if let kbps = SpecScalars.bitrateKbps(text) {
                if (1...100_000).contains(kbps) {
                    encode.bitrateKbps = kbps
                } else {
                    fail("'bitrate' must be between 1 and 100000 kbit/s, got \(text)", at: e.value.location)
                }
            } else {
                fail(
                    "invalid bitrate '\(text)'; write kbit/s as an integer (2000) or with a unit (2000k, 2M)",
                    at: e.value.location)
            }
        }
    }

    /// The encoder element: a `gst` fragment in its place, or an `element` and/or
    /// `properties`, recorded as element uses (on the default encoder when only properties
    /// are given, at `encodeLocation`).
    private mutating func decodeEncoderElement(_ map: [SpecEntry], encodeLocation: SourceLocation, into encode: inout EncodeSpec) {
        let elementEntry = map.entry("element"), propertiesEntry = map.entry("properties")
        if let gstEntry = map.entry("gst") {
            if elementEntry != nil || propertiesEntry != nil {
                fail(
                    "encode 'gst' replaces the encoder element, so it cannot be combined with 'element' or 'properties'; keep one",
                    at: gstEntry.keyLocation)
            } else if let text = fragment(gstEntry) {
                encode.gst = text
            }
            return
        }
        var factory: String?
        if let elementEntry, let name = factoryName(elementEntry) {
            factory = name
            encode.element = name
        }
        var uses: [SpecPropertyUse] = []
        if let propertiesEntry {
            (encode.properties, uses) = properties(propertiesEntry)
        }
        if let factory, let elementEntry {
            elements.append(
                SpecElementUse(
                    factory: factory, location: elementEntry.value.location,
                    named: true, properties: uses))
        } else if elementEntry == nil, !uses.isEmpty {
            elements.append(
                SpecElementUse(
                    factory: DefaultElements.encoder(for: encode.codec),
                    location: encodeLocation, named: false, properties: uses))
        }
    }

    /// `a`, `a or b`, `a, b or c`.
    package static func orList(_ items: [String]) -> String {
        guard let last = items.last else { return "" }
        let head = items.dropLast()
        return head.isEmpty ? last : head.joined(separator: ", ") + " or " + last
    }
}

extension SpecNode {
    /// The text of a non-null scalar.
    package var scalarText: String? {
        if case .scalar(let text, false) = content { return text }
        return nil
    }
}
