import Foundation
import SluiceSignalling

/// `kind: lan`: finds the Sluice server advertised as `peer` on the local network (DNS-SD
/// `_sluice._tcp` over multicast DNS) and plays one of its streams over WHEP, directly.
struct LANTransport: Transport {
    func prepare(_ c: TransportContext) async throws(RunError) -> TransportSetup {
        var transport = c.spec.transport
        let name = transport.peer ?? ""
        let timeout = max(2, min(transport.ice.connectTimeout, 10))
        let found = await Self.find(name, within: timeout)
        guard let server = found else {
            throw RunError("no Sluice server named '\(name)' answered on the local network within \(Int(timeout)) s "
                           + "(multicast DNS, UDP 5353); `sluice discover` lists those that do", at: transport.location)
        }
        let streams = (server.txt["streams"] ?? "").split(separator: ",").map(String.init).filter { !$0.isEmpty }
        guard let stream = transport.stream ?? streams.first else {
            throw RunError("'\(server.name)' serves no streams", at: transport.location)
        }
        guard transport.stream == nil || streams.contains(stream) else {
            throw RunError("'\(server.name)' serves \(streams.joined(separator: ", ")), not '\(stream)'", at: transport.location)
        }
        guard let address = server.addresses.first else {
            throw RunError("'\(server.name)' answered without an address", at: transport.location)
        }
        let path = server.txt["path"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/whep/"
        transport.endpoint = "http://\(address):\(server.port)\(path)\(stream)"
        c.logger.info("found on the local network", metadata: ["peer": "\(server.name)", "endpoint": "\(transport.endpoint ?? "")"])
        let p = try c.buildPlayer(media: [.video, .audio])
        return TransportSetup(player: p, remote: try HTTPSession(peer: p, transport: transport, logger: c.logger),
                              opensChannels: p.webrtcbin)
    }

    /// Browses until an instance named `name` (any case) with a port and address answers.
    static func find(_ name: String, within timeout: Double) async -> ServiceInstance? {
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
            }) { return hit }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return nil
    }
}
