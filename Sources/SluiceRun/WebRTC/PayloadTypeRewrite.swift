import GStreamer

/// Sends a branch's RTP on a payload type GStreamer 1.22's payloaders cannot write.
///
/// Their src templates say `payload=[96, 127]`, so caps negotiation refuses any other
/// number, while a peer may offer a format only below 96: Chromium offers High 4:4:4, its
/// only H.264 profile whose decoder takes a High camera's stream, at 35–63. The payloader
/// then writes `RTPSendParameters.payloaderPayloadType` (96), and a probe on webrtcbin's
/// input pad makes the stream the negotiated number from there on:
/// - every packet's payload type: rtpsession, rtprtxsend (which answers NACKs only for the
///   payload types the SDP pairs with RTX) and the peer read it from the packets;
/// - the caps event, which webrtcbin keeps as its input's caps;
/// - caps queries: webrtcbin asking what its input sends (to write its answer) is told the
///   negotiated number; the payloader asking what webrtcbin takes is answered with the
///   branch's own caps, since webrtcbin would answer with its codec preferences, the
///   negotiated number only, which no payloader can write; accept-caps likewise (the
///   capsfilter before it asks the pad itself, not through a peer query, so the probe sits
///   on webrtcbin's pad rather than on the capsfilter's).
///
/// webrtcbin itself never checks or changes the payload type it is given (1.22).
package enum PayloadTypeRewrite {
    /// Adds the probe to `pad` (webrtcbin's input for the branch) when `p`'s payload type is
    /// not one the payloader writes; returns its id.
    package static func install(on pad: Pad, _ p: RTPSendParameters) throws(GstError) -> UInt? {
        guard p.payloaderPayloadType != p.payloadType, let wire = UInt8(exactly: p.payloadType) else { return nil }
        let own = try Caps(p.payloaderCaps), written = Int32(p.payloaderPayloadType)
        return pad.addProbe([.buffer, .bufferList, .eventDownstream, .queryDownstream, .queryUpstream]) {
            (info: borrowing Pad.ProbeInfo) in
            if let query = info.query { return answer(query, info, own: own, written: written, wire: wire) }
            if info.event == .caps, let caps = info.eventCaps {
                info.replaceEvent(with: .caps(caps.setting("payload", to: Int32(wire))))
                return .ok
            }
            if info.event == nil { info.setRTPPayloadType(wire) }
            return .ok
        }
    }

    /// `own`: the branch's caps, with `written`, the payload type the payloader writes.
    private static func answer(
        _ query: Pad.ProbeInfo.QueryKind, _ info: borrowing Pad.ProbeInfo, own: Caps, written: Int32, wire: UInt8
    ) -> Pad.ProbeReturn {
        switch (query, info.queryTravelsDownstream, info.queryAnswered) {
        case (.caps, true, false):
            info.setCapsQueryResult(info.capsQueryFilter.map { $0.intersect(own) } ?? own)
            return .handled
        case (.acceptCaps, true, false):
            // Asked with either number: by the capsfilter before (the payloader's) and by the
            // pad itself for the caps event it gets (already renumbered).
            info.setAcceptCapsQueryResult(info.acceptCapsQueryCaps.map { $0.setting("payload", to: written).intersects(own) } ?? false)
            return .handled
        case (.caps, false, true):
            if let result = info.capsQueryResult, !result.isAny, !result.isEmpty {
                info.setCapsQueryResult(result.setting("payload", to: Int32(wire)))
            }
            return .ok
        default:
            return .ok
        }
    }
}
