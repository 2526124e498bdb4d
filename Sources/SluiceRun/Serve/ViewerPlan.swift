import GStreamer
import SluiceSignalling

/// What a viewer's offer asks for, matched against what a stream has: which offered media
/// section carries which of the stream's media, on which payload type, with which MID — and
/// the offer as webrtcbin should see it.
package struct ViewerPlan {
    package struct Track {
        package var media: MediaKind; package var parameters: RTPSendParameters
        /// The viewer cannot decode the source as it is: it gets the stream encoded again in
        /// this codec (`passthrough: auto`; H.264 is Constrained Baseline). Nil: the source's.
        package var transcodedTo: Codec?
        /// Whether it gets the stream encoded again.
        package var transcoded: Bool { transcodedTo != nil }
    }

    /// One track per stream medium the offer can take, in the offer's order.
    package let tracks: [Track]
    /// The offer with the header extensions Sluice does not write removed (see
    /// `SDPRewrite.keepingExtensions`).
    package let offerToApply: String
    /// What the server should say about how the offer was met (a profile sent on another
    /// payload type).
    package private(set) var notes: [String] = []

    /// The most media sections an offer may have (browsers offer 2–3; a camera API offer 3).
    package static let maxSections = 16

    /// With `adaptiveVideo`, a video track takes the offer's transport-wide congestion
    /// control (extension and `transport-cc` feedback) when it has it. `h264Profiles` gives
    /// the H.264 profile a medium's stream has when it is not Sluice's own Constrained
    /// Baseline (a camera passed through): only payload types whose decoder takes it qualify,
    /// unless the medium is in `transcodable` (`passthrough: auto`): a section with none is
    /// then matched as for a stream encoded again (`transcodeTargets`, in order), and its
    /// track marked `transcodedTo` that codec.
    package init(
        offer: String, outputs: [(media: MediaKind, codec: Codec)], adaptiveVideo: Bool = false,
        h264Profiles: [MediaKind: H264Profile] = [:], transcodable: Set<MediaKind> = []
    ) throws(ViewerOfferError) {
        let session = SDPSession(offer)
        guard !session.media.isEmpty else { throw ViewerOfferError("the offer has no media section") }
        guard session.media.count <= Self.maxSections else {
            throw ViewerOfferError("the offer has \(session.media.count) media sections; at most \(Self.maxSections) are accepted")
        }
        var used = Set<Int>()
        var tracks: [(index: Int, track: Track)] = []
        for output in outputs {
            for (i, section) in session.media.enumerated() where !used.contains(i) {
                guard section.kind == output.media.rawValue, section.remoteReceives,
                    section.port != 0 || section.mid.map(session.bundleGroup.contains) == true,
                    let (choice, transcodedTo) = Self.choose(
                        output, in: section, profile: h264Profiles[output.media], transcodable: transcodable.contains(output.media))
                else { continue }
                used.insert(i)
                if let transcodedTo {
                    notes.append(Self.transcodeNote(output.codec, profile: h264Profiles[output.media], to: transcodedTo))
                }
                tracks.append(
                    (
                        i,
                        Track(
                            media: output.media,
                            parameters: .answering(
                                transcodedTo ?? output.codec, choice: choice, mid: section.mid,
                                congestionControl: adaptiveVideo && output.media == .video),
                            transcodedTo: transcodedTo)
                    ))
                break
            }
        }
        guard !tracks.isEmpty else { throw Self.noMatch(session, outputs: outputs, h264Profiles: h264Profiles) }
        self.tracks = tracks.sorted { $0.index < $1.index }.map(\.track)
        let twcc = self.tracks.contains { $0.parameters.twccExtensionID != nil }
        offerToApply = SDPRewrite.keepingExtensions(
            twcc
                ? [RTPHeaderExtension.mid, RTPHeaderExtension.transportWideCC]
                : [RTPHeaderExtension.mid], in: offer)
    }
}

