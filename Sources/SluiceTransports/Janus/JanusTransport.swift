import GStreamer
import SluiceRun

extension TransportKind {
    /// Join a room of a Janus VideoRoom (`server`, `room`; `display`, `pin`, `secret`, `token`):
    /// the send section is published to the room, the receive section gets every publisher's
    /// streams (or those `subscribe` names) over one connection, as they come and go. With
    /// `plugin: echotest`, Janus's EchoTest sends the send section back to the receive section;
    /// with `plugin: audiobridge`, the send section's audio joins the mix of an AudioBridge
    /// `room` (`prebuffer`: packets Janus buffers before mixing it), and the receive section
    /// plays the mix of everyone else.
    public static let janus = TransportKind(rawValue: "janus")
}

/// `kind: janus`: joins a room of Janus's VideoRoom; the send section is published over one
/// webrtcbin, the room's publishers are received over another (multistream: one branch
/// per publisher stream, built as each arrives).
package struct JanusTransport: Transport {
    package let kind = TransportKind.janus
    package let keys = ["server", "plugin", "room", "display", "pin", "secret", "token", "subscribe", "substream", "prebuffer"]
    package let sections = TransportSections(
        eitherNeeded: "needs a send section (published to the room), a receive section (the room's publishers), or both")
    package let abilities: TransportAbilities = [.webRTC, .roomStreams, .simulcast]

    package func decodeSettings(_ map: [SpecEntry], at location: SourceLocation, with decoder: inout SpecDecoder) -> (any KindSettings)? {
        decoder.decodeJanus(map, at: location)
    }

    package func complete(_ draft: inout SpecDraft, with decoder: inout SpecDecoder) {
        guard let janus = draft.transport.settings(as: JanusSpec.self) else { return }
        switch janus.plugin {
        case .videoroom:
            decoder.checkRoomBranches(draft.receiveBranches)
            checkSimulcast(draft, janus, with: &decoder)
        case .echotest where draft.sendPresent.isEmpty:
            decoder.fail(
                "Janus's EchoTest sends back what it gets: `plugin: echotest` needs a send section",
                at: janus.pluginLocation ?? draft.fileStart)
        case .echotest:
            checkSimulcast(draft, janus, with: &decoder)
        case .audiobridge:
            checkAudioBridge(draft, janus, with: &decoder)
        }
    }

    /// VideoRoom forwards up to three simulcast layers, numbered 0 (the smallest) to 2; the
    /// other plugins take one stream.
    private func checkSimulcast(_ draft: SpecDraft, _ janus: JanusSpec, with decoder: inout SpecDecoder) {
        guard let layers = draft.send?.video?.encode.simulcast, let first = layers.first?.location else { return }
        if janus.plugin != .videoroom {
            decoder.fail("simulcast is forwarded by Janus's VideoRoom; the \(janus.plugin.rawValue) plugin takes one stream: remove 'simulcast'", at: first)
        } else if layers.count > 3, let at = layers[3].location {
            decoder.fail("Janus VideoRoom forwards at most 3 simulcast layers (substreams 0 to 2); remove the others", at: at)
        }
    }

    /// An AudioBridge room carries audio only, and a participant that sends nothing is not
    /// in the mix: the send section needs audio, and neither section may have video.
    private func checkAudioBridge(_ draft: SpecDraft, _ janus: JanusSpec, with decoder: inout SpecDecoder) {
        for (section, present) in [("send", draft.sendPresent), ("receive", draft.receivePresent)] {
            guard let at = present[.video] else { continue }
            decoder.fail("an AudioBridge room carries audio only: remove \(section).video, or use the VideoRoom (remove `plugin: audiobridge`)", at: at)
        }
        if draft.sendPresent[.audio] == nil {
            decoder.fail(
                "an AudioBridge participant sends audio into the room's mix: `plugin: audiobridge` needs send.audio",
                at: janus.pluginLocation ?? draft.fileStart)
        }
    }

    package func prepare(_ c: TransportContext) async throws(RunError) -> TransportSetup {
        guard let janus = c.spec.transport.settings(as: JanusSpec.self) else {
            throw RunError("transport kind 'janus' needs 'server' and 'room'", at: c.spec.transport.location)
        }
        let offering: (any JanusOfferPlugin)? =
            switch janus.plugin {
            case .echotest: EchoTestPlugin(audio: c.spec.send?.audio != nil, video: c.spec.send?.video != nil)
            case .audiobridge: AudioBridgePlugin(spec: janus)
            case .videoroom: nil
            }
        if let offering {
            let peer = try c.twoWayPeer(initiator: true)
            let session = JanusOfferSession(
                peer: peer, spec: janus, plugin: offering, builder: c.builder, transport: c.spec.transport, logger: c.logger)
            return TransportSetup(peer: peer, session: session)
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
        let session = JanusSession(
            publisher: publisher, subscriber: subscriber, spec: janus, builder: c.builder,
            transport: c.spec.transport, logger: c.logger)
        guard let peer = publisher ?? subscriber else { return TransportSetup(session: session) }
        return TransportSetup(peer: peer, session: session)
    }
}
