import GStreamer

/// `kind: janus`: joins a room of Janus's VideoRoom; the send section is published over one
/// webrtcbin, the room's publishers are received over another (multistream: one branch
/// per publisher stream, built as each arrives).
struct JanusTransport: Transport {
    func prepare(_ c: TransportContext) async throws(RunError) -> TransportSetup {
        guard let janus = c.spec.transport.janus else {
            throw RunError("transport kind 'janus' needs 'server' and 'room'", at: c.spec.transport.location)
        }
        var publisher: WebRTCPeer?
        if c.spec.send != nil {
            let bin = try c.makeWebRTCBin("publish")
            do { try c.pipeline.add(bin) } catch { throw RunError(error.message) }
            try c.addICEAddresses(to: bin)
            try c.buildSendBranches(into: bin)
            publisher = WebRTCPeer(bin, label: "publisher")
        }
        var subscriber: WebRTCPeer?
        if c.spec.receive != nil {
            try c.builder.prepareRecordings()
            if let video = c.spec.receive?.video, let mosaic = video.mosaic { try c.builder.prepareMosaic(video, mosaic) }
            if let audio = c.spec.receive?.audio, let mix = audio.mix { try c.builder.prepareRoomMix(audio, at: mix) }
            let bin = try c.makeWebRTCBin("subscribe")
            do { try c.pipeline.add(bin) } catch { throw RunError(error.message) }
            try c.addICEAddresses(to: bin)
            c.builder.prewarmReceive(Codec.allCases)
            // Weak: the builder owns the pipeline, which owns the bin and so this handler.
            bin.connect("pad-added") { [weak builder = c.builder] (args: borrowing SignalArguments) in
                guard let pad = args.object(1, as: Pad.self) else { return }
                builder?.buildRoomStream(for: pad)
            }
            subscriber = WebRTCPeer(bin, label: "subscriber")
        }
        let session = JanusSession(publisher: publisher, subscriber: subscriber, spec: janus, builder: c.builder,
                                   transport: c.spec.transport, logger: c.logger)
        return TransportSetup(player: publisher ?? subscriber, remote: session)
    }
}
