import GStreamer

/// The elements that make a fallback's media (`capture.fallback`) in the format of the
/// stream it stands in for, so that what follows the switch sees the same caps: raw media
/// converted to the branch's raw caps, or, when the branch passes the source's encoding
/// through, encoded to its codec at its size and rate (H.264 constrained baseline, which
/// every H.264 decoder takes). They are made when the fallback goes on air and removed when
/// the source is back.
package struct FallbackSlate: Sendable {
    /// What to send.
    package let spec: FallbackSpec
    /// The branch's medium.
    package let media: MediaKind
    /// The codec the branch passes through (nil: the branch carries raw media).
    package let codec: Codec?

    /// The size and rate used when the source's caps do not say (a VP8 depayloader's).
    package struct Picture: Sendable {
        package var width: Int
        package var height: Int
        package var fps: Int
    }

    /// The element that writes `text:` (the built-in `text` filter).
    package static let textElement = "sluice-text"

    /// The elements a fallback needs (checked before a run, with install hints).
    package static func requiredElements(_ spec: FallbackSpec, media: MediaKind, codec: Codec?) -> [String] {
        var out = ["input-selector", "capsfilter"] + (media == .video ? ["videoconvert", "videoscale"] : ["audioconvert", "audioresample"])
        if spec.text != nil, media == .video { out.append(textElement) }
        switch spec.content {
        case .pattern: out.append("videotestsrc")
        case .silence: out.append("audiotestsrc")
        case .image(let path): out += ["filesrc", FallbackImage.decoder(for: path) ?? "pngdec", "imagefreeze"]
        }
        if let codec {
            out.append(DefaultElements.encoder(for: codec))
            if let parser = DefaultElements.parser(for: codec) { out.append(parser) }
        }
        return out
    }

    /// The chain, in order, made with `b` and not yet added: its last element's src pad
    /// gives the fallback in `caps` (the source's current caps on the switch).
    package func elements(matching caps: Caps, default picture: Picture, with b: GraphBuilder) throws(RunError) -> [Element] {
        let at = spec.location
        var chain = try source(with: b)
        chain +=
            media == .video
            ? [try b.make("videoconvert", at: at), try b.make("videoscale", at: at)]
            : [try b.make("audioconvert", at: at), try b.make("audioresample", at: at)]
        let fields = caps.structure(at: 0)
        guard let codec else {
            if media == .video, spec.text != nil {
                // The text is written on I420 at the stream's size, then converted to its format.
                chain += [try b.make("capsfilter", [("caps", Self.i420(like: fields, default: picture))], at: at)] + (try text(with: b))
                chain.append(try b.make("videoconvert", at: at))
            }
            return chain + [try b.make("capsfilter", [("caps", caps.description)], at: at)]
        }
        if media == .audio {
            let channels = fields?.get("channels", as: Int.self) ?? 2
            chain.append(try b.make("capsfilter", [("caps", "audio/x-raw,rate=48000,channels=\(channels)")], at: at))
            return chain + (try b.encoderChain(EncodeSpec(codec: codec, bitrateKbps: 32, location: at), fps: picture.fps))
        }
        let rate = Self.framerate(fields?.string(describing: "framerate")) ?? "\(picture.fps)/1"
        let fps = Int(rate.split(separator: "/").first ?? "") ?? picture.fps
        chain.append(try b.make("capsfilter", [("caps", Self.i420(like: fields, default: picture))], at: at))
        chain += try text(with: b)
        var encode = EncodeSpec(codec: codec, bitrateKbps: 300, location: at)
        encode.keyframeInterval = max(1, fps)
        return chain + (try b.encoderChain(encode, fps: fps))
    }

    /// Raw I420 caps at the size and rate of `fields` (the source's caps), or `picture`'s.
    private static func i420(like fields: Structure?, default picture: Picture) -> String {
        let width = fields?.get("width", as: Int.self) ?? picture.width, height = fields?.get("height", as: Int.self) ?? picture.height
        let rate = framerate(fields?.string(describing: "framerate")) ?? "\(picture.fps)/1"
        return "video/x-raw,format=I420,width=\(width),height=\(height),framerate=\(rate)"
    }

    /// The element writing `text:` in the middle of the picture, if the fallback has text.
    private func text(with b: GraphBuilder) throws(RunError) -> [Element] {
        guard media == .video, let text = spec.text else { return [] }
        return [try b.make(Self.textElement, [("text", text), ("position", "center")], at: spec.location)]
    }

    /// The source element(s): a live test pattern, a frozen picture, or live silence.
    private func source(with b: GraphBuilder) throws(RunError) -> [Element] {
        let at = spec.location
        switch spec.content {
        case .pattern(let pattern):
            return [try b.make("videotestsrc", [("is-live", "true"), ("pattern", pattern)], at: at)]
        case .silence:
            return [try b.make("audiotestsrc", [("is-live", "true"), ("wave", "silence")], at: at)]
        case .image(let path):
            return [
                try b.make("filesrc", [("location", path)], at: at), try b.make(FallbackImage.decoder(for: path) ?? "pngdec", at: at),
                try b.make("videoconvert", at: at), try b.make("imagefreeze", [("is-live", "true")], at: at)
            ]
        }
    }

    /// `30/1` from a caps framerate, unless it is absent or 0 (a stream that does not say).
    package static func framerate(_ text: String?) -> String? {
        guard let text, let slash = text.firstIndex(of: "/"), let n = Int(text[..<slash]), n > 0 else { return nil }
        return text
    }
}

/// A still picture file for `fallback: {image: …}`.
package enum FallbackImage {
    /// The decoder for the file's type, by extension (nil: not a PNG or JPEG).
    package static func decoder(for path: String) -> String? {
        let lower = path.lowercased()
        if lower.hasSuffix(".png") { return "pngdec" }
        if lower.hasSuffix(".jpg") || lower.hasSuffix(".jpeg") { return "jpegdec" }
        return nil
    }
}
