import GStreamer
import SluiceRun

extension TransportKind {
    /// Play a camera through the camera API's `executeCommand` (`endpoint`: the device URL,
    /// optional `token`): a recvonly audio + video + data channel offer, extended before
    /// each `expiresAt`, stopped on exit. A file with this kind has no send section.
    public static let camera = TransportKind(rawValue: "camera")
}

/// `kind: camera`: a camera API device (Nest SDM style) played into the receive section.
package struct CameraTransport: Transport {
    package let kind = TransportKind.camera
    package let keys = ["endpoint", "token"]
    package let sections = TransportSections(
        send: .forbidden("plays a camera: remove send (the camera sends)"),
        receive: .required("needs a receive section for what the camera sends"))
    /// The camera API takes a data channel: a file that declares none gets this one.
    package let requiredDataChannel: String? = "sluice"

    package func decodeSettings(_ map: [SpecEntry], at location: SourceLocation, with decoder: inout SpecDecoder) -> (any KindSettings)? {
        let example = "http://127.0.0.1:8443/enterprises/PROJECT/devices/NAME"
        guard let settings = decoder.decodeEndpointSettings(map, kind: kind, example: example, at: location) else { return nil }
        guard settings.endpoint.contains("/devices/") else {
            decoder.fail(
                "a camera endpoint is a device URL ending in /devices/NAME, e.g. \(example)",
                at: map.entry("endpoint")?.value.location ?? location)
            return nil
        }
        return settings
    }

    package func prepare(_ c: TransportContext) async throws(RunError) -> TransportSetup {
        // The camera API takes audio, video and a data channel, in that order, whatever
        // the file receives (what it does not receive ends in a fakesink).
        let p = try c.buildPlayer(media: [.audio, .video], always: true)
        let session = try CameraSession(peer: p, endpoint: c.endpointSettings, at: c.spec.transport.location, logger: c.logger)
        return TransportSetup(peer: p, session: session, opensChannels: p.webrtcbin)
    }
}
