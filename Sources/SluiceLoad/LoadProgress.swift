import Foundation
import SluiceRun
import SluiceMeasure

/// A load run's state at one second: what the live line shows and the timeline records.
public struct LoadProgress: Sendable, Equatable {
    /// Whole seconds since the run started.
    public var second: Int
    /// Clients this process has started so far.
    public var started = 0
    /// Clients connected now (ICE connected, not yet ended).
    public var connected = 0
    /// Clients that ended as planned (or at an interrupt).
    public var ended = 0
    /// Clients that ended otherwise: refused, failed to connect, or the service went away.
    public var failed = 0
    /// Frames all clients received in the last second.
    public var framesPerSecond = 0.0
    /// What all clients received in the last second, kbit/s (video payload).
    public var kilobitsPerSecond = 0.0
    /// This process's CPU over the last second, in cores.
    public var cpuCores = 0.0
    /// This process's resident memory, MiB.
    public var memoryMiB = 0.0

    /// The state at `second`, with every count zero.
    public init(second: Int) { self.second = second }

    /// One live line: `  12s  clients 40 started  38 connected  0 ended  2 failed  1140 fps  9120 kbit/s  cpu 0.83  312 MiB`.
    public var line: String {
        String(
            format: "%4ds  clients %d started  %d connected  %d ended  %d failed  %.0f fps  %.0f kbit/s  cpu %.2f  %.0f MiB",
            second, started, connected, ended, failed, framesPerSecond, kilobitsPerSecond, cpuCores, memoryMiB)
    }
}
