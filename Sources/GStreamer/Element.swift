import CGStreamer
import CGStreamerShim

/// A GStreamer state (`GstState`).
public enum State: Int32, Sendable, CustomStringConvertible {
    /// The `GstState` values: `voidPending` (`GST_STATE_VOID_PENDING`, no state pending), `null`
    /// (resources released), `ready` (resources allocated, no data flowing), `paused` (prerolled,
    /// clock stopped) and `playing` (data flowing, clock running). Raw values are the C ones.
    case voidPending = 0, null = 1, ready = 2, paused = 3, playing = 4
    /// The C name without its prefix (`PLAYING`, `VOID_PENDING`), as `gst-launch` prints it.
    public var description: String {
        switch self {
        case .voidPending: "VOID_PENDING"
        case .null: "NULL"
        case .ready: "READY"
        case .paused: "PAUSED"
        case .playing: "PLAYING"
        }
    }
    var raw: GstState { GstState(rawValue: UInt32(bitPattern: rawValue)) }
}

/// The result of a state change (`GstStateChangeReturn`).
public enum StateChangeResult: Sendable, Equatable {
    /// The `GstStateChangeReturn` values: `success` (`GST_STATE_CHANGE_SUCCESS`, done), `async`
    /// (`GST_STATE_CHANGE_ASYNC`, finishing in the background: wait with `waitForState(timeout:)`
    /// or for the `asyncDone` message), `noPreroll` (`GST_STATE_CHANGE_NO_PREROLL`, a live source
    /// that cannot preroll in PAUSED) and `failure` (`GST_STATE_CHANGE_FAILURE`).
    case success, async, noPreroll, failure
    init(_ r: GstStateChangeReturn) {
        switch r {
        case GST_STATE_CHANGE_SUCCESS: self = .success
        case GST_STATE_CHANGE_ASYNC: self = .async
        case GST_STATE_CHANGE_NO_PREROLL: self = .noPreroll
        default: self = .failure
        }
    }
}

/// A GstElement.
///
/// `@unchecked Sendable` for the reasons given on `Object` (atomic refcounts, MT-safe GstObject).
public class Element: Object, @unchecked Sendable {
    package override class var staticType: GType { sluice_type_element() }

    var element: UnsafeMutablePointer<GstElement> { pointer.assumingMemoryBound(to: GstElement.self) }

    /// Creates an element from a factory name (`vp8enc`), optionally naming it.
    public static func make(_ factory: String, name: String? = nil) throws(GstError) -> Element {
        Gst.initialize()
        guard let raw = gst_element_factory_make(factory, name) else {
            throw GstError("no GStreamer element named '\(factory)' is installed")
        }
        return Element(full: UnsafeMutableRawPointer(raw))
    }

    /// The name of any GstObject pointer (element, factory, pad).
    static func objectName(_ p: UnsafeMutableRawPointer) -> String {
        guard let s = gst_object_get_name(p.assumingMemoryBound(to: GstObject.self)) else { return "" }
        defer { g_free(s) }
        return String(cString: s)
    }

    /// The element's name (unique within its bin).
    public var name: String {
        guard let s = gst_object_get_name(pointer.assumingMemoryBound(to: GstObject.self)) else { return "" }
        defer { g_free(s) }
        return String(cString: s)
    }

    /// The name of the factory that made this element (`vp8enc`), if known.
    public var factoryName: String? {
        guard let f = gst_element_get_factory(element) else { return nil }
        guard let s = gst_object_get_name(UnsafeMutableRawPointer(f).assumingMemoryBound(to: GstObject.self)) else { return nil }
        defer { g_free(s) }
        return String(cString: s)
    }

    /// Links this element's src to `other`'s sink, optionally through a caps filter.
    public func link(_ other: Element, filter: Caps? = nil) throws(GstError) {
        let ok = filter.map { gst_element_link_filtered(element, other.element, $0.caps) } ?? gst_element_link(element, other.element)
        guard ok != 0 else {
            throw GstError(
                "cannot link \(factoryName ?? name) to \(other.factoryName ?? other.name)"
                    + (filter.map { " with caps \($0)" } ?? "") + ": their formats do not match")
        }
    }

    /// Links a chain of elements in order.
    public static func link(_ chain: [Element]) throws(GstError) {
        guard chain.count > 1 else { return }
        for i in 0..<(chain.count - 1) { try chain[i].link(chain[i + 1]) }
    }

    /// Unlinks this element's src pads from `other`'s sink pads (`gst_element_unlink`); nothing
    /// happens if they are not linked.
    public func unlink(_ other: Element) { gst_element_unlink(element, other.element) }

    /// Asks the element to change to `state` (`gst_element_set_state`) and returns at once with
    /// what happened; an `async` result means the change goes on in a streaming thread.
    @discardableResult
    public func setState(_ state: State) -> StateChangeResult {
        StateChangeResult(gst_element_set_state(element, state.raw))
    }

    /// The current state, waiting at most `timeout` nanoseconds for a pending change.
    public func currentState(timeout: ClockTime = 0) -> State {
        var cur = GST_STATE_VOID_PENDING, pending = GST_STATE_VOID_PENDING
        gst_element_get_state(element, &cur, &pending, timeout)
        return State(rawValue: Int32(bitPattern: cur.rawValue)) ?? .voidPending
    }

    /// Runs `body` holding the element's state lock (`GST_STATE_LOCK`), the recursive lock
    /// `gst_element_set_state` holds for a whole change. Another thread's change of this
    /// element's state then either finished before `body` or starts after it, never in between;
    /// `body` itself may change the state. Keep `body` short: state changes of this element wait.
    public func withStateLock<T>(_ body: () throws -> T) rethrows -> T {
        let lock = sluice_element_state_lock(element)
        g_rec_mutex_lock(lock)
        defer { g_rec_mutex_unlock(lock) }
        return try body()
    }

