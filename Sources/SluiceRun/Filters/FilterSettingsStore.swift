import GStreamer
import SluiceFilterKit
import Synchronization

/// The settings of one Swift filter element (video or audio) as GObject properties: the
/// filter's parameters in order, then `on-error`. Properties may be set from any thread; the
/// streaming thread takes the new settings with `takeIfChanged` before its next buffer.
package final class FilterSettingsStore: Sendable {
    /// Settings at one moment: values by parameter name and the error policy.
    package struct Snapshot: Sendable {
        package var values: [String: FilterValue]
        package var policy: FilterErrorPolicy
    }

    private let parameters: [FilterParameter]
    private let pending: Mutex<Snapshot>
    private let dirty = Atomic<Bool>(true)

    /// A store holding each parameter's default; the first `takeIfChanged` returns them.
    package init(parameters: [FilterParameter]) {
        self.parameters = parameters
        var defaults: [String: FilterValue] = [:]
        for p in parameters { if let d = p.defaultValue { defaults[p.name] = d } }
        pending = Mutex(Snapshot(values: defaults, policy: .pass))
    }

    /// GObject properties of a filter element with `parameters`.
    package static func properties(for parameters: [FilterParameter]) -> [PropertySpec] {
        parameters.map(propertySpec) + [
            .string(name: "on-error", blurb: "pass | drop | fail: what a thrown error does", default: "pass")
        ]
    }

    private static func propertySpec(_ p: FilterParameter) -> PropertySpec {
        switch p.kind {
        case .integer(let lo, let hi):
            let d: Int = if case .integer(let v)? = p.defaultValue { v } else { lo }
            return .int(name: p.name, blurb: p.summary, min: Int32(clamping: lo), max: Int32(clamping: hi), default: Int32(clamping: d))
        case .number(let lo, let hi):
            let d: Double =
                switch p.defaultValue {
                case .number(let v)?: v
                case .integer(let v)?: Double(v)
                default: lo
                }
            return .double(name: p.name, blurb: p.summary, min: lo, max: hi, default: d)
        case .boolean:
            let d: Bool = if case .boolean(let v)? = p.defaultValue { v } else { false }
            return .bool(name: p.name, blurb: p.summary, default: d)
        case .string where p.secret:
            return .secret(name: p.name, blurb: p.summary)
        case .string:
            let d: String? = if case .string(let v)? = p.defaultValue { v } else { nil }
            return .string(name: p.name, blurb: p.summary, default: d)
        case .integers(_, let lo, let hi):
            return .intArray(name: p.name, blurb: p.summary, min: Int32(clamping: lo), max: Int32(clamping: hi))
        }
    }

    /// Sets property `index` (GObject property id − 1).
    package func setProperty(_ index: Int, _ value: borrowing PropertySlot) {
        if index == parameters.count {
            let policy = value.string.flatMap(FilterErrorPolicy.init(rawValue:)) ?? .pass
            pending.withLock { $0.policy = policy }
            dirty.store(true, ordering: .releasing)
            return
        }
        guard index >= 0, index < parameters.count else { return }
        let p = parameters[index]
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

    /// Fills `value` with property `index`.
    package func getProperty(_ index: Int, _ value: borrowing PropertySlot) {
        let current = pending.withLock { $0 }
        if index == parameters.count { value.set(string: current.policy.rawValue); return }
        guard index >= 0, index < parameters.count, !parameters[index].secret else { return }
        switch current.values[parameters[index].name] {
        case .integer(let v)?: value.set(int: v)
        case .number(let v)?: value.set(double: v)
        case .boolean(let v)?: value.set(bool: v)
        case .string(let v)?: value.set(string: v)
        case .integers(let v)?: value.set(ints: v)
        case nil: break
        }
    }

    /// The settings if any changed since the last call (always on the first), else nil.
    package func takeIfChanged() -> Snapshot? {
        guard dirty.load(ordering: .acquiring) else { return nil }
        dirty.store(false, ordering: .relaxed)
        return pending.withLock { $0 }
    }
}

/// What one Swift filter element does with a thrown error, a failed start and its warnings:
/// shared by video and audio filter elements.
package final class FilterFailureHandler: Sendable {
    package let filterName: String
    package let handle: ElementHandle
    package let statistics: FilterStatistics
    private let warnedOnce = Atomic<Bool>(false)

    package init(filterName: String, handle: ElementHandle, statistics: FilterStatistics) {
        self.filterName = filterName; self.handle = handle; self.statistics = statistics
    }

    /// A context whose events are counted and posted on the bus.
    package var context: FilterContext {
        let stats = statistics, element = handle, name = filterName
        return FilterContext { event, fields in
            stats.count(event: event, fields: fields)
            element.postMessage(FilterEventMessage(filter: name, event: event, fields: fields).structure)
        }
    }

    /// A filter threw `error` under `policy`: the result for this buffer.
    package func handle(_ error: any Error, policy: FilterErrorPolicy) -> VideoFilterResult {
        statistics.errors.add(1, ordering: .relaxed)
        let text = "filter '\(filterName)' (\(statistics.element)) threw: \(error)"
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
            fatal(text)
            return .error
        }
    }

    /// The filter cannot go on: the element posts an error and the pipeline stops.
    package func fatal(_ text: String) {
        statistics.record(error: text)
        handle.postError(text)
    }

    private func warnOnce(_ text: String) {
        guard !warnedOnce.exchange(true, ordering: .relaxed) else { return }
        let s = Structure(name: "sluice-filter-warning")
        s.set("filter", filterName)
        s.set("message", text + " (further errors of this element are only counted)")
        handle.postMessage(s)
    }
}
