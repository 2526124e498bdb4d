import ArgumentParser
import CGStreamerShim
import Foundation
import GStreamer
import Sluice

/// The impairing router of `sluice measure --netem` on kernels without netem: attaches to a
/// TUN device in the middle namespace and sends every packet back after the impairment.
/// Started by `sluice measure`; hidden from help.
struct NetemRelay: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "netem-relay", abstract: "Delay/drop packets through a TUN device (started by `sluice measure --netem`).",
        shouldDisplay: false)

    @Option(help: "The TUN device (created with `ip tuntap add dev NAME mode tun`).") var tun: String
    @Option(help: "netem settings: delay T [J], loss P%, duplicate P%.") var netem: String
    @Option(help: "Seed of the loss pattern.") var seed: UInt64 = 1

    func run() async throws {
        let impairment: Impairment
        do { impairment = try Impairment.parse(netem) } catch { throw ValidationError(error.description) }
        let fd = sluice_tun_attach(tun)
        guard fd >= 0 else {
            printError("error: cannot attach to TUN device \(tun): \(String(cString: strerror(-fd)))")
            throw ExitCode(3)
        }
        let relay = ImpairmentRelay(fd: fd, impairment: impairment, seed: seed)
        relay.start()
        let stop = StopFlag()
        let signals = SignalTrap(stop: stop)
        defer { signals.cancel() }
        printLine("relay: ready")
        while !stop.isSet { try await Task.sleep(for: .milliseconds(100)) }
        relay.stop()
        let (forwarded, dropped, duplicated) = relay.counts
        printLine("relay: \(forwarded) forwarded, \(dropped) dropped, \(duplicated) duplicated")
    }
}
