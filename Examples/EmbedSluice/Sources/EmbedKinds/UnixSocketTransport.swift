import GStreamer
import SluiceRun

/// `transport: {kind: unix, socket: /tmp/call.sock, role: offer}`: two processes on one
/// machine meet on a Unix socket. The answering side listens, the offering side connects; each
/// sends one complete SDP (candidates included) and the call runs. A transport kind of this
/// program's own, written against Sluice's public API only.
public struct UnixSocketTransport: Transport {
    /// Where the two sides meet, and which one offers.
    public struct Settings: KindSettings, Equatable {
        /// The socket's path.
        public var socket: String
        /// True on the side that connects and offers.
        public var offers: Bool
    }

    public let kind = TransportKind(rawValue: "unix")
    public let keys = ["socket", "role"]
    public var abilities: TransportAbilities { [.webRTC] }
    public init() {}

    public func decodeSettings(_ map: [SpecEntry], at location: SourceLocation, with decoder: inout SpecDecoder) -> (any KindSettings)? {
        guard let socket = map.entry("socket") else {
            decoder.fail("transport kind 'unix' needs 'socket': the path of the Unix socket both sides meet on", at: location)
            return nil
        }
        var offers = true
        if let role = map.entry("role") {
            guard let word = decoder.word(role.value, name: "role", what: "role", choices: ["offer", "answer"]) else { return nil }
            offers = word == "offer"
        }
        return decoder.nonEmptyText(socket).map { Settings(socket: $0, offers: offers) }
    }

    public func prepare(_ c: TransportContext) async throws(RunError) -> TransportSetup {
        guard let settings = c.spec.transport.settings(as: Settings.self) else {
            throw RunError("transport kind 'unix' has no settings", at: c.spec.transport.location)
        }
        let bin: Element
        if c.spec.receive != nil {
            bin = try c.receivingBin("unix")
        } else {
            bin = try c.makeWebRTCBin("unix")
            do { try c.pipeline.add(bin) } catch { throw RunError(error.message, at: c.spec.transport.location) }
            try c.addICEAddresses(to: bin)
        }
        try c.buildSendBranches(into: bin)
        if c.spec.send == nil, let video = c.spec.receive?.video {
            try c.addReceiveOnly(.video, codecs: video.codecs, to: bin, at: video.location)
        }
        let peer = WebRTCPeer(bin, label: settings.offers ? "offerer" : "answerer")
        return TransportSetup(peer: peer, session: UnixSocketSession(peer: peer, settings: settings, at: c.spec.transport.location))
    }
}

/// One call's signalling over the socket: an offer one way, an answer the other.
final class UnixSocketSession: RemoteSession {
    let peer: WebRTCPeer
    let settings: UnixSocketTransport.Settings
    let location: SourceLocation?

    init(peer: WebRTCPeer, settings: UnixSocketTransport.Settings, at location: SourceLocation?) {
        self.peer = peer
        self.settings = settings
        self.location = location
    }

    func negotiate(stop: StopFlag, deadline: ContinuousClock.Instant?) async throws(RunError) -> Bool {
        let until = deadline ?? .now + .seconds(30)
        do {
            if settings.offers {
                let offer = try await peer.offerWithCandidates()
                let answer = try await UnixSocket.call(settings.socket, sending: offer, until: until, stop: stop)
                try await peer.setRemoteDescription(try SessionDescription(kind: .answer, sdp: answer))
            } else {
                let listener = try UnixSocket.listen(settings.socket)
                let connection = try await listener.accept(until: until, stop: stop)
                let offer = try await connection.readAll(until: until)
                let answer = try await peer.answer(offer: offer)
                try connection.write(answer)
            }
            return true
        } catch let e as UnixSocket.Failure {
            throw RunError("unix socket \(settings.socket): \(e.message)", at: location)
        } catch let e as NegotiationError {
            throw RunError("unix socket \(settings.socket): \(e.message)", at: location)
        } catch {
            throw RunError("unix socket \(settings.socket): \(error)", at: location)
        }
    }

    func tick() async throws(RunError) -> String? { nil }
    func end() async {}
    var report: RunSummary.Session? { RunSummary.Session(role: settings.offers ? "offerer" : "answerer", id: settings.socket) }
}