extension ViewerPlan {
    /// What a stream is encoded again in for a viewer that cannot decode it as it is
    /// (`passthrough: auto`), in order of preference: H.264 Constrained Baseline (every
    /// browser's and most players' decoder), then VP8 (Firefox without OpenH264).
    package static let transcodeTargets: [Codec] = [.h264, .vp8]

    /// The payload type `section` gets `output` on: one whose decoder takes the stream's
    /// `profile` (Sluice's own Constrained Baseline without one); failing that, when the
    /// stream is `transcodable`, the first of `transcodeTargets` the section can take (H.264
    /// as Constrained Baseline), with that codec.
    fileprivate static func choose(
        _ output: (media: MediaKind, codec: Codec), in section: SDPMediaDescription, profile: H264Profile?, transcodable: Bool
    ) -> (CodecMatch.Choice, transcodedTo: Codec?)? {
        // Every payload type is usable: PayloadTypeRewrite sends what the payloaders cannot write.
        if let choice = CodecMatch.choose(output.codec.encodingName, in: section, h264: profile ?? .sluiceEncoded) {
            return (choice, nil)
        }
        guard transcodable, output.media == .video else { return nil }
        for target in transcodeTargets where target != output.codec || profile != nil {
            if let choice = CodecMatch.choose(target.encodingName, in: section, h264: .sluiceEncoded) {
                return (choice, target)
            }
        }
        return nil
    }

    /// What the server says when a viewer gets the stream encoded again.
    private static func transcodeNote(_ source: Codec, profile: H264Profile?, to target: Codec) -> String {
        let again = target == .h264 ? "Constrained Baseline" : target.encodingName
        if source == .h264, target == .h264, let profile {
            return "the viewer's H.264 decoders cannot take the stream's \(profile): it gets the stream encoded again as \(again)"
        }
        return "the viewer takes no \(source.encodingName) it can decode: it gets the stream encoded again as \(again)"
    }

    /// The refusal of an offer with nothing the stream can be sent on: what the stream has,
    /// what the offer has (H.264 with each payload type's profile), and, when only an H.264
    /// profile stood in the way, what would serve it.
    fileprivate static func noMatch(
        _ session: SDPSession, outputs: [(media: MediaKind, codec: Codec)], h264Profiles: [MediaKind: H264Profile]
    ) -> ViewerOfferError {
        let offered = session.media.map { m in
            "\(m.kind) (\(m.direction)): " + m.formats.compactMap(Self.describe).joined(separator: ", ")
        }.joined(separator: "; ")
        let have = outputs.map { o in
            "\(o.media.rawValue) \(o.codec.encodingName)" + (h264Profiles[o.media].map { " \($0)" } ?? "")
        }.joined(separator: ", ")
        let passedThrough = outputs.filter { o in o.codec == .h264 && h264Profiles[o.media] != nil }
        let offersH264 = passedThrough.contains { o in
            session.media.contains { $0.kind == o.media.rawValue && $0.formats.contains { $0.encoding == "H264" } }
        }
        let encodeAgain =
            "the stream must be encoded again: for such viewers only (`encode: { passthrough: auto }`), or for all (`encode: { codec: h264 }`)"
        let hint =
            passedThrough.isEmpty
            ? ""
            : offersH264
                ? ". The stream's H.264 is passed through from its source, so its profile cannot change: the viewer must offer "
                    + "a profile that decodes it (browsers offer High), or " + encodeAgain
                : ". The stream's H.264 is passed through from its source, and the viewer offers no H.264 (Firefox without "
                    + "OpenH264 has none): " + encodeAgain
        return ViewerOfferError(
            "the offer has no media section this stream can be sent on: the stream has \(have); "
                + "the offer has \(offered.isEmpty ? "nothing" : offered)\(hint)")
    }

