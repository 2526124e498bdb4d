import GStreamer
import SluiceRun

extension TransportKind {
    /// Play a WHEP endpoint (`endpoint`, optional `token`): the receive section gets the
    /// stream; a file with this kind has no send section.
    public static let whep = TransportKind(rawValue: "whep")
}

/// `kind: whep`: plays `endpoint` into the receive section (one complete recvonly offer
/// POSTed, the answer applied, the session DELETEd at the end).
package struct WHEPTransport: Transport {
    package let kind = TransportKind.whep
    package let keys = ["endpoint", "token"]
    package let sections = TransportSections(
        send: .forbidden("plays a stream: remove send (the endpoint's server sends)"),
        receive: .required("needs a receive section for the stream it plays"))

    package func decodeSettings(_ map: [SpecEntry], at location: SourceLocation, with decoder: inout SpecDecoder) -> (any KindSettings)? {
        decoder.decodeEndpointSettings(map, kind: kind, example: "http://127.0.0.1:8443/whep/NAME", at: location)
    }

    package func prepare(_ c: TransportContext) async throws(RunError) -> TransportSetup {
        let p = try c.buildPlayer(media: [.video, .audio])
        let session = try HTTPSession(
            peer: p, protocolName: "WHEP", endpoint: c.endpointSettings, at: c.spec.transport.location,
            logger: c.logger)
        return TransportSetup(peer: p, session: session, opensChannels: p.webrtcbin)
    }
}
