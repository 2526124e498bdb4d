import GStreamer
import SluiceSignalling

/// How one encoded stream goes into RTP towards one peer: payload type, SSRC, MID and its
/// header extension. The same values are pinned on the payloader, on the caps webrtcbin
/// reads before the first packet, and (through those caps) in the SDP, so that what the SDP
/// signals (`a=ssrc`, `a=ssrc-group:FID`, `a=extmap` for MID) is what the packets carry.
/// Peers that demultiplex by SSRC or MID (Pion, Chromium's tracks, Firefox) depend on it.
package struct RTPSendParameters: Sendable, Equatable {
    package var codec: Codec
    package var payloadType: Int
    /// Pinned in answers (never 0: webrtcbin would signal `a=ssrc-group:FID 0 …`). nil in
    /// Sluice's own offers: there the peer finds the stream by MID, and a pinned SSRC made a
    /// webrtcbin receiver drop the first half second of frames (loopback, 320x240 VP8 file:
    /// 135 sent, 116–121 received, against 135 of 135 without it); webrtcbin then writes no
    /// `a=ssrc` lines rather than wrong ones.
    package var ssrc: UInt32?
    /// The MID header extension id (nil: not negotiated, e.g. the offer lacks it).
    package var midExtensionID: Int?
    /// The media section's MID the packets are tagged with.
    package var mid: String?
    /// The transport-wide congestion control extension id (nil: no TWCC feedback wanted).
    package var twccExtensionID: Int?
    /// The RTP stream id (`a=rid`) a simulcast layer's packets carry (nil: no simulcast).
    package var rid: String? = nil
    /// The RTP stream id header extension's id (nil: not sent).
    package var ridExtensionID: Int? = nil

    /// The id Sluice uses for TWCC in its own offers.
    package static let offeredTWCCExtensionID = 3

    /// The id Sluice uses for the MID extension in its own offers (browsers use 4 or 9; any
    /// id from 1 to 14 fits the one-byte header form).
    package static let offeredMidExtensionID = 9

    /// The id Sluice uses for the RTP stream id extension (`a=rid`) in its own offers.
    package static let offeredStreamIDExtensionID = 10

    /// For an offer Sluice makes: Sluice's payload type and MID.
    /// With `congestionControl`, the packets carry transport-wide sequence numbers and the
    /// offer asks for `transport-cc` feedback.
    package static func offering(_ codec: Codec, mid: String, congestionControl: Bool = false) -> RTPSendParameters {
        RTPSendParameters(
            codec: codec, payloadType: EncoderPresets.payloadType(for: codec), ssrc: nil,
            midExtensionID: offeredMidExtensionID, mid: mid,
            twccExtensionID: congestionControl ? offeredTWCCExtensionID : nil)
    }

    /// For an answer: the payload type and MID extension id the offer chose. With
    /// `congestionControl`, the TWCC extension id too, when the offer asks for that feedback.
    package static func answering(
        _ codec: Codec, choice: CodecMatch.Choice, mid: String?,
        congestionControl: Bool = false
    ) -> RTPSendParameters {
        RTPSendParameters(
            codec: codec, payloadType: choice.payloadType, ssrc: randomSSRC(),
            midExtensionID: mid == nil ? nil : choice.midExtensionID, mid: mid,
            twccExtensionID: congestionControl ? choice.twccExtensionID : nil)
    }

    /// The payload types GStreamer 1.22's payloaders can write: their src templates say
    /// `payload=[96, 127]`, and caps negotiation is filtered by them. Others go out through
    /// `PayloadTypeRewrite`.
    package static let payloaderPayloadTypes = 96...127

    /// The payload type the payloader writes: the negotiated one when it can, else 96 (and
    /// `PayloadTypeRewrite` puts the negotiated one on the packets).
    package var payloaderPayloadType: Int {
        Self.payloaderPayloadTypes.contains(payloadType) ? payloadType : Self.payloaderPayloadTypes.lowerBound
    }

    package static func randomSSRC() -> UInt32 { UInt32.random(in: 1...UInt32.max) }

    /// The RTP caps webrtcbin gets and the transceiver's codec preferences.
    package var caps: String { caps(payloadType: payloadType) }

    /// The RTP caps of the payloader's output (`caps`, with `payloaderPayloadType`).
    package var payloaderCaps: String { caps(payloadType: payloaderPayloadType) }

    private func caps(payloadType: Int) -> String {
        var caps = EncoderPresets.rtpCaps(for: codec, payloadType: payloadType)
        if let ssrc { caps += ",ssrc=(uint)\(ssrc)" }
        if let id = midExtensionID { caps += ",extmap-\(id)=(string)\(RTPHeaderExtension.mid)" }
        if let id = ridExtensionID { caps += ",extmap-\(id)=(string)\(RTPHeaderExtension.streamID)" }
        if let id = twccExtensionID {
            caps += ",extmap-\(id)=(string)\"\(RTPHeaderExtension.transportWideCC)\",rtcp-fb-transport-cc=(boolean)true"
        }
        return caps
    }

    /// Sets the caps of the branch's `capsfilter` (after the payloader) and the codec
    /// preferences of the transceiver behind `input` (webrtcbin's pad), and rewrites the
    /// payload type at `input` when the payloader cannot write it. Returns the rewrite's
    /// probe id on `input`, if one was added.
    package func apply(capsfilter: Element, input: Pad) throws(GstError) -> UInt? {
        try capsfilter.set("caps", fromString: payloaderCaps)
        if let transceiver = input.objectProperty("transceiver", as: Object.self) {
            try transceiver.set("codec-preferences", value: try Caps(caps).asValue())
        }
        return try PayloadTypeRewrite.install(on: input, self)
    }

    /// Pins payload type and SSRC on `payloader` and gives it the MID, TWCC and RID header
    /// extensions it is to write. With `opaqueFrames` (frames that went through encoded
    /// filters), an H.264 payloader sends each frame as the filters left it
    /// (`sendingFramesAsFiltered`).
    package func configure(_ payloader: Element, opaqueFrames: Bool) throws(GstError) {
        try configure(payloader)
        if opaqueFrames, codec == .h264 { try Self.sendingFramesAsFiltered(payloader) }
    }

    /// The frames already hold SPS and PPS before every IDR (h264parse puts them there); the
    /// payloader's own copies, before every IDR (`config-interval`) and after a keyframe
    /// request that asks for all headers (the encoder's downstream `GstForceKeyUnit`), would
    /// make the frame a receiver rebuilds differ from the one the filters saw: an `e2ee`
    /// frame's clear header is authenticated, and a browser keeps the repeated units.
    private static func sendingFramesAsFiltered(_ payloader: Element) throws(GstError) {
        try payloader.set("config-interval", fromString: "0")
        payloader.staticPad("sink")?.addProbe(.eventDownstream) { (info: borrowing Pad.ProbeInfo) in
            info.eventName == "GstForceKeyUnit" ? .drop : .ok
        }
    }

    /// Pins payload type and SSRC on `payloader` and gives it the MID, TWCC and RID header
    /// extensions it is to write.
    package func configure(_ payloader: Element) throws(GstError) {
        for (k, v) in EncoderPresets.payloaderProperties(for: codec) where payloader.hasProperty(k) {
            try payloader.set(k, fromString: v)
        }
        try payloader.set("pt", UInt32(payloaderPayloadType))
        if let ssrc { try payloader.set("ssrc", ssrc) }
        if let id = twccExtensionID {
            try Self.attach(RTPHeaderExtension.transportWideCC, id: id, to: payloader, named: "transport-wide congestion control (rtphdrexttwcc)")
        }
        // MID and RID are added by hand rather than left to `auto-header-extension`: only
        // this way does the extension know which value to write.
        if let id = midExtensionID, let mid {
            try Self.attach(RTPHeaderExtension.mid, id: id, to: payloader, named: "MID (rtphdrextmid)", setting: ("mid", mid))
        }
        if let id = ridExtensionID, let rid {
            try Self.attach(RTPHeaderExtension.streamID, id: id, to: payloader, named: "RTP stream ids (rtphdrextstreamid)", setting: ("rid", rid))
        }
    }

    /// Makes the header extension `uri` with `id`, sets its one property, attaches it.
    private static func attach(
        _ uri: String, id: Int, to payloader: Element, named name: String, setting property: (String, String)? = nil
    ) throws(GstError) {
        guard let ext = RTPHeaderExtensions.make(uri: uri, id: id) else {
            throw GstError("no RTP header extension for \(name) is installed (gstreamer1.0-plugins-good)")
        }
        if let property { try ext.set(property.0, property.1) }
        try RTPHeaderExtensions.attach(ext, to: payloader)
    }
}
