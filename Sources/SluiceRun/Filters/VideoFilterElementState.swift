import GStreamer
import SluiceFilterKit

/// The Swift state behind one video `sluice-NAME` element: its settings (GObject
/// properties), the filter instance built from them, the error policy and the statistics.
///
/// `@unchecked Sendable`: `process` and `setInfo` run on the element's streaming thread,
/// one call at a time (GstBaseTransform serializes them), and are the only users of
/// `instance`, `layout` and `policy`. Settings written from other threads go through
/// `settings` (a Mutex and an atomic flag) and are taken by `process`.
package final class FilterElementState: VideoFilterState, @unchecked Sendable {
    private let factory: FilterFactory
    private let handle: ElementHandle
    package let statistics: FilterStatistics
    private let settings: FilterSettingsStore
    private let failures: FilterFailureHandler
    private let context: FilterContext
    private var instance: (any FrameProcessor)?
    private var layout: VideoLayout?
    private var policy = FilterErrorPolicy.pass

    package init(factory: FilterFactory, handle: ElementHandle) {
        self.factory = factory
        self.handle = handle
        statistics = FilterStatistics(filter: factory.name, element: handle.name)
        settings = FilterSettingsStore(parameters: factory.parameters)
        failures = FilterFailureHandler(filterName: factory.name, handle: handle, statistics: statistics)
        context = failures.context
        FilterStatisticsDirectory.add(statistics, for: handle.pointer)
    }

    deinit { FilterStatisticsDirectory.remove(handle.pointer) }

    /// GObject properties of a filter element for `factory`: its parameters, then `on-error`.
    package static func properties(for factory: FilterFactory) -> [PropertySpec] {
        FilterSettingsStore.properties(for: factory.parameters)
    }

    package func setProperty(_ index: Int, _ value: borrowing PropertySlot) { settings.setProperty(index, value) }
    package func getProperty(_ index: Int, _ value: borrowing PropertySlot) { settings.getProperty(index, value) }

    package func setInfo(formatName: String, width: Int, height: Int) -> Bool {
        layout = VideoLayout(formatName: formatName, width: width, height: height, supported: factory.formats)
        return layout != nil
    }

    package func process(_ frame: borrowing VideoFrameRef, number: UInt64) -> VideoFilterResult {
        statistics.frames.add(1, ordering: .relaxed)
        if let changed = settings.takeIfChanged() {
            guard rebuild(changed) else { return .error }
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
            return failures.handle(error, policy: policy)
        }
    }

    /// Applies new settings: a new instance from the new configuration.
    private func rebuild(_ changed: FilterSettingsStore.Snapshot) -> Bool {
        policy = changed.policy
        do {
            instance = try factory.make(try FilterConfiguration(changed.values, parameters: factory.parameters))
            return true
        } catch {
            failures.fatal("filter '\(factory.name)' cannot start: \(error)")
            return false
        }
    }
}
