import SluiceRun
import SluiceMeasure
/// What the load process itself used during one second of the run (`LoadReport.timeline`).
public struct ProcessSample: Sendable, Codable, Equatable {
    /// The second, counted from the start of the run (0, 1, 2, ...).
    public var second: Int
    /// CPU used over that second, in cores (1.5: one and a half cores busy).
    public var cpuCores: Double
    /// Resident memory at that second, MiB.
    public var memoryMiB: Double

    /// The JSON keys.
    private enum CodingKeys: String, CodingKey {
        case second
        case cpuCores = "cpu_cores"
        case memoryMiB = "memory_mib"
    }

    /// A sample of `second`.
    public init(second: Int, cpuCores: Double, memoryMiB: Double) {
        self.second = second
        self.cpuCores = cpuCores
        self.memoryMiB = memoryMiB
    }
}
