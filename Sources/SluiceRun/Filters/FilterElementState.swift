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
    private let state = Mutex<(events: [String: Int], lastError: String?)>(([:], nil))

    package init(filter: String, element: String) { self.filter = filter; self.element = element }

    /// Events emitted, by name.
    public var events: [String: Int] { state.withLock { $0.events } }
    /// The last error's message.
    public var lastError: String? { state.withLock { $0.lastError } }

    package func count(event: String) { state.withLock { $0.events[event, default: 0] += 1 } }
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

/// The Swift state behind one `sluice-NAME` element: settings (GObject properties), the
/// filter instance built from them, the error policy and the statistics.
///
/// `@unchecked Sendable`: `process` and `setInfo` run on the element's streaming thread,
/// one call at a time (GstBaseTransform serializes them), and are the only users of
/// `instance` and `format`. Settings written from other threads go through `pending`,
/// behind a Mutex, and are picked up by `process` when the `dirty` flag is set.
package final class FilterElementState: VideoFilterState, @unchecked Sendable {
    private let factory: FilterFactory
    private let handle: ElementHandle
    package let statistics: FilterStatistics
    private var instance: (any FrameProcessor)?
    private var layout: VideoLayout?
    private var context = FilterContext.discarding
    private var policy = FilterErrorPolicy.pass

    private struct Pending {
        var values: [String: FilterValue]
        var policy: FilterErrorPolicy
    }
    private let pending: Mutex<Pending>
    private let dirty = Atomic<Bool>(true)
    private let warnedOnce = Atomic<Bool>(false)

    package init(factory: FilterFactory, handle: ElementHandle) {
        self.factory = factory
        self.handle = handle
        statistics = FilterStatistics(filter: factory.name, element: handle.name)
        var defaults: [String: FilterValue] = [:]
        for p in factory.parameters { if let d = p.defaultValue { defaults[p.name] = d } }
        pending = Mutex(Pending(values: defaults, policy: .pass))
        FilterStatisticsDirectory.add(statistics, for: handle.pointer)
        let stats = statistics, element = handle, filterName = factory.name
        context = FilterContext { event, fields in
            stats.count(event: event)
            element.postMessage(FilterEventMessage(filter: filterName, event: event, fields: fields).structure)
        }
    }

    deinit { FilterStatisticsDirectory.remove(handle.pointer) }

    // MARK: Properties: the parameters in order, then `on-error`.

    /// GObject properties of a filter element for `factory`.
    package static func properties(for factory: FilterFactory) -> [PropertySpec] {
        factory.parameters.map { p in
            switch p.kind {
            case .integer(let lo, let hi):
                let d: Int = if case .integer(let v)? = p.defaultValue { v } else { lo }
                return .int(name: p.name, blurb: p.summary, min: Int32(clamping: lo), max: Int32(clamping: hi), default: Int32(clamping: d))
            case .number(let lo, let hi):
                let d: Double =
                    switch p.defaultValue {
                    case .number(let v)?: v;
                    case .integer(let v)?: Double(v);
                    default: lo
                    }
                return .double(name: p.name, blurb: p.summary, min: lo, max: hi, default: d)
            case .boolean:
                let d: Bool = if case .boolean(let v)? = p.defaultValue { v } else { false }
                return .bool(name: p.name, blurb: p.summary, default: d)
            case .string:
                let d: String? = if case .string(let v)? = p.defaultValue { v } else { nil }
                return .string(name: p.name, blurb: p.summary, default: d)
            case .integers(_, let lo, let hi):
                return .intArray(name: p.name, blurb: p.summary, min: Int32(clamping: lo), max: Int32(clamping: hi))
            }
        } + [.string(name: "on-error", blurb: "pass | drop | fail: what a thrown error does", default: "pass")]
    }

    package func setProperty(_ index: Int, _ value: borrowing PropertySlot) {
        if index == factory.parameters.count {
            let policy = value.string.flatMap(FilterErrorPolicy.init(rawValue:)) ?? .pass
            pending.withLock { $0.policy = policy }
            dirty.store(true, ordering: .releasing)
            return
        }
        guard index >= 0, index < factory.parameters.count else { return }
        let p = factory.parameters[index]
        let v: FilterValue?
        switch p.kind {
        case .integer: v = value.int.map(FilterValue.integer)
        case .number: v = value.double.map(FilterValue.number)
        case .boolean: v = value.bool.map(FilterValue.boolean)
        case .string: v = value.string.map(FilterValue.string)
        case .integers: v = value.ints.map(FilterValue.integers)
        }
        guard let v else { return }
        pending.withLock { $0.values[p.name] = v }
        dirty.store(true, ordering: .releasing)
    }

    package func getProperty(_ index: Int, _ value: borrowing PropertySlot) {
        let current = pending.withLock { $0 }
        if index == factory.parameters.count { value.set(string: current.policy.rawValue); return }
        guard index >= 0, index < factory.parameters.count else { return }
        switch current.values[factory.parameters[index].name] {
        case .integer(let v)?: value.set(int: v)
        case .number(let v)?: value.set(double: v)
        case .boolean(let v)?: value.set(bool: v)
        case .string(let v)?: value.set(string: v)
        case .integers(let v)?: value.set(ints: v)
        case nil: break
        }
    }

    // MARK: Frames

    package func setInfo(formatName: String, width: Int, height: Int) -> Bool {
        layout = VideoLayout(formatName: formatName, width: width, height: height, supported: factory.formats)
        return layout != nil
    }

    package func process(_ frame: borrowing VideoFrameRef, number: UInt64) -> VideoFilterResult {
        statistics.frames.add(1, ordering: .relaxed)
        if dirty.load(ordering: .acquiring) {
            guard rebuild() else { return .error }
        }
        guard let layout, let instance else { return .error }
        do {
            let verdict = try layout.withFrame(frame, number: number) { view in try instance.process(view, context: context) }
            switch verdict {
            case .keep?: return .keep
            case .drop?:
                statistics.dropped.add(1, ordering: .relaxed)
                return .drop
            case nil: return .error
            }
        } catch {
            return handle(error)
        }
    }

    /// Applies pending settings: a new instance from the new configuration.
    private func rebuild() -> Bool {
        dirty.store(false, ordering: .relaxed)
        let current = pending.withLock { $0 }
        policy = current.policy
        do {
            let config = try FilterConfiguration(current.values, parameters: factory.parameters)
            instance = try factory.make(config)
            return true
        } catch {
            handleFatal("filter '\(factory.name)' cannot start: \(error)")
            return false
        }
    }

    private func handle(_ error: any Error) -> VideoFilterResult {
        statistics.errors.add(1, ordering: .relaxed)
        let text = "filter '\(factory.name)' (\(statistics.element)) threw: \(error)"
        statistics.record(error: text)
        switch policy {
        case .pass:
            warnOnce(text)
            return .keep
        case .drop:
            warnOnce(text)
            statistics.dropped.add(1, ordering: .relaxed)
            return .drop
        case .fail:
            handleFatal(text)
            return .error
        }
    }

    private func warnOnce(_ text: String) {
        guard !warnedOnce.exchange(true, ordering: .relaxed) else { return }
        let s = Structure(name: "sluice-filter-warning")
        s.set("filter", factory.name)
        s.set("message", text + " (further errors of this element are only counted)")
        handle.postMessage(s)
    }

    private func handleFatal(_ text: String) {
        statistics.record(error: text)
        handle.postError(text)
    }
}
