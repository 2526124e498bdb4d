/// Chooses, in a remote offer, the payload type that carries a stream Sluice already
/// encodes, by the rules each codec's RTP payload format sets (not by payload number: other
/// stacks number their codecs as they like).
public enum CodecMatch {
    /// What was chosen for one media section.
    public struct Choice: Sendable, Equatable {
        /// The offer's payload type for the stream.
        public var payloadType: Int
        /// The RTX payload type the offer pairs with it (`apt`), if any.
        public var rtxPayloadType: Int?
        /// The offer's header extension id for MID, if offered.
        public var midExtensionID: Int?
        /// The offer's header extension id for transport-wide congestion control, when the
        /// chosen format also asks for `transport-cc` feedback (both are needed for it).
        public var twccExtensionID: Int?

        /// A choice of `payloadType` and its offer's companions.
        public init(payloadType: Int, rtxPayloadType: Int? = nil, midExtensionID: Int? = nil, twccExtensionID: Int? = nil) {
            self.payloadType = payloadType; self.rtxPayloadType = rtxPayloadType; self.midExtensionID = midExtensionID
            self.twccExtensionID = twccExtensionID
        }
    }

    /// The best payload type in `media` for a stream encoded as `encoding` (`VP8`, `VP9`,
    /// `H264`, `OPUS`), or nil if the section offers nothing that can carry it. Any payload
    /// number the offer uses may be chosen (a number below 96, where GStreamer 1.22's
    /// payloaders cannot write, is written after them: `PayloadTypeRewrite`).
    ///
    /// - H.264 (RFC 6184): Sluice packetizes with `packetization-mode=1` (FU-A fragments), so
    ///   only mode-1 payload types qualify, and among them one whose profile decodes the
    ///   stream's `h264` profile (`H264Profile.decodes`; Sluice's own encoders make
    ///   Constrained Baseline, the default). The simplest such profile wins, then the offer's
    ///   order. The answer keeps the chosen payload type's `profile-level-id`, as RFC 6184
    ///   §8.2.2 asks (the profile is symmetric); the stream's profile is within it.
    /// - VP9 (RFC 9628 draft `profile-id`): profile 0 only.
    /// - Opus: 48 kHz stereo as RFC 7587 requires.
    public static func choose(
        _ encoding: String, in media: SDPMediaDescription, h264 stream: H264Profile = .sluiceEncoded
    ) -> Choice? {
        let name = encoding.uppercased()
        let candidates = media.formats.filter { $0.encoding == name && acceptable($0, name) }
        let best: SDPMediaDescription.Format?
        if name == "H264" {
            let ranked = candidates.compactMap { f in h264Profile(of: f).flatMap { p in p.family.map { (format: f, family: $0, profile: p) } } }
            best = ranked.filter { $0.profile.decodes(stream) }.min { $0.family < $1.family }?.format
        } else {
            best = candidates.first
        }
        guard let best else { return nil }
        let twcc = best.feedback.contains("transport-cc") ? media.extensionID(RTPHeaderExtension.transportWideCC) : nil
        return Choice(
            payloadType: best.payloadType, rtxPayloadType: media.rtxPayloadType(for: best.payloadType),
            midExtensionID: media.extensionID(RTPHeaderExtension.mid), twccExtensionID: twcc)
    }

    static func acceptable(_ f: SDPMediaDescription.Format, _ name: String) -> Bool {
        switch name {
        case "VP8": return f.clockRate == 90000
        case "VP9": return f.clockRate == 90000 && (f.parameters["profile-id"] ?? "0") == "0"
        case "H264": return f.clockRate == 90000 && f.parameters["packetization-mode"] == "1"
        case "OPUS": return f.clockRate == 48000 && (f.channels ?? 2) == 2
        default: return false
        }
    }

    /// The profile a format's decoder is offered for (RFC 6184: absent means `420010`,
    /// Baseline level 1); nil if `profile-level-id` is not six hex digits.
    public static func h264Profile(of f: SDPMediaDescription.Format) -> H264Profile? {
        H264Profile(profileLevelID: f.parameters["profile-level-id"] ?? "420010")
    }
}
