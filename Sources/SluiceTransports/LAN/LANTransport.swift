import Foundation
import SluiceSignalling
import SluiceRun

extension TransportKind {
    /// Play a Sluice server found on the local network by the name it advertises (`peer`;
    /// optional `stream`): DNS-SD over multicast DNS finds its address, port and streams, then
    /// WHEP to it directly; no room server. A file with this kind has no send section.
    public static let lan = TransportKind(rawValue: "lan")
}

/// `kind: lan`: whom to play, and which of its streams.
package struct LANSettings: KindSettings, Equatable {
    /// The advertised name of the Sluice server (`sluice serve --advertise NAME`).
    package var peer: String
    /// Which of its streams (nil: the first it lists).
    package var stream: String?
}

/// `kind: lan`: finds the Sluice server advertised as `peer` on the local network (DNS-SD
/// `_sluice._tcp` over multicast DNS) and plays one of its streams over WHEP, directly.
package struct LANTransport: Transport {
    package let kind = TransportKind.lan
    package let keys = ["peer", "stream"]
    package let sections = TransportSections(
        send: .forbidden("plays a stream: remove send (the peer sends)"),
        receive: .required("needs a receive section for the stream it plays"))

    package func decodeSettings(_ map: [SpecEntry], at location: SourceLocation, with decoder: inout SpecDecoder) -> (any KindSettings)? {
        let stream = map.entry("stream").flatMap { decoder.decodeInstanceName($0) }
        guard let peer = map.entry("peer") else {
            decoder.fail(
                "transport kind 'lan' needs a 'peer': the name a Sluice server advertises (sluice serve --advertise NAME; sluice discover lists them)",
                at: location)
            return nil
        }
        return decoder.decodeInstanceName(peer).map { LANSettings(peer: $0, stream: stream) }
    }

    package func prepare(_ c: TransportContext) async throws(RunError) -> TransportSetup {
        let transport = c.spec.transport
        let settings = transport.settings(as: LANSettings.self)
        let name = settings?.peer ?? ""
        let timeout = max(2, min(transport.ice.connectTimeout, 10))
        let found = await Self.find(name, within: timeout)
        guard let server = found else {
            throw RunError(
                "no Sluice server named '\(name)' answered on the local network within \(Int(timeout)) s "
                    + "(multicast DNS, UDP 5353); `sluice discover` lists those that do", at: transport.location)
        }
        let streams = (server.txt["streams"] ?? "").split(separator: ",").map(String.init).filter { !$0.isEmpty }
        guard let stream = settings?.stream ?? streams.first else {
            throw RunError("'\(server.name)' serves no streams", at: transport.location)
        }
        guard settings?.stream == nil || streams.contains(stream) else {
            throw RunError("'\(server.name)' serves \(streams.joined(separator: ", ")), not '\(stream)'", at: transport.location)
        }
        guard let address = server.addresses.first else {
            throw RunError("'\(server.name)' answered without an address", at: transport.location)
        }
        let path = server.txt["path"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/whep/"
        let endpoint = EndpointSettings(endpoint: "http://\(address):\(server.port)\(path)\(stream)")
        c.logger.info("found on the local network", metadata: ["peer": "\(server.name)", "endpoint": "\(endpoint.endpoint)"])
        let p = try c.buildPlayer(media: [.video, .audio])
        let session = try HTTPSession(peer: p, protocolName: "WHEP", endpoint: endpoint, at: transport.location, logger: c.logger)
        return TransportSetup(peer: p, session: session, opensChannels: p.webrtcbin)
    }

    /// Browses until an instance named `name` (any case) with a port and address answers.
    package static func find(_ name: String, within timeout: Double) async -> ServiceInstance? {
        guard let service = try? await MDNSService.start() else { return nil }
        defer { Task { await service.stop() } }
        let start = ContinuousClock.now
        var asked = ContinuousClock.now - .seconds(10)
        while (ContinuousClock.now - start).seconds < timeout {
            if ContinuousClock.now - asked >= .seconds(1) {
                asked = .now
                await service.query(LANAdvertisement.serviceType)
            }
            if let hit = service.instances(of: LANAdvertisement.serviceType).first(where: {
                $0.name.lowercased() == name.lowercased() && $0.port != 0 && !$0.addresses.isEmpty
            }) {
                return hit
            }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return nil
    }
}
