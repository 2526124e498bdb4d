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
    }

    /// The best payload type in `media` for a stream encoded as `encoding` (`VP8`, `VP9`,
    /// `H264`, `OPUS`), or nil if the section offers nothing that can carry it.
    ///
    /// - H.264 (RFC 6184): Sluice sends Constrained Baseline with `packetization-mode=1`
    ///   (FU-A fragments), so only mode-1 payload types qualify, and among them a profile a
    ///   Constrained Baseline stream decodes on: Constrained Baseline first, then Baseline,
    ///   Main and High, each in the offer's order.
    /// - VP9 (RFC 9628 draft `profile-id`): profile 0 only.
    /// - Opus: 48 kHz stereo as RFC 7587 requires.
    public static func choose(_ encoding: String, in media: SDPMediaDescription) -> Choice? {
        let name = encoding.uppercased()
        let candidates = media.formats.filter { $0.encoding == name && acceptable($0, name) }
        let best: SDPMediaDescription.Format?
        if name == "H264" {
            best = candidates.min { h264Rank($0) < h264Rank($1) }
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
        case "H264": return f.clockRate == 90000 && f.parameters["packetization-mode"] == "1" && h264Rank(f) < 4
        case "OPUS": return f.clockRate == 48000 && (f.channels ?? 2) == 2
        default: return false
        }
    }

    /// 0 Constrained Baseline, 1 Baseline, 2 Main, 3 High, 4 anything else (unusable).
    static func h264Rank(_ f: SDPMediaDescription.Format) -> Int {
        // RFC 6184: absent means 420010 (Baseline, level 1.0).
        let pli = f.parameters["profile-level-id"] ?? "420010"
        guard pli.count == 6, let value = UInt32(pli, radix: 16) else { return 4 }
        let profile = (value >> 16) & 0xff, iop = (value >> 8) & 0xff
        switch profile {
        case 0x42: return iop & 0x40 != 0 ? 0 : 1
        case 0x4d: return iop & 0x80 != 0 ? 0 : 2 // Main with constraint_set0: Constrained Baseline
        case 0x64: return 3
        default: return 4
        }
    }
}
