import ArgumentParser
import Foundation
import Sluice

/// The impairing router of `sluice measure --netem` on kernels without netem: attaches to a
/// TUN device in the middle namespace and sends every packet back after the impairment
/// (`TUNRelay`). Started by `sluice measure`; hidden from help.
struct NetemRelay: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "netem-relay", abstract: "Delay/drop packets through a TUN device (started by `sluice measure --netem`).",
        shouldDisplay: false)

    @Option(help: "The TUN device (created with `ip tuntap add dev NAME mode tun`).") var tun: String
    @Option(
        help: "netem settings: delay T [J], loss P%, duplicate P%, reorder P%, rate R, limit N; or a schedule of them: \"rate 3mbit for 10s; rate 800kbit\".")
    var netem: String
    @Option(help: "Seed of the loss pattern.") var seed: UInt64 = 1

    func run() async throws {
        let schedule: ImpairmentSchedule
        do { schedule = try ImpairmentSchedule.parse(netem) } catch { throw ValidationError(error.description) }
        let stop = StopFlag()
        let signals = SignalTrap(stop: stop)
        defer { signals.cancel() }
        let totals: TUNRelay.Totals
        do {
            totals = try await TUNRelay(tun: tun, schedule: schedule, seed: seed).run(stop: stop) { event in
                switch event {
                case .ready: printLine("relay: ready")
                case .step(let index, let text): printLine("relay: step \(index + 1): \(text)")
                }
            }
        } catch let e as TUNDevice.AttachError {
            printError("error: \(e)")
            throw ExitCode(3)
        }
        printLine("relay: \(totals.forwarded) forwarded, \(totals.dropped) dropped, \(totals.duplicated) duplicated, \(totals.overflowed) over the queue limit")
    }
}
