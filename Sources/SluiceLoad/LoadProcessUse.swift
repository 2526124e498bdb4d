import SluiceRun
import SluiceMeasure
/// What the load process held before its first client and after its last one left: open
/// files, threads and memory. A client that leaks (a socket, a thread, its elements) shows
/// as the difference.
public struct LoadProcessUse: Sendable, Codable, Equatable {
    /// One reading of the process.
    public struct Reading: Sendable, Codable, Equatable {
        /// Open file descriptors.
        public var fds: Int
        /// OS threads.
        public var threads: Int
        /// Resident memory, MiB.
        public var memory_mib: Double

        /// A reading from its figures.
        public init(fds: Int, threads: Int, memory_mib: Double) {
            self.fds = fds; self.threads = threads; self.memory_mib = memory_mib
        }

        /// A reading from a `/proc/self` sample.
        public init(_ s: ProcessMetrics.Sample) {
            self.init(fds: s.openFDs, threads: s.threads, memory_mib: Double(s.residentBytes) / 1_048_576)
        }
    }

    /// Before the first client started.
    public var start: Reading
    /// After the last client left and its pipeline stopped.
    public var end: Reading

    /// The two readings.
    public init(start: Reading, end: Reading) { self.start = start; self.end = end }

    /// The readings of several processes (shards) added up.
    public static func sum(_ uses: [LoadProcessUse]) -> LoadProcessUse? {
        guard !uses.isEmpty else { return nil }
        func add(_ a: Reading, _ b: Reading) -> Reading {
            Reading(fds: a.fds + b.fds, threads: a.threads + b.threads, memory_mib: a.memory_mib + b.memory_mib)
        }
        let zero = Reading(fds: 0, threads: 0, memory_mib: 0)
        return LoadProcessUse(start: uses.map(\.start).reduce(zero, add), end: uses.map(\.end).reduce(zero, add))
    }
}
