import GStreamer
import SluiceRun

extension TransportKind {
    /// Publish the send section to a WHIP endpoint (`endpoint`, optional `token`); a file
    /// with this kind has no receive section.
    public static let whip = TransportKind(rawValue: "whip")
}

/// `kind: whip`: publishes the send section to `endpoint`.
package struct WHIPTransport: Transport {
    package let kind = TransportKind.whip
    /// Simulcast layers go to servers that forward them (`sluice serve --relay`, SFUs).
    package let abilities: TransportAbilities = [.webRTC, .dataChannels, .simulcast]
    package let keys = ["endpoint", "token"]
    package let sections = TransportSections(receive: .forbidden("publishes the send section: remove receive (the endpoint's server receives)"))

    package func decodeSettings(_ map: [SpecEntry], at location: SourceLocation, with decoder: inout SpecDecoder) -> (any KindSettings)? {
        decoder.decodeEndpointSettings(map, kind: kind, example: "http://127.0.0.1:8443/whip/NAME", at: location)
    }

    package func prepare(_ c: TransportContext) async throws(RunError) -> TransportSetup {
        let bin = try c.makeWebRTCBin("publish")
        do { try c.pipeline.add(bin) } catch { throw RunError(error.message) }
        try c.addICEAddresses(to: bin)
        try c.buildSendBranches(into: bin)
        c.builder.holdSimulcastLayers()
        let p = WebRTCPeer(bin, label: "publisher")
        // A server whose answer takes no simulcast gets the best layer alone.
        let builder = c.builder
        let session = try HTTPSession(
            peer: p, protocolName: "WHIP", endpoint: c.endpointSettings, at: c.spec.transport.location,
            logger: c.logger, answered: { builder.keepSimulcastLayers(takenIn: $0) })
        return TransportSetup(peer: p, session: session, opensChannels: bin)
    }
}
