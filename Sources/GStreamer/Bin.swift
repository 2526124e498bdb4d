import CGStreamer
import CGStreamerShim

/// A GstBin: a container of elements.
///
/// `@unchecked Sendable` for the reasons given on `Object` (atomic refcounts, MT-safe GstObject).
public class Bin: Element, @unchecked Sendable {
    package override class var staticType: GType { gst_bin_get_type() }
    var bin: UnsafeMutablePointer<GstBin> { pointer.assumingMemoryBound(to: GstBin.self) }

    /// A new empty bin.
    public static func make(name: String? = nil) -> Bin {
        Gst.initialize()
        return Bin(full: UnsafeMutableRawPointer(gst_bin_new(name)))
    }

    /// Parses a gst-launch fragment (`videoflip method=clockwise ! videobalance`) into a bin.
    /// With `ghostUnlinkedPads`, the fragment's first unlinked sink and src pads become the
    /// bin's `sink` and `src` pads, so the bin links like a single element.
    public static func parse(_ description: String, ghostUnlinkedPads: Bool = true) throws(GstError) -> Bin {
        Gst.initialize()
        var error: UnsafeMutablePointer<GError>?
        let raw = gst_parse_bin_from_description(description, ghostUnlinkedPads ? 1 : 0, &error)
        if let error {
            let e = GstError.consume(error, fallback: "cannot parse '\(description)'")
            if let raw { gst_object_unref(raw) }
            throw e
        }
        guard let raw else { throw GstError("cannot parse '\(description)'") }
        return Bin(full: UnsafeMutableRawPointer(raw))
    }

    /// Adds an element; the bin takes its own reference.
    public func add(_ element: Element) throws(GstError) {
        guard gst_bin_add(bin, element.element) != 0 else {
            throw GstError("cannot add \(element) to \(name): the name is taken or it already has a parent")
        }
    }

    /// Adds each element in order (`gst_bin_add` for each); the bin takes its own reference to each.
    /// Throws `GstError` at the first element that cannot be added (its name is taken or it
    /// already has a parent); the elements before it stay added.
    public func add(_ elements: [Element]) throws(GstError) {
        for e in elements { try add(e) }
    }

    /// Removes an element (set it to NULL first).
    public func remove(_ element: Element) throws(GstError) {
        guard gst_bin_remove(bin, element.element) != 0 else {
            throw GstError("cannot remove \(element) from \(name)")
        }
    }

    /// Queries the latency of every sink again and distributes the result
    /// (`gst_bin_recalculate_latency`): the answer to a `latency` bus message, which an
    /// element posts when its own latency changed (a jitter buffer that waits longer).
    @discardableResult
    public func recalculateLatency() -> Bool { gst_bin_recalculate_latency(bin) != 0 }

    /// Finds a direct or nested child by name.
    public func child(named name: String) -> Element? {
        gst_bin_get_by_name(bin, name).map { Element(full: UnsafeMutableRawPointer($0)) }
    }

    /// The direct children of the bin.
    public var children: [Element] {
        withObjectLock {
            var out: [Element] = []
            var list = bin.pointee.children
            while let node = list {
                if let p = node.pointee.data { out.append(Element(none: p)) }
                list = node.pointee.next
            }
            return out
        }
    }

    /// Every element inside the bin, its bins' elements included, depth first (what
    /// `gst_bin_iterate_recurse` visits; e.g. the `rtprtxsend` webrtcbin makes inside its
    /// rtpbin).
    public var descendants: [Element] {
        children.flatMap { child in [child] + (child.cast(to: Bin.self)?.descendants ?? []) }
    }

    /// The bin's graph in Graphviz dot, as GStreamer draws it (`gst_debug_bin_to_dot_data`):
    /// elements, pads, links with their caps, and states.
    public func dot() -> String {
        let details = GstDebugGraphDetails(
            rawValue: GST_DEBUG_GRAPH_SHOW_MEDIA_TYPE.rawValue | GST_DEBUG_GRAPH_SHOW_CAPS_DETAILS.rawValue
                | GST_DEBUG_GRAPH_SHOW_STATES.rawValue)
        guard let text = gst_debug_bin_to_dot_data(bin, details) else { return "" }
        defer { g_free(text) }
        return String(cString: text)
    }
}

/// A GstPipeline: the top-level bin with a clock and a bus.
///
/// `@unchecked Sendable` for the reasons given on `Object` (atomic refcounts, MT-safe GstObject).
public final class Pipeline: Bin, @unchecked Sendable {
    package override class var staticType: GType { gst_pipeline_get_type() }
    /// A new empty pipeline (`gst_pipeline_new`); `name` nil lets GStreamer pick a unique one.
    /// The wrapper adopts and sinks the floating reference the call returns (transfer full).
    public convenience init(name: String? = nil) {
        Gst.initialize()
        self.init(full: UnsafeMutableRawPointer(gst_pipeline_new(name)))
    }

    /// The pipeline's message bus.
    public var bus: Bus {
        Bus(full: UnsafeMutableRawPointer(gst_pipeline_get_bus(pointer.assumingMemoryBound(to: GstPipeline.self))))
    }

    /// The running time: clock time minus base time, in nanoseconds, or nil without a clock.
    public var runningTime: ClockTime? {
        guard let now = clockTime else { return nil }
        let base = baseTime
        return now >= base ? now - base : 0
    }

    /// Writes the graph as Graphviz dot text (what GST_DEBUG_DUMP_DOT_DIR would write).
    public func dotGraph() -> String {
        guard let s = gst_debug_bin_to_dot_data(bin, GST_DEBUG_GRAPH_SHOW_ALL) else { return "" }
        defer { g_free(s) }
        return String(cString: s)
    }
}
