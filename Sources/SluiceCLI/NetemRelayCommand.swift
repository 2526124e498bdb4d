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
    @Option(help: "netem settings: delay T [J], loss P%, duplicate P%, reorder P%, rate R, limit N; or a schedule of them: \"rate 3mbit for 10s; rate 800kbit\".")
    var netem: String
    @Option(help: "Seed of the loss pattern.") var seed: UInt64 = 1

    func run() async throws {
        let schedule: ImpairmentSchedule
        do { schedule = try ImpairmentSchedule.parse(netem) } catch { throw ValidationError(error.description) }
        let fd = sluice_tun_attach(tun)
        guard fd >= 0 else {
            printError("error: cannot attach to TUN device \(tun): \(String(cString: strerror(-fd)))")
            throw ExitCode(3)
        }
        let relay = ImpairmentRelay(fd: fd, schedule: schedule, seed: seed)
        relay.start()
        let stop = StopFlag()
        let signals = SignalTrap(stop: stop)
        defer { signals.cancel() }
        // SIGUSR1 (from the measuring receiver, when its clock starts) starts the schedule over.
        signal(SIGUSR1, SIG_IGN)
        let restart = DispatchSource.makeSignalSource(signal: SIGUSR1)
        restart.setEventHandler { relay.restartSchedule() }
        restart.resume()
        defer { restart.cancel() }
        printLine("relay: ready")
        var step = 0
        while !stop.isSet {
            try await Task.sleep(for: .milliseconds(100))
            let now = relay.counts.step
            if now != step { step = now; printLine("relay: step \(now + 1): \(schedule.steps[now].text)") }
        }
        relay.stop()
        let c = relay.counts
        printLine("relay: \(c.forwarded) forwarded, \(c.dropped) dropped, \(c.duplicated) duplicated, \(c.overflowed) over the queue limit")
    }
}
