import GStreamer
import SluiceSignalling

/// `kind: loopback`: the receive section is a second webrtcbin in this process; offer,
/// answer and candidates pass between the two directly.
struct LoopbackTransport: Transport {
    func prepare(_ c: TransportContext) async throws(RunError) -> TransportSetup {
        let spec = c.spec
        let sendBin = try c.makeWebRTCBin("send")
        let recvBin = try c.makeWebRTCBin("recv")
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
        c.watchIncomingStreams(of: recvBin, expected: [spec.send?.video, spec.send?.audio].compactMap { $0?.encode.codec })

        // A receive side that only accepts some codecs declares them up front, the way a
        // remote peer's capabilities would constrain the answer.
        // An adaptive video sender needs transport-wide congestion control feedback: webrtcbin
        // 1.22 answers the extension only when the receiving transceiver's codec preferences
        // name it, so declare the video receiver then even without a codec restriction.
        let adaptive = spec.send?.video?.encode.adaptive != nil ? spec.send?.video?.encode.codec : nil
        for branch in [spec.receive?.video, spec.receive?.audio].compactMap({ $0 })
        where !branch.codecs.isEmpty || (branch.media == .video && adaptive != nil) {
            let codecs = branch.codecs.isEmpty ? [adaptive].compactMap { $0 } : branch.codecs
            let twcc = branch.media == .video && adaptive != nil ? EncoderPresets.twccExtensionCaps : ""
            let caps = codecs.map { EncoderPresets.rtpCaps(for: $0) + twcc }.joined(separator: ";")
            do {
                _ = try recvBin.emit("add-transceiver", "recvonly", try Caps(caps))
            } catch {
                throw RunError("cannot declare accepted codecs: \(error.message)", at: branch.location)
            }
        }
        try c.buildSendBranches(into: sendBin)
        try c.builder.prepareRecordings()
        return TransportSetup(loopback: (sender, receiver), opensChannels: sendBin, acceptsChannels: recvBin)
    }
}