    /// Makes the element follow its parent's state (after adding it to a running bin).
    @discardableResult
    public func syncStateWithParent() -> Bool { gst_element_sync_state_with_parent(element) != 0 }

    /// The always-present pad called `name` (`gst_element_get_static_pad`, e.g. `sink` or `src`),
    /// or nil if the element has no such pad (request and sometimes pads are not found here). The
    /// wrapper adopts the reference the call returns (transfer full).
    public func staticPad(_ name: String) -> Pad? {
        gst_element_get_static_pad(element, name).map { Pad(full: UnsafeMutableRawPointer($0)) }
    }

    /// Requests a pad from a template such as `sink_%u`.
    public func requestPad(_ template: String) -> Pad? {
        gst_element_request_pad_simple(element, template).map { Pad(full: UnsafeMutableRawPointer($0)) }
    }

    /// Gives back a pad got from `requestPad(_:)` (`gst_element_release_request_pad`); the element
    /// drops the pad, and this wrapper's own reference keeps the `Pad` object alive until it goes.
    public func releaseRequestPad(_ pad: Pad) { gst_element_release_request_pad(element, pad.pad) }

    /// All pads of the element at this moment (read under the object lock, so a streaming
    /// thread removing a pad cannot free it under us).
    public var pads: [Pad] {
        withObjectLock {
            var out: [Pad] = []
            var list = element.pointee.pads
            while let node = list {
                if let p = node.pointee.data { out.append(Pad(none: p)) }
                list = node.pointee.next
            }
            return out
        }
    }

    /// Runs `body` holding GST_OBJECT_LOCK. Keep it short and do not call back into GStreamer.
    func withObjectLock<T>(_ body: () -> T) -> T {
        let lock = UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: GstObject.self)
        withUnsafeMutablePointer(to: &lock.pointee.lock) { g_mutex_lock($0) }
        defer { withUnsafeMutablePointer(to: &lock.pointee.lock) { g_mutex_unlock($0) } }
        return body()
    }

    /// Sends an event to the element (e.g. EOS to a source).
    @discardableResult
    public func sendEvent(_ event: Event) -> Bool {
        gst_element_send_event(element, event.takeForTransfer()) != 0
    }

    /// The bin or pipeline this element is in.
    public var parent: Element? {
        guard let p = gst_object_get_parent(pointer.assumingMemoryBound(to: GstObject.self)) else { return nil }
        return Element(full: UnsafeMutableRawPointer(p))
    }

    /// The clock's base time of the element (for measuring against running time).
    public var baseTime: ClockTime { gst_element_get_base_time(element) }

    /// The element's current clock, if it has one.
    public var clockTime: ClockTime? {
        guard let clock = gst_element_get_clock(element) else { return nil }
        defer { gst_object_unref(clock) }
        return gst_clock_get_time(clock)
    }

    /// The factory name (or GType name when there is none) and the element name, e.g.
    /// `vp8enc 'vp8enc0'`, for logs and error messages.
    public override var description: String { "\(factoryName ?? typeName) '\(name)'" }
}

// MARK: Playback position

extension Element {
    /// Where the element (a pipeline, usually) is in its stream, in nanoseconds; nil if it cannot say.
    public func queryPosition() -> ClockTime? {
        var position: gint64 = -1
        guard gst_element_query_position(element, GST_FORMAT_TIME, &position) != 0, position >= 0 else { return nil }
        return ClockTime(position)
    }

    /// How long its stream is, in nanoseconds; nil if unknown (live, not prerolled yet).
    public func queryDuration() -> ClockTime? {
        var duration: gint64 = -1
        guard gst_element_query_duration(element, GST_FORMAT_TIME, &duration) != 0, duration >= 0 else { return nil }
        return ClockTime(duration)
    }

    /// Seeks to `position` nanoseconds, flushing and landing on a keyframe (`gst_element_seek_simple`).
    /// Returns false if the element refused (not seekable, not prerolled).
    @discardableResult
    public func seek(to position: ClockTime) -> Bool {
        let flags = GstSeekFlags(rawValue: GST_SEEK_FLAG_FLUSH.rawValue | GST_SEEK_FLAG_KEY_UNIT.rawValue)
        return gst_element_seek_simple(element, GST_FORMAT_TIME, flags, gint64(clamping: position)) != 0
    }
}

extension Element {
    /// Waits up to `timeout` seconds for a pending state change to finish
    /// (`gst_element_get_state`); returns the state reached, or nil if it failed or timed out.
    public func waitForState(timeout: Double) -> State? {
        var current = GST_STATE_VOID_PENDING, pending = GST_STATE_VOID_PENDING
        let r = gst_element_get_state(element, &current, &pending, GstClockTime(max(0, timeout) * 1e9))
        guard r == GST_STATE_CHANGE_SUCCESS || r == GST_STATE_CHANGE_NO_PREROLL else { return nil }
        return State(rawValue: Int32(bitPattern: current.rawValue))
    }
}

extension Element {
    /// Whether the element's stream can seek in time (`GST_QUERY_SEEKING`): an HTTP server
    /// without range requests, or a live source, cannot.
    public func isSeekable() -> Bool {
        guard let query = gst_query_new_seeking(GST_FORMAT_TIME) else { return false }
        defer { gst_query_unref(query) }
        guard gst_element_query(element, query) != 0 else { return false }
        var seekable: gboolean = 0
        gst_query_parse_seeking(query, nil, &seekable, nil, nil)
        return seekable != 0
    }
}
