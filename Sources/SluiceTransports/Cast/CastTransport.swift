import Foundation
import GStreamer
import Logging
import SluiceRun

extension TransportKind {
    /// Be a Cast receiver (`name`, `allow`; `port`, `size`): senders (pychromecast, VLC, any
    /// open CASTV2 sender) find it on the local network, load media URLs and command it; what
    /// plays goes through the receive section (display, file, stats). No send section.
    public static let cast = TransportKind(rawValue: "cast")
}

/// `kind: cast`: the run is a Cast receiver. Its player (Serve/CastPlayback) decodes what
/// senders load into a channel of this run's own (`intervideosink`/`interaudiosink`), and the
/// receive section's branches read it (`intervideosrc`/`interaudiosrc`): display, file, stats,
/// with filters, like any received media. No webrtcbin.
package struct CastTransport: Transport {
    package let kind = TransportKind.cast
    package let keys = ["name", "port", "allow", "size"]
    package let sections = TransportSections(
        send: .forbidden("plays what Cast senders load: remove send (the senders choose the media)"),
        receive: .required("needs a receive section for what senders cast (e.g. receive: {video: {sink: display}, audio: {sink: display}})"))
    package let abilities: TransportAbilities = []

    package func decodeSettings(_ map: [SpecEntry], at location: SourceLocation, with decoder: inout SpecDecoder) -> (any KindSettings)? {
        decoder.decodeCast(map, at: location)
    }

    package func prepare(_ c: TransportContext) async throws(RunError) -> TransportSetup {
        guard let cast = c.spec.transport.settings(as: CastSpec.self) else {
            throw RunError("transport kind 'cast' needs 'name' and 'allow'", at: c.spec.transport.location)
        }
        let channel = "sluice-cast-\(UUID().uuidString.prefix(8).lowercased())"
        try c.builder.prepareRecordings()
        if let video = c.spec.receive?.video { try c.builder.prepareCastVideo(video, channel: channel, width: cast.width, height: cast.height) }
        if let audio = c.spec.receive?.audio { try c.builder.prepareCastAudio(audio, channel: channel) }
        var options = CastReceiver.Options(name: cast.name)
        options.port = cast.port
        options.allow = cast.allow
        options.channel = channel
        options.width = cast.width
        options.height = cast.height
        let receiver: CastReceiver
        do { receiver = try await CastReceiver.start(options, logger: c.logger) } catch {
            throw RunError(
                "Cast: cannot accept senders on port \(cast.port): \(error); is another receiver using it? (set 'port')",
                at: c.spec.transport.location)
        }
        c.logger.info("Cast: '\(cast.name)' accepts senders on port \(receiver.server.port)")
        return TransportSetup(session: CastSession(receiver: receiver, name: cast.name))
    }
}

/// The receiver for as long as the run goes on: no negotiation (senders come and go on their
/// own), stopped with the run; the summary says how many senders it served and what it refused.
package final class CastSession: RemoteSession {
    private let receiver: CastReceiver
    private let name: String

    package init(receiver: CastReceiver, name: String) { self.receiver = receiver; self.name = name }

    package func negotiate(stop: StopFlag, deadline: ContinuousClock.Instant?) async throws(RunError) -> Bool { true }
    package func tick() async throws(RunError) -> String? { nil }
    package func end() async { await receiver.stop() }

    package var report: RunSummary.Session? {
        var s = RunSummary.Session(role: "cast receiver", id: name)
        let refused = receiver.server.refusals
        if !refused.isEmpty { s.refused = refused }
        return s
    }
}

extension GraphBuilder {
    /// What the Cast player shows, read from its channel at the receiver's size.
    package func prepareCastVideo(_ branch: ReceiveBranchSpec, channel: String, width: Int, height: Int) throws(RunError) {
        let source = try make("intervideosrc", [("channel", channel)], at: branch.location)
        let format = try make(
            "capsfilter", [("caps", "video/x-raw,format=I420,width=\(width),height=\(height),framerate=30/1")],
            at: branch.location)
        try prepareLocalReceive(
            branch, source: [source], format: format, convert: try make("videoconvert", at: branch.location),
            at: branch.location)
        counters.receiveVideoWidth.store(width, ordering: .relaxed)
        counters.receiveVideoHeight.store(height, ordering: .relaxed)
        counters.note("receive.video.codec", "cast")
    }

    /// What the Cast player plays as sound, read from its channel (48 kHz stereo).
    package func prepareCastAudio(_ branch: ReceiveBranchSpec, channel: String) throws(RunError) {
        let source = try make("interaudiosrc", [("channel", channel)], at: branch.location)
        let format = try make("capsfilter", [("caps", "audio/x-raw,rate=48000,channels=2")], at: branch.location)
        try prepareLocalReceive(
            branch, source: [source], format: format, convert: try make("audioconvert", at: branch.location),
            at: branch.location)
        counters.note("receive.audio.codec", "cast")
    }
}
