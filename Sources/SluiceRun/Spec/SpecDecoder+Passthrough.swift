/// `encode: {passthrough: true}` and `encode: none`: the capture's encoded media goes on as it is.
extension SpecDecoder {
    /// The encoder keys passthrough has no use for (it has no encoder; `renditions` below the
    /// source have encoders of their own, with the codec's defaults).
    package static let encoderOnlyKeys = ["bitrate", "keyframe_interval", "preset", "element", "properties", "gst"]

    /// `encode: none`: passthrough in the codec sources of this medium usually carry (H.264
    /// for video, Opus for audio).
    package static func passthroughEncode(_ entry: SpecEntry, media: MediaKind) -> EncodeSpec {
        var encode = EncodeSpec(codec: media == .video ? .h264 : .opus, bitrateKbps: 0, location: entry.keyLocation)
        encode.passthrough = true
        return encode
    }

    /// `passthrough: auto`: video only (viewers that cannot decode the source get it encoded
    /// again as H.264 Constrained Baseline or VP8).
    package mutating func decodePassthroughAuto(_ entry: SpecEntry, media: MediaKind, into encode: inout EncodeSpec) {
        guard media == .video else {
            fail(
                "'passthrough: auto' encodes the source again for viewers that cannot decode it (H.264 or VP8); "
                    + "it is for video, and every WebRTC viewer decodes Opus: use 'passthrough: true' here",
                at: entry.value.location)
            return
        }
        encode.transcodeForViewers = entry.value.location
    }

    /// Reports every encoder setting written next to `passthrough: true` (but those in
    /// `allowing`: `bitrate` is the re-encoding's with `passthrough: auto`).
    package mutating func refuseEncoderKeys(_ map: [SpecEntry], allowing: Set<String> = []) {
        for entry in map where Self.encoderOnlyKeys.contains(entry.key) && !allowing.contains(entry.key) {
            fail(
                "'\(entry.key)' sets up the encoder, and passthrough has none; remove '\(entry.key)', or remove 'passthrough' to transcode",
                at: entry.keyLocation)
        }
    }

    /// Passthrough needs a capture that delivers encoded media, and no filters (they work on
    /// decoded frames).
    package mutating func checkPassthrough(_ encodeEntry: SpecEntry, media: MediaKind, capture: CaptureSpec, filters: SpecEntry?) {
        if let kind = CaptureRegistry.capture(for: capture.kind), let refusal = kind.passthroughRefusal(for: media) {
            let able = CaptureRegistry.kinds.all.filter { $0.passthroughRefusal(for: media) == nil }.map(\.name)
            let hint = able.isEmpty ? "" : " (\(Self.orList(able)))"
            fail("\(refusal); pass through only from a source that is already encoded\(hint), or remove passthrough", at: encodeEntry.keyLocation)
        }
        if let filters, case .sequence(let items) = filters.value.content, !items.isEmpty {
            fail(
                "filters work on decoded frames, and passthrough decodes nothing; remove the filters, or remove passthrough to transcode",
                at: filters.keyLocation)
        }
    }
}
