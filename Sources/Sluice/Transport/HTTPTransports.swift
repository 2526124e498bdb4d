import GStreamer

/// `kind: whep`: plays `endpoint` into the receive section (one complete recvonly offer
/// POSTed, the answer applied, the session DELETEd at the end).
struct WHEPTransport: Transport {
    func prepare(_ c: TransportContext) async throws(RunError) -> TransportSetup {
        let p = try c.buildPlayer(media: [.video, .audio])
        return TransportSetup(player: p, remote: try HTTPSession(peer: p, transport: c.spec.transport, logger: c.logger),
                              opensChannels: p.webrtcbin)
    }
}

/// `kind: whip`: publishes the send section to `endpoint`.
struct WHIPTransport: Transport {
    func prepare(_ c: TransportContext) async throws(RunError) -> TransportSetup {
        let bin = try c.makeWebRTCBin("publish")
        do { try c.pipeline.add(bin) } catch { throw RunError(error.message) }
        try c.addICEAddresses(to: bin)
        try c.buildSendBranches(into: bin)
        let p = WebRTCPeer(bin, label: "publisher")
        return TransportSetup(player: p, remote: try HTTPSession(peer: p, transport: c.spec.transport, logger: c.logger),
                              opensChannels: bin)
    }
}

/// `kind: camera`: a camera API device (Nest SDM style) played into the receive section.
struct CameraTransport: Transport {
    func prepare(_ c: TransportContext) async throws(RunError) -> TransportSetup {
        // The camera API takes audio, video and a data channel, in that order, whatever
        // the file receives (what it does not receive ends in a fakesink).
        let p = try c.buildPlayer(media: [.audio, .video], always: true)
        return TransportSetup(player: p, remote: try CameraSession(peer: p, transport: c.spec.transport, logger: c.logger),
                              opensChannels: p.webrtcbin)
    }
}
