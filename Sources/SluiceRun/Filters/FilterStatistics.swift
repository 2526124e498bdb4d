import GStreamer
import SluiceFilterKit
import Synchronization

/// Counters of one Swift filter element, readable while the pipeline runs.
public final class FilterStatistics: Sendable {
    /// The Swift filter's name as written in the pipeline file (e.g. `pixelate`).
    public let filter: String
    /// The name of the GStreamer element running the filter (as in the graph picture).
    public let element: String
    /// Frames handed to the filter.
    public let frames = Atomic<Int>(0)
    /// Frames the filter (or its `on_error: drop`) dropped.
    public let dropped = Atomic<Int>(0)
    /// Errors thrown by the filter.
    public let errors = Atomic<Int>(0)
    private struct Recorded {
        var events: [String: Int] = [:]
        var lastFields: [String: [String: Double]] = [:]
        var lastError: String?
    }
    private let state = Mutex(Recorded())

    package init(filter: String, element: String) { self.filter = filter; self.element = element }

    /// Events emitted, by name.
    public var events: [String: Int] { state.withLock { $0.events } }
    /// The numeric fields of the last event of each name (a `level` filter's last RMS and peak).
    public var lastEventFields: [String: [String: Double]] { state.withLock { $0.lastFields } }
    /// The last error's message.
    public var lastError: String? { state.withLock { $0.lastError } }

    package func count(event: String, fields: [String: Double] = [:]) {
        state.withLock { s in
            s.events[event, default: 0] += 1
            if !fields.isEmpty { s.lastFields[event] = fields }
        }
    }
    package func record(error: String) { state.withLock { $0.lastError = error } }
}

/// Where the statistics of live Swift filter elements can be found by element.
public enum FilterStatisticsDirectory {
    /// Keyed by the element's address.
    private static let table = Mutex<[UInt: FilterStatistics]>([:])

    /// The statistics of a `sluice-*` filter element, if it is one.
    public static func statistics(of element: Element) -> FilterStatistics? {
        table.withLock { $0[UInt(bitPattern: element.pointer)] }
    }
    package static func add(_ s: FilterStatistics, for element: UnsafeMutableRawPointer) {
        table.withLock { $0[UInt(bitPattern: element)] = s }
    }
    package static func remove(_ element: UnsafeMutableRawPointer) {
        table.withLock { _ = $0.removeValue(forKey: UInt(bitPattern: element)) }
    }
}
