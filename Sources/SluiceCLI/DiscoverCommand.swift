import ArgumentParser
import Foundation
import Sluice
import SluiceSignalling

/// `sluice discover`: lists the Sluice servers (`sluice serve --advertise`) and other DNS-SD
/// services of a type on the local network.
struct Discover: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List Sluice servers on the local network (DNS-SD over multicast DNS).",
        discussion: "Asks for `_sluice._tcp` (or --type) on 224.0.0.251:5353 and prints what answers within --seconds.")

    @Option(help: "Seconds to listen for answers.") var seconds: Double = 2
    @Option(help: "The DNS-SD service type.") var type: String = LANAdvertisement.serviceType
    @Flag(help: "Print one JSON object per service.") var json = false
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        guard (0.2...60).contains(seconds) else { throw ValidationError("--seconds must be between 0.2 and 60") }
        guard type.hasPrefix("_"), type.hasSuffix("._tcp") || type.hasSuffix("._udp"), type.utf8.count <= 64 else {
            throw ValidationError("--type is a DNS-SD service type such as _sluice._tcp")
        }
    }

    func run() async throws {
        global.bootstrapLogging()
        let service: MDNSService
        do { service = try await MDNSService.start() } catch {
            printError("error: cannot listen for multicast DNS (UDP 5353): \(error)")
            throw ExitCode(3)
        }
        let found = await service.browse(type, for: .milliseconds(Int(seconds * 1000)))
        await service.stop()
        for s in found {
            if json {
                let object: [String: Any] = [
                    "name": s.name, "type": s.type, "host": s.host, "port": Int(s.port),
                    "addresses": s.addresses, "txt": s.txt
                ]
                let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
                printLine(String(decoding: data, as: UTF8.self))
            } else {
                let txt = s.txt.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
                printLine("\(s.name)  \(s.addresses.first ?? s.host):\(s.port)  \(txt)")
            }
        }
        if found.isEmpty && !json { printLine("no \(type) services answered within \(seconds) s") }
    }
}
