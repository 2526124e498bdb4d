import GStreamer
import SluiceFilterKit
import Synchronization

/// The Swift state behind one `sluice-src-NAME` element: builds the `FrameSource` from the
/// element's `settings` (set by the graph builder before it starts) and draws each frame.
///
/// `@unchecked Sendable`: `setInfo` and `fill` run on the source's streaming thread, one at
/// a time; `configure` happens before the element leaves NULL (the builder calls it right
/// after creating the element), and its result is published through a Mutex.
package final class SourceElementState: VideoSourceState, ConfigurableSource, @unchecked Sendable {
    private let factory: SourceFactory
    private let handle: ElementHandle
    private let configuration = Mutex<FilterConfiguration?>(nil)
    private var source: (any FrameSource)?
    private var layout: VideoLayout?

    package init(factory: SourceFactory, handle: ElementHandle) {
        self.factory = factory
        self.handle = handle
        SourceStateDirectory.add(self, for: handle.pointer)
    }

    deinit { SourceStateDirectory.remove(handle.pointer) }

    /// Sets the settings the source is built from (defaults apply to the rest).
    package func configure(_ settings: [String: FilterValue]) throws(FilterConfigurationError) {
        let config = try FilterConfiguration(settings, parameters: factory.parameters)
        configuration.withLock { $0 = config }
    }

    package func setInfo(formatName: String, width: Int, height: Int) -> Bool {
        layout = VideoLayout(formatName: formatName, width: width, height: height, supported: factory.formats)
        guard layout != nil else { return false }
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

    package func fill(_ frame: borrowing VideoFrameRef, number: UInt64) -> Bool {
        guard let layout, let source else { return false }
        return layout.withFrame(frame, number: number) { view in source.draw(into: view) } ?? false
    }
}

/// The state of a Swift source element (video or audio), configured by the graph builder
/// right after it makes the element.
package protocol ConfigurableSource: AnyObject {
    /// Sets the settings the source is built from (defaults apply to the rest).
    func configure(_ settings: [String: FilterValue]) throws(FilterConfigurationError)
}

/// Finds the state of a source element the graph builder just created, to configure it.
package enum SourceStateDirectory {
    /// Keyed by the element's address.
    private static let table = Mutex<[UInt: SourceStateRef]>([:])
    /// Weak, so the directory never keeps a finalized element's state alive.
    private struct SourceStateRef: @unchecked Sendable { // only dereferenced under the table's lock
        weak var state: (any ConfigurableSource)?
    }

    package static func state(of element: Element) -> (any ConfigurableSource)? {
        table.withLock { $0[UInt(bitPattern: element.pointer)]?.state }
    }
    package static func add(_ s: any ConfigurableSource, for element: UnsafeMutableRawPointer) {
        table.withLock { $0[UInt(bitPattern: element)] = SourceStateRef(state: s) }
    }
    package static func remove(_ element: UnsafeMutableRawPointer) {
        table.withLock { _ = $0.removeValue(forKey: UInt(bitPattern: element)) }
    }
}
