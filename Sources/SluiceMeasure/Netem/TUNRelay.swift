import Dispatch
import Foundation
import SluiceRun

/// The impairing router of `sluice measure --netem` on kernels without netem (and of
/// `--netem-schedule`): attaches to a TUN device in the middle namespace and sends every
/// packet back into it after the impairment in force (`ImpairmentRelay`). SIGUSR1 (sent by
/// the measuring receiver when its clock starts) starts the schedule over.
public struct TUNRelay: Sendable {
    /// What the relay reports while it runs.
    public enum Event: Sendable {
        /// Attached and relaying.
        case ready
        /// The schedule moved to its step `index` (0-based), described by `text`.
        case step(index: Int, text: String)
    }

    /// What the relay did: packets forwarded, dropped, duplicated, and dropped because the
    /// queue held `limit` packets already.
    public struct Totals: Sendable, Equatable {
        /// Packets written back (each copy of a duplicated one counts).
        public var forwarded = 0
        /// Packets dropped by the loss probability.
        public var dropped = 0
        /// Packets sent more than once.
        public var duplicated = 0
        /// Packets dropped because `limit` packets already waited.
        public var overflowed = 0
    }

    /// The TUN device's name.
    public let tun: String
    /// The conditions the relay applies.
    public let schedule: ImpairmentSchedule
    /// The seed of the loss pattern.
    public let seed: UInt64

    /// A relay through `tun` applying `schedule`, its random choices seeded with `seed`.
    public init(tun: String, schedule: ImpairmentSchedule, seed: UInt64) {
        self.tun = tun; self.schedule = schedule; self.seed = seed
    }

    /// Attaches to the device and relays until `stop` is set; `report` hears when the relay
    /// is ready and each change of step. Throws `TUNDevice.AttachError` if the device cannot
    /// be attached to.
    public func run(stop: StopFlag, report: (Event) -> Void) async throws -> Totals {
        let fd = try TUNDevice.attach(tun)
        let relay = ImpairmentRelay(fd: fd, schedule: schedule, seed: seed)
        relay.start()
        signal(SIGUSR1, SIG_IGN)
        let restart = DispatchSource.makeSignalSource(signal: SIGUSR1)
        restart.setEventHandler { relay.restartSchedule() }
        restart.resume()
        defer { restart.cancel() }
        report(.ready)
        var step = 0
        while !stop.isSet {
            try await Task.sleep(for: .milliseconds(100))
            let now = relay.counts.step
            if now != step { step = now; report(.step(index: now, text: schedule.steps[now].text)) }
        }
        relay.stop()
        let c = relay.counts
        return Totals(forwarded: c.forwarded, dropped: c.dropped, duplicated: c.duplicated, overflowed: c.overflowed)
    }
}
