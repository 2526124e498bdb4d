import Foundation

/// `encode.simulcast:`: the picture sent at several sizes at once, best first.
///
/// ```yaml
/// encode:
///   codec: vp8
///   simulcast:
///     - { rid: h }
///     - { rid: m, scale: 2, bitrate: 500 }
///     - { rid: l, scale: 4, bitrate: 150 }
/// ```
extension SpecDecoder {
    package static let simulcastLayerKeys = ["rid", "scale", "bitrate"]
    /// Most layers a publication may have (each is a live encoder; browsers send at most 4).
    package static let maxSimulcastLayers = 4
    /// The scales a layer may have: the capture's size halved 0 to 3 times.
    package static let simulcastScales = [1, 2, 4, 8]
    /// The codecs Sluice publishes simulcast in (what SFUs forward as simulcast).
    package static let simulcastCodecs: [Codec] = [.vp8, .h264]

    /// Decodes the list layer by layer; the checks against the capture and the rest of the
    /// branch are `checkSimulcast`.
    package mutating func decodeSimulcast(_ entry: SpecEntry, into encode: inout EncodeSpec) {
        guard
            let items = list(
                entry, counts: 2...Self.maxSimulcastLayers,
                tooFew: "simulcast sends at least two layers, e.g. [{rid: h}, {rid: l, scale: 4, bitrate: 150}]",
                tooMany: "simulcast has at most \(Self.maxSimulcastLayers) layers (each is a live encoder)")
        else { return }
        var layers: [SimulcastLayer] = []
        for item in items {
            guard let layer = decodeSimulcastLayer(item, index: layers.count, encode: encode) else { return }
            if let previous = layers.last, layer.scale <= previous.scale {
                fail(
                    "simulcast layers go from the largest to the smallest: layer '\(layer.rid)' (scale \(layer.scale)) "
                        + "must have a larger scale than '\(previous.rid)' (scale \(previous.scale))", at: layer.location ?? item.location)
                return
            }
            if layers.contains(where: { $0.rid == layer.rid }) {
                fail("two simulcast layers have rid '\(layer.rid)'; give each a distinct 'rid'", at: layer.location ?? item.location)
                return
            }
            layers.append(layer)
        }
        encode.simulcast = layers
    }

    /// One layer: its rid (letters and digits), scale (a power of two) and bitrate (default
    /// the encode bitrate divided by the layer's area ratio).
    private mutating func decodeSimulcastLayer(_ item: SpecNode, index: Int, encode: EncodeSpec) -> SimulcastLayer? {
        guard let map = item.entries else {
            if case .reported = item.content { return nil }
            fail("each simulcast layer is a mapping such as {rid: m, scale: 2, bitrate: 500}, got \(item.kindDescription)", at: item.location)
            return nil
        }
        checkKeys(map, allowed: Self.simulcastLayerKeys, context: "in a simulcast layer")
        guard let ridEntry = map.entry("rid") else {
            fail("simulcast layer \(index + 1) needs a 'rid': the name SFUs know it by, e.g. {rid: h}", at: item.location)
            return nil
        }
        guard let rid = nonEmptyText(ridEntry) else { return nil }
        guard rid.count <= 15, rid.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
            fail(
                "a rid is 1 to 15 letters or digits (RFC 8851; Janus reads at most 15), got '\(rid.prefix(40))'",
                at: ridEntry.value.location)
            return nil
        }
        var scale = 1
        if let s = map.entry("scale") {
            guard let value = integer(s, range: 1...8) else { return nil }
            guard Self.simulcastScales.contains(value) else {
                fail("'scale' halves the picture each way: 1, 2, 4 or 8, got \(value)", at: s.value.location)
                return nil
            }
            scale = value
        }
        var kbps = max(30, encode.bitrateKbps / (scale * scale))
        if let b = map.entry("bitrate") {
            guard let text = text(b) else { return nil }
            guard let value = SpecScalars.bitrateKbps(text), (30...100_000).contains(value) else {
                fail("invalid layer bitrate '\(text)'; write kbit/s between 30 and 100000 (500, 500k, 1M)", at: b.value.location)
                return nil
            }
            kbps = value
        }
        return SimulcastLayer(rid: rid, scale: scale, bitrateKbps: kbps, location: item.location)
    }

    /// What simulcast cannot be combined with, and layers the capture's size cannot give.
    package mutating func checkSimulcast(_ branch: SendBranchSpec, encodeEntries map: [SpecEntry]) {
        let encode = branch.encode
        guard let first = encode.simulcast.first, let at = first.location else { return }
        if !Self.simulcastCodecs.contains(encode.codec) {
            fail(
                "simulcast is sent in \(Self.orList(Self.simulcastCodecs.map(\.rawValue))), which SFUs forward layer by layer; "
                    + "set encode 'codec' to one of them", at: map.entry("codec")?.value.location ?? at)
        }
        let refused: [(key: String, why: String)] = [
            ("renditions", "renditions are a served stream's ladder; simulcast is the publisher's: keep one"),
            ("gst", "each simulcast layer has its own encoder, which Sluice sets up; remove 'gst' (use 'element' and 'properties')"),
            ("gop_cache", "a simulcast publication's layers are forwarded by the server; remove 'gop_cache'")
        ]
        for rule in refused { if let e = map.entry(rule.key) { fail(rule.why, at: e.keyLocation) } }
        if encode.adaptive != nil, let e = map.entry("bitrate") {
            fail(
                "with simulcast each layer has a fixed 'bitrate' and the server picks the layer a viewer's link carries; "
                    + "write one bitrate (the top layer's default) instead of {min, start, max}, and 'adaptive_layers: true' "
                    + "to send only the layers the link carries", at: e.value.location)
        }
        if let e = branch.record?.location {
            fail("a simulcast branch cannot be recorded yet; record it on the receiving side (`sink: {kind: record}`)", at: e)
        }
        checkSimulcastSizes(encode.simulcast, capture: branch.capture)
    }

    /// Each layer's size must be whole and even (4:2:0), and at least 16 pixels each way.
    private mutating func checkSimulcastSizes(_ layers: [SimulcastLayer], capture: CaptureSpec) {
        for layer in layers {
            guard let at = layer.location else { continue }
            let (width, height) = layer.size(of: capture)
            let whole = capture.width % layer.scale == 0 && capture.height % layer.scale == 0
            if !whole || width % 2 != 0 || height % 2 != 0 || width < 16 || height < 16 {
                let exact = whole ? "\(width)x\(height)" : "\(Double(capture.width) / Double(layer.scale))x\(Double(capture.height) / Double(layer.scale))"
                fail(
                    "layer '\(layer.rid)' at scale \(layer.scale) would be \(exact) of the \(capture.width)x\(capture.height) capture; "
                        + "a layer is even and at least 16x16: pick a capture size divisible by \(2 * layer.scale), or a smaller scale",
                    at: at)
            }
        }
    }
}
