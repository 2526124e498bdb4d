import GStreamer

/// The decoding chain of a capture whose source sends encoded streams (a camera, a network
/// stream): decodebin, then the branch's normalizer.
extension GraphBuilder {
    /// The chain a decoding capture returns, and the pad its source's stream goes to.
    package struct DecodingChain {
        /// decodebin's sink pad: where the source's encoded stream enters.
        package var entrance: Pad
        /// The elements after decodebin, ending in the branch's raw format.
        package var chain: [Element]
    }

    /// decodebin → (clocksync, if `paced`: for sources that are not live) → the normalizer to
    /// `rawCaps`, added to the pipeline. decodebin's first pad of `media` links to the chain.
    package func decodingChain(media: MediaKind, rawCaps: String, paced: Bool, at location: SourceLocation?) throws(RunError) -> DecodingChain {
        let decoder = try make("decodebin", at: location)
        let pace = paced ? [try pacer(at: location)] : []
        let chain = pace + (try normalizer(video: media == .video, caps: rawCaps, at: location))
        try add([decoder] + chain)
        guard let entrance = chain.first?.staticPad("sink"), let decoderInput = decoder.staticPad("sink") else {
            throw RunError("decodebin has no sink pad", at: location)
        }
        let prefix = media == .video ? "video/" : "audio/"
        decoder.connect("pad-added") { (args: borrowing SignalArguments) in
            guard let pad = args.object(1, as: Pad.self),
                let kind = (pad.currentCaps ?? pad.queryCaps())?.structure(at: 0)?.name, kind.hasPrefix(prefix),
                !entrance.isLinked
            else { return }
            try? pad.link(entrance)
        }
        return DecodingChain(entrance: decoderInput, chain: chain)
    }

    /// clocksync that plays a source which is not live (a file, a served stream) at the
    /// pipeline clock's pace, from its first buffer on; held there while `sourceHold` holds.
    package func pacer(at location: SourceLocation?) throws(RunError) -> Element {
        let pacer = try make("clocksync", [("sync", "true"), ("sync-to-first", "true")], at: location)
        if let sourceHold, let entrance = pacer.staticPad("sink") { sourceHold.hold(entrance) }
        return pacer
    }
}
