import GStreamer
import SluiceFilterKit
import Synchronization

/// The Swift state behind one audio `sluice-src-NAME` element: builds the `AudioSource` from
/// the settings the graph builder gives it before it starts, and fills each buffer.
///
/// `@unchecked Sendable`: `setup` and `fill` run on the source's streaming thread, one at a
/// time, and are the only users of `source` and `format`; `configure` happens before the
/// element leaves NULL, and its result is published through a Mutex.
package final class AudioSourceElementState: AudioSourceState, ConfigurableSource, @unchecked Sendable {
    private let factory: AudioSourceFactory
    private let handle: ElementHandle
    private let configuration = Mutex<FilterConfiguration?>(nil)
    private var source: (any AudioSource)?
    private var sampleFormat: SampleFormat?
    private var format: AudioFormatInfo?
    private var buffers: UInt64 = 0

    package init(factory: AudioSourceFactory, handle: ElementHandle) {
        self.factory = factory
        self.handle = handle
        SourceStateDirectory.add(self, for: handle.pointer)
    }

    deinit { SourceStateDirectory.remove(handle.pointer) }

    package func configure(_ settings: [String: FilterValue]) throws(FilterConfigurationError) {
        let config = try FilterConfiguration(settings, parameters: factory.parameters)
        configuration.withLock { $0 = config }
    }

    package func setup(_ info: AudioFormatInfo) -> Bool {
        guard let sample = SampleFormat(rawValue: info.formatName), factory.formats.contains(sample) else { return false }
        sampleFormat = sample
        format = info
        if source == nil {
            do {
                let config = try configuration.withLock { $0 } ?? FilterConfiguration([:], parameters: factory.parameters)
                source = try factory.make(config)
            } catch {
                handle.postError("source '\(factory.name)' cannot start: \(error)")
                return false
            }
        }
        return true
    }

    package func fill(_ samples: borrowing AudioSamplesRef, sampleOffset: UInt64) -> Bool {
        guard let source, let format, let sampleFormat else { return false }
        defer { buffers += 1 }
        return source.fill(
            AudioBlock(
                format: sampleFormat, rate: format.rate, channels: format.channels, base: samples.data,
                byteCount: samples.byteCount, pts: UInt64(sampleOffset) * 1_000_000_000 / UInt64(max(1, format.rate)),
                blockNumber: buffers, sampleOffset: sampleOffset))
    }
}
