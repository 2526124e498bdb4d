import GStreamer
import SluiceFilterKit

/// The Swift state behind one audio `sluice-NAME` element: its settings (GObject
/// properties), the filter instance built from them, the error policy and the statistics
/// (`frames` counts buffers).
///
/// `@unchecked Sendable`: `process` and `setup` run on the element's streaming thread, one
/// call at a time (GstBaseTransform serializes them), and are the only users of `instance`,
/// `format` and `policy`. Settings written from other threads go through `settings` (a Mutex
/// and an atomic flag) and are taken by `process`.
package final class AudioFilterElementState: AudioFilterState, @unchecked Sendable {
    private let factory: AudioFilterFactory
    private let handle: ElementHandle
    package let statistics: FilterStatistics
    private let settings: FilterSettingsStore
    private let failures: FilterFailureHandler
    private let context: FilterContext
    private var instance: (any AudioProcessor)?
    private var sampleFormat: SampleFormat?
    private var format: AudioFormatInfo?
    private var policy = FilterErrorPolicy.pass
    private var samplesHandled: UInt64 = 0

    package init(factory: AudioFilterFactory, handle: ElementHandle) {
        self.factory = factory
        self.handle = handle
        statistics = FilterStatistics(filter: factory.name, element: handle.name)
        settings = FilterSettingsStore(parameters: factory.parameters)
        failures = FilterFailureHandler(filterName: factory.name, handle: handle, statistics: statistics)
        context = failures.context
        FilterStatisticsDirectory.add(statistics, for: handle.pointer)
    }

    deinit { FilterStatisticsDirectory.remove(handle.pointer) }

    package func setProperty(_ index: Int, _ value: borrowing PropertySlot) { settings.setProperty(index, value) }
    package func getProperty(_ index: Int, _ value: borrowing PropertySlot) { settings.getProperty(index, value) }

    package func setup(_ info: AudioFormatInfo) -> Bool {
        guard let sample = SampleFormat(rawValue: info.formatName), factory.formats.contains(sample), info.rate > 0,
            info.channels > 0
        else { return false }
        sampleFormat = sample
        format = info
        return true
    }

    package func process(_ samples: borrowing AudioSamplesRef, number: UInt64) -> VideoFilterResult {
        statistics.frames.add(1, ordering: .relaxed)
        if let changed = settings.takeIfChanged() {
            guard rebuild(changed) else { return .error }
        }
        guard let format, let sampleFormat, let instance else { return .error }
        let block = AudioBlock(
            format: sampleFormat, rate: format.rate, channels: format.channels, base: samples.data,
            byteCount: samples.byteCount, pts: samples.pts.map(UInt64.init), blockNumber: number,
            sampleOffset: samplesHandled)
        samplesHandled += UInt64(block.frameCount)
        do {
            switch try instance.process(block, context: context) {
            case .keep: return .keep
            case .drop:
                statistics.dropped.add(1, ordering: .relaxed)
                return silence(samples)
            }
        } catch {
            return failures.handle(error, policy: policy)
        }
    }

    /// A dropped buffer becomes silence of the same length, so the stream's timing holds (an
    /// encoder downstream sees no gap); an analysis-only filter cannot write, so its buffer is
    /// dropped.
    private func silence(_ samples: borrowing AudioSamplesRef) -> VideoFilterResult {
        guard factory.modifiesSamples else { return .drop }
        samples.data.initializeMemory(as: UInt8.self, repeating: 0, count: samples.byteCount)
        return .keep
    }

    /// Applies new settings: a new instance from the new configuration.
    private func rebuild(_ changed: FilterSettingsStore.Snapshot) -> Bool {
        policy = changed.policy
        do {
            instance = try factory.make(try FilterConfiguration(changed.values, parameters: factory.parameters), instance)
            return true
        } catch {
            failures.fatal("filter '\(factory.name)' cannot start: \(error)")
            return false
        }
    }
}
