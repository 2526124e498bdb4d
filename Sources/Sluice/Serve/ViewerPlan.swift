import GStreamer
import SluiceSignalling

/// What a viewer's offer asks for, matched against what a stream has: which offered media
/// section carries which of the stream's media, on which payload type, with which MID — and
/// the offer as webrtcbin should see it.
struct ViewerPlan {
    struct Track { var media: MediaKind; var parameters: RTPSendParameters }

    /// One track per stream medium the offer can take, in the offer's order.
    let tracks: [Track]
    /// The offer with the header extensions Sluice does not write removed (see
    /// `SDPRewrite.keepingExtensions`).
    let offerToApply: String

    /// The most media sections an offer may have (browsers offer 2–3; a camera API offer 3).
    static let maxSections = 16

    /// With `adaptiveVideo`, a video track takes the offer's transport-wide congestion
    /// control (extension and `transport-cc` feedback) when it has it.
    init(offer: String, outputs: [(media: MediaKind, codec: Codec)], adaptiveVideo: Bool = false) throws(ViewerOfferError) {
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
                    let choice = CodecMatch.choose(output.codec.encodingName, in: section)
                else { continue }
                used.insert(i)
                tracks.append(
                    (
                        i,
                        Track(
                            media: output.media,
                            parameters: .answering(
                                output.codec, choice: choice, mid: section.mid,
                                congestionControl: adaptiveVideo && output.media == .video))
                    ))
                break
            }
        }
        guard !tracks.isEmpty else {
            let offered = session.media.map { m in
                "\(m.kind) (\(m.direction)): " + (m.formats.map(\.encoding).filter { !$0.isEmpty && $0 != "RTX" }.joined(separator: ", "))
            }.joined(separator: "; ")
            let have = outputs.map { "\($0.media.rawValue) \($0.codec.encodingName)" }.joined(separator: ", ")
            throw ViewerOfferError(
                "the offer has no media section this stream can be sent on: the stream has \(have); "
                    + "the offer has \(offered.isEmpty ? "nothing" : offered)")
        }
        self.tracks = tracks.sorted { $0.index < $1.index }.map(\.track)
        let twcc = self.tracks.contains { $0.parameters.twccExtensionID != nil }
        offerToApply = SDPRewrite.keepingExtensions(
            twcc
                ? [RTPHeaderExtension.mid, RTPHeaderExtension.transportWideCC]
                : [RTPHeaderExtension.mid], in: offer)
    }
}

/// An offer a stream cannot serve (the client's fault: a 4xx).
struct ViewerOfferError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// The elements between a stream's `tee` and a viewer's webrtcbin for one medium:
/// queue (leaky: a slow viewer drops its own frames) → payloader → capsfilter.
enum ViewerBranch {
    /// One medium's branch of a viewer.
    struct Built {
        /// queue → payloader → capsfilter, in the pipeline and linked.
        var elements: [Element]
        var queue: Element
        var payloader: Element
        /// The queue's sink pad, where the stream enters.
        var entrance: Pad
    }

    static func build(
        _ p: RTPSendParameters, into pipeline: Pipeline, webrtcbin: Element,
        msid: String
    ) throws(GstError) -> Built {
        let queue = try Element.make("queue")
        try queue.set("leaky", fromString: "downstream")
        try queue.set("max-size-buffers", UInt32(30))
        try queue.set("max-size-bytes", UInt32(0))
        try queue.set("max-size-time", UInt64(0))
        let pay = try Element.make(DefaultElements.payloader(for: p.codec))
        try p.configure(pay)
        let caps = try Element.make("capsfilter")
        try caps.set("caps", fromString: p.caps)
        try pipeline.add([queue, pay, caps])
        let elements = [queue, pay, caps]
        try Element.link(elements)
        guard let sink = webrtcbin.requestPad("sink_%u"), let capsSrc = caps.staticPad("src"),
            let entrance = queue.staticPad("sink")
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
            try transceiver.set("direction", fromString: "sendonly")
            try transceiver.set("codec-preferences", value: try Caps(p.caps).asValue())
        }
        // The tee is linked only once the answer exists: data pushed into a webrtcbin input
        // before negotiation can stop that branch for good.
        try capsSrc.link(sink)
        return Built(elements: elements, queue: queue, payloader: pay, entrance: entrance)
    }
}
