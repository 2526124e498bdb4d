import GStreamer
import SluiceSignalling

extension TransportKind {
    /// The receive section is a second webrtcbin in the same process.
    public static let loopback = TransportKind(rawValue: "loopback")
}

/// `kind: loopback`: the receive section is a second webrtcbin in this process; offer,
/// answer and candidates pass between the two directly.
package struct LoopbackTransport: Transport {
    package let kind = TransportKind.loopback

    /// A receive branch needs the matching send branch; a send branch without a receive
    /// branch gets a default one (`SpecDecoder.defaultReceiveBranch`); a receive branch that
    /// restricts codecs must accept what is sent.
    package func complete(_ draft: inout SpecDraft, with decoder: inout SpecDecoder) {
        for media in MediaKind.allCases {
            if let location = draft.receivePresent[media], draft.sendPresent[media] == nil {
                decoder.fail(
                    "receive.\(media) has nothing to receive: send has no \(media) branch; add send.\(media) or remove receive.\(media)",
                    at: location)
            }
        }
        if draft.receiveVideo == nil, draft.receivePresent[.video] == nil, let branch = draft.send?.video {
            draft.receiveVideo = SpecDecoder.defaultReceiveBranch(for: branch)
        }
        if draft.receiveAudio == nil, draft.receivePresent[.audio] == nil, let branch = draft.send?.audio {
            draft.receiveAudio = SpecDecoder.defaultReceiveBranch(for: branch)
        }
        decoder.checkLoopbackCodecs(send: draft.send, receive: draft.receiveBranches)
    }

    package func prepare(_ c: TransportContext) async throws(RunError) -> TransportSetup {
        let spec = c.spec
        let sendBin = try c.makeWebRTCBin("send")
        let recvBin = try c.makeWebRTCBin("recv")
        // Both peers are this process's: their UDP pair always works, and TCP candidates
        // only add pairs to check before libnice nominates (a 5 ms check tick more).
        if spec.transport.ice.tcp == nil {
            for bin in [sendBin, recvBin] {
                do { try ICEAgent.setTCP(false, on: bin) } catch { throw RunError(error.message, at: spec.transport.location) }
            }
        }
        do { try c.pipeline.add([sendBin, recvBin]) } catch { throw RunError(error.message) }
        let sender = WebRTCPeer(sendBin, label: "sender")
        let receiver = WebRTCPeer(recvBin, label: "receiver")
        for bin in [sendBin, recvBin] { try c.addICEAddresses(to: bin) }
        // Loopback signalling: candidates go straight to the other peer (queued by the peer
        // until its remote description is set).
        sender.onLocalCandidate { [weak receiver] cand in receiver?.addRemoteCandidate(cand) }
        receiver.onLocalCandidate { [weak sender] cand in sender?.addRemoteCandidate(cand) }
        // What arrives is what the send section encodes: only those decoders are loaded
        // ahead (libav, for H.264, takes 60 ms and holds GStreamer's plugin lock meanwhile).
        c.watchIncomingStreams(of: recvBin, expected: spec.sendBranches.map(\.encode.codec))

        // A receive side that only accepts some codecs declares them up front, the way a
        // remote peer's capabilities would constrain the answer.
        // An adaptive video sender needs transport-wide congestion control feedback: webrtcbin
        // 1.22 answers the extension only when the receiving transceiver's codec preferences
        // name it, so declare the video receiver then even without a codec restriction.
        let adaptive = spec.send?.video?.encode.adaptive != nil ? spec.send?.video?.encode.codec : nil
        for branch in spec.receiveBranches
        where !branch.codecs.isEmpty || (branch.media == .video && adaptive != nil) {
            let codecs = branch.codecs.isEmpty ? [adaptive].compactMap { $0 } : branch.codecs
            let twcc = branch.media == .video && adaptive != nil ? EncoderPresets.twccExtensionCaps() : ""
            let caps = codecs.map { EncoderPresets.rtpCaps(for: $0) + twcc }.joined(separator: ";")
            do {
                _ = try recvBin.emit("add-transceiver", "recvonly", try Caps(caps))
            } catch {
                throw RunError("cannot declare accepted codecs: \(error.message)", at: branch.location)
            }
        }
        try c.buildSendBranches(into: sendBin)
        try c.builder.prepareRecordings()
        let session = LoopbackSession(sender: sender, receiver: receiver, spec: spec, logger: c.logger)
        return TransportSetup(sender: sender, receiver: receiver, session: session)
    }
}
