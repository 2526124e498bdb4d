import GStreamer

/// A send branch's RTP stage into a webrtcbin: what `retargetSend` changes when the other
/// side's offer chose other payload parameters than the ones the branch was built with.
package struct SendRTP: Sendable {
    package let payloader: Element
    package let capsfilter: Element
    package let input: Pad
    package var parameters: RTPSendParameters
    /// The `PayloadTypeRewrite` probe on `input`, if the payload type needs one.
    package var rewrite: UInt?
}

extension GraphBuilder {
    /// The RTP parameters each send branch into a webrtcbin currently uses.
    package var sendParameters: [MediaKind: RTPSendParameters] { state.withLock { $0.sendRTP.mapValues(\.parameters) } }

    /// Moves a built send branch onto the payload type, SSRC and MID extension an offer
    /// chose (a room peer that answers built its branches before the offer arrived; aiortc
    /// offers VP8 as 97, Chromium H.264 as 106, where Sluice's own offers use 96 and 102).
    ///
    /// Call before the offer is applied: the transceiver's codec preferences, which webrtcbin
    /// intersects with the offer to write the answer, and the payloader's output caps (which
    /// it adopts at its next buffer) then agree with the answer.
    package func retargetSend(_ media: MediaKind, to p: RTPSendParameters) throws(RunError) {
        guard var rtp = state.withLock({ $0.sendRTP[media] }) else {
            throw RunError("no \(media.rawValue) is sent into a webrtcbin")
        }
        guard rtp.parameters != p else { return }
        do {
            // The old MID extension goes: its id or MID may differ, and an extension's MID is
            // read once.
            try RTPHeaderExtensions.detachAll(from: rtp.payloader)
            try p.configure(rtp.payloader)
            if let probe = rtp.rewrite { rtp.input.removeProbe(probe) }
            rtp.rewrite = try p.apply(capsfilter: rtp.capsfilter, input: rtp.input)
        } catch {
            throw RunError("cannot send \(media.rawValue) as the other peer's offer asks (payload type \(p.payloadType)): \(error.message)")
        }
        rtp.parameters = p
        state.withLock { $0.sendRTP[media] = rtp }
    }

    /// Holds every send branch into a webrtcbin before its payloader — data, caps and all —
    /// until `releaseSend`. A peer that answers does this until its answer is set: the
    /// payloader would otherwise tell webrtcbin its caps (Sluice's payload type) at once,
    /// and webrtcbin, which holds the data itself until negotiation, then rejects the media
    /// when the offer asks for another payload type ("Caps negotiation on pad sink_1 failed
    /// against codec preferences"): the new caps could never get past the held buffer.
    /// Held, the first keyframe waits here and leaves with the negotiated caps.
    package func holdSend() {
        let pads = state.withLock { s in s.sendHolds.isEmpty ? s.sendRTP.values.compactMap { $0.payloader.staticPad("sink") } : [] }
        let holds = pads.map { pad in (pad: pad, probe: pad.addProbe([.block, .buffer, .eventDownstream]) { _ in .ok }) }
        state.withLock { $0.sendHolds += holds }
    }

    /// Lets held send branches flow (see `holdSend`).
    package func releaseSend() {
        let holds = state.withLock { s in
            defer { s.sendHolds = [] }; return s.sendHolds
        }
        for h in holds { h.pad.removeProbe(h.probe) }
    }
}