    private static func describe(_ f: SDPMediaDescription.Format) -> String? {
        guard !f.encoding.isEmpty, f.encoding != "RTX" else { return nil }
        guard f.encoding == "H264" else { return f.encoding }
        let mode = f.parameters["packetization-mode"] == "1" ? "" : " packetization-mode \(f.parameters["packetization-mode"] ?? "0")"
        return "H264 " + (CodecMatch.h264Profile(of: f)?.description ?? "(profile-level-id \(f.parameters["profile-level-id"] ?? "?"))") + mode
    }
}

/// An offer a stream cannot serve (the client's fault: a 4xx).
package struct ViewerOfferError: Error, CustomStringConvertible {
    package var description: String
    package init(_ description: String) { self.description = description }
}

/// The elements between a stream's `tee` and a viewer's webrtcbin for one medium:
/// queue (leaky: a slow viewer drops its own frames) → payloader → capsfilter. A viewer on a
/// lane (`FanoutLanes`) has no queue of its own: the lane's thread pushes through its payloader.
package enum ViewerBranch {
    /// One medium's branch of a viewer.
    package struct Built {
        /// [queue →] payloader → capsfilter, in the pipeline and linked.
        package var elements: [Element]
        /// Its own queue (nil on a lane).
        package var queue: Element?
        package var payloader: Element
        /// Where the stream enters: the queue's sink pad, or the payloader's on a lane.
        package var entrance: Pad
    }

    /// Builds the branch for `p` into `webrtcbin`, whose transceiver for it takes `direction`
    /// (`sendrecv` for a call's member, which also plays what the other side sends). Without
    /// `ownQueue` it starts at the payloader, for a lane's thread to push into. With
    /// `opaqueFrames` (the stream went through encoded filters) VP8 and VP9 go out through
    /// Sluice's own payloaders, which do not parse the frames, and H.264 as the filters left it.
    package static func build(
        _ p: RTPSendParameters, into pipeline: Pipeline, webrtcbin: Element,
        msid: String, direction: String = "sendonly", ownQueue: Bool = true, opaqueFrames: Bool = false
    ) throws(GstError) -> Built {
        let queue = ownQueue ? try leakyQueue() : nil
        let pay = try Element.make(OpaquePayloaders.factory(for: p.codec, opaque: opaqueFrames))
        try p.configure(pay, opaqueFrames: opaqueFrames)
        let caps = try Element.make("capsfilter")
        let elements = [queue, pay, caps].compactMap { $0 }
        try pipeline.add(elements)
        try Element.link(elements)
        guard let sink = webrtcbin.requestPad("sink_%u"), let capsSrc = caps.staticPad("src"),
            let entrance = elements[0].staticPad("sink")
        else { throw GstError("webrtcbin refused an input") }
        // Audio and video of a stream share one msid stream id, so a browser plays them as
        // one MediaStream.
        if sink.hasProperty("msid") { try sink.set("msid", msid) }
        // Declare the transceiver as sending this codec now: in 1.22 a requested pad's
        // transceiver has no kind until caps flow, so the viewer's offer would not be
        // matched to it and webrtcbin would answer with a new receive-only one. The caps
        // pin the payload type the offer chose and the SSRC (so the answer's `a=ssrc` lines
        // are the packets' SSRC, not 0).
        if let transceiver = sink.objectProperty("transceiver", as: Object.self) {
            try transceiver.set("direction", fromString: direction)
        }
        _ = try p.apply(capsfilter: caps, input: sink)
        // The tee is linked only once the answer exists: data pushed into a webrtcbin input
        // before negotiation can stop that branch for good, and caps make it answer from them.
        try capsSrc.link(sink)
        return Built(elements: elements, queue: queue, payloader: pay, entrance: entrance)
    }

    /// A viewer's own queue: leaky, so a viewer whose thread falls behind drops its own
    /// oldest frames rather than holding up the stream.
    package static func leakyQueue() throws(GstError) -> Element {
        let queue = try Element.make("queue")
        try queue.set("leaky", fromString: "downstream")
        try queue.set("max-size-buffers", UInt32(30))
        try queue.set("max-size-bytes", UInt32(0))
        try queue.set("max-size-time", UInt64(0))
        return queue
    }
}
