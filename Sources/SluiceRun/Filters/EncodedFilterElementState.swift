import GStreamer
import SluiceFilterKit
import Synchronization

/// The Swift state behind one encoded-frame `sluice-NAME` element: its settings (GObject
/// properties: the filter's parameters, `on-error`, then `direction`), the filter instance
/// built from them, the error policy and the statistics (`frames` counts encoded frames).
///
/// `@unchecked Sendable`: `process` and `setCaps` run on the element's streaming thread, one
/// call at a time (GstBaseTransform serializes them), and are the only users of `instance`,
/// `codec` and `policy`. Settings written from other threads go through `settings` (a Mutex
/// and an atomic flag) and `direction` (a Mutex), and are taken by `process`.
package final class EncodedFilterElementState: EncodedFilterState, @unchecked Sendable {
    private let factory: EncodedFilterFactory
    private let handle: ElementHandle
    package let statistics: FilterStatistics
    private let settings: FilterSettingsStore
    private let failures: FilterFailureHandler
    private let context: FilterContext
    private let direction = Mutex(EncodedDirection.send)
    private var instance: (any EncodedFrameProcessor)?
    private var codec: EncodedCodec?
    private var policy = FilterErrorPolicy.pass

    package init(factory: EncodedFilterFactory, handle: ElementHandle) {
        self.factory = factory
        self.handle = handle
        statistics = FilterStatistics(filter: factory.name, element: handle.name)
        settings = FilterSettingsStore(parameters: factory.parameters)
        failures = FilterFailureHandler(filterName: factory.name, handle: handle, statistics: statistics)
        context = failures.context
        FilterStatisticsDirectory.add(statistics, for: handle.pointer)
    }

    deinit { FilterStatisticsDirectory.remove(handle.pointer) }

    /// The element's properties: the filter's settings, `on-error`, and `direction`
    /// (`send` or `receive`, set by the graph builder).
    package static func properties(for factory: EncodedFilterFactory) -> [PropertySpec] {
        FilterSettingsStore.properties(for: factory.parameters) + [
            .string(name: "direction", blurb: "send | receive: which way the frames travel", default: "send")
        ]
    }

    package func setProperty(_ index: Int, _ value: borrowing PropertySlot) {
        if index == factory.parameters.count + 1 {
            let d = value.string.flatMap(EncodedDirection.init(rawValue:)) ?? .send
            direction.withLock { $0 = d }
            return
        }
        settings.setProperty(index, value)
    }

    package func getProperty(_ index: Int, _ value: borrowing PropertySlot) {
        if index == factory.parameters.count + 1 {
            value.set(string: direction.withLock { $0 }.rawValue)
            return
        }
        settings.getProperty(index, value)
    }

    package func setCaps(mediaType: String) -> Bool {
        guard let c = EncodedCodec(mediaType: mediaType), factory.codecs.contains(c) else {
            failures.fatal("filter '\(factory.name)' cannot take \(mediaType); it handles \(factory.codecs.map(\.rawValue).joined(separator: ", "))")
            return false
        }
        codec = c
        return true
    }

    package func process(_ frame: borrowing EncodedBufferRef, number: UInt64) -> VideoFilterResult {
        statistics.frames.add(1, ordering: .relaxed)
        if let changed = settings.takeIfChanged() {
            guard rebuild(changed) else { return .error }
        }
        guard let codec, let instance else { return .error }
        let direction = direction.withLock { $0 }
        let keyframe = codec == .opus || !frame.isDeltaUnit
        let pts = frame.pts.map(UInt64.init), dts = frame.dts.map(UInt64.init)
        let verdict: EncodedVerdict?
        do {
            verdict = try frame.withBytes { bytes in
                try instance.process(
                    EncodedFrame(
                        codec: codec, direction: direction, isKeyframe: keyframe, pts: pts, dts: dts, bytes: bytes, number: number),
                    context: context)
            }
        } catch {
            return failures.handle(error, policy: policy)
        }
        switch verdict {
        case .keep?: return .keep
        case .drop?:
            statistics.dropped.add(1, ordering: .relaxed)
            // A frame dropped on its way to the decoder is missing data, as a lost packet is:
            // said downstream, the decoder waits for a keyframe and asks the sender for one.
            if direction == .receive, let pts = frame.pts { handle.pushMissingData(pts: pts, duration: frame.duration) }
            return .drop
        case .replace(let bytes)?:
            let written = frame.replaceBytes(count: bytes.count) { out in out.copyBytes(from: bytes) }
            return written ? .keep : .error
        case nil:
            return failures.handle(EncodedFrameUnreadable(), policy: policy)
        }
    }

    /// Applies new settings: a new instance from the new configuration, handed the one it
    /// replaces. Settings changed while running that make no instance (two keys given) leave
    /// the running one as it was, with a `settings-refused` event; at start they stop the
    /// pipeline.
    private func rebuild(_ changed: FilterSettingsStore.Snapshot) -> Bool {
        policy = changed.policy
        do {
            instance = try factory.make(try FilterConfiguration(changed.values, parameters: factory.parameters), instance)
            return true
        } catch {
            guard instance != nil else {
                failures.fatal("filter '\(factory.name)' cannot start: \(error)")
                return false
            }
            statistics.record(error: "filter '\(factory.name)' kept its settings: \(error)")
            context.emit("settings-refused", [:])
            return true
        }
    }
}

/// An encoded frame whose memory could not be mapped for reading.
private struct EncodedFrameUnreadable: Error, CustomStringConvertible {
    var description: String { "the encoded frame's memory could not be read" }
}
