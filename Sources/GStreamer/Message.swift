import Foundation
import Synchronization
import CGStreamer
import CGStreamerShim

/// A bus message, owned.
///
/// `@unchecked Sendable`: messages are immutable once posted and refcounts are atomic.
public final class Message: @unchecked Sendable, CustomStringConvertible {
    let raw: UnsafeMutablePointer<GstMessage>
    init(full raw: UnsafeMutablePointer<GstMessage>) { self.raw = raw }
    deinit { gst_mini_object_unref(UnsafeMutableRawPointer(raw).assumingMemoryBound(to: GstMiniObject.self)) }

    /// The message's type (`GstMessageType`), for the types the bindings tell apart; anything else
    /// is `other` with the raw C value.
    public enum Kind: Sendable, Equatable {
        /// `GST_MESSAGE_EOS` (end of stream reached the sinks), `_ERROR`, `_WARNING`, `_INFO` (read
        /// them with `parsedError`), `_STATE_CHANGED` (read with `stateChange`), `_ELEMENT` (an
        /// element's own message, in `structure`), `_STREAM_START` and `_LATENCY` (an element's
        /// latency changed: answer with `Bin.recalculateLatency()`).
        case eos, error, warning, info, stateChanged, element, streamStart, latency
        /// `GST_MESSAGE_ASYNC_DONE` (an async state change finished), `_NEW_CLOCK`, `_QOS`,
        /// `_APPLICATION` (posted with `postApplication(from:_:)`), and `other` carrying the raw
        /// `GstMessageType` of any other type.
        case asyncDone, newClock, qos, application, other(UInt32)

        /// The `GstMessageType` of this kind.
        package var rawType: GstMessageType {
            switch self {
            case .eos: GST_MESSAGE_EOS
            case .error: GST_MESSAGE_ERROR
            case .warning: GST_MESSAGE_WARNING
            case .info: GST_MESSAGE_INFO
            case .stateChanged: GST_MESSAGE_STATE_CHANGED
            case .element: GST_MESSAGE_ELEMENT
            case .streamStart: GST_MESSAGE_STREAM_START
            case .latency: GST_MESSAGE_LATENCY
            case .asyncDone: GST_MESSAGE_ASYNC_DONE
            case .newClock: GST_MESSAGE_NEW_CLOCK
            case .qos: GST_MESSAGE_QOS
            case .application: GST_MESSAGE_APPLICATION
            case .other(let raw): GstMessageType(rawValue: Int32(bitPattern: raw))
            }
        }
    }

    /// The message's type, read from `GST_MESSAGE_TYPE`. (`Kind.rawType` goes the other way.)
    public var kind: Kind {
        switch raw.pointee.type {
        case GST_MESSAGE_EOS: .eos
        case GST_MESSAGE_ERROR: .error
        case GST_MESSAGE_WARNING: .warning
        case GST_MESSAGE_INFO: .info
        case GST_MESSAGE_STATE_CHANGED: .stateChanged
        case GST_MESSAGE_ELEMENT: .element
        case GST_MESSAGE_STREAM_START: .streamStart
        case GST_MESSAGE_LATENCY: .latency
        case GST_MESSAGE_ASYNC_DONE: .asyncDone
        case GST_MESSAGE_NEW_CLOCK: .newClock
        case GST_MESSAGE_QOS: .qos
        case GST_MESSAGE_APPLICATION: .application
        default: .other(UInt32(bitPattern: raw.pointee.type.rawValue))
        }
    }

    /// The kinds' `GstMessageType` flags, or-ed: a mask for `gst_bus_timed_pop_filtered`.
    package static func mask(of kinds: [Kind]) -> GstMessageType {
        GstMessageType(rawValue: kinds.reduce(0) { $0 | $1.rawType.rawValue })
    }

    /// Name of the object that posted the message.
    public var sourceName: String {
        guard let src = raw.pointee.src, let s = gst_object_get_name(src) else { return "" }
        defer { g_free(s) }
        return String(cString: s)
    }

    /// The names of the object that posted the message and of the bins it is in, innermost
    /// first (`souphttpsrc0`, `source-0`, `sluice`): which element of a bin it came from.
    public var sourceLineage: [String] {
        guard let src = raw.pointee.src else { return [] }
        var names: [String] = []
        var current: UnsafeMutablePointer<GstObject>? = UnsafeMutablePointer(mutating: src)
        _ = gst_object_ref(current)
        while let object = current {
            if let s = gst_object_get_name(object) {
                names.append(String(cString: s))
                g_free(s)
            }
            current = gst_object_get_parent(object) // transfer full, or nil at the top
            gst_object_unref(object)
        }
        return names
    }

    /// The object that posted the message, borrowed.
    public var source: Object? {
        raw.pointee.src.map { Object(none: UnsafeMutableRawPointer($0)) }
    }

    /// The message's structure (element and application messages carry one).
    public var structure: Structure? {
        gst_message_get_structure(raw).map { Structure(borrowed: UnsafeMutablePointer(mutating: $0), owner: self) }
    }

    /// For errors, warnings and infos: the message and the debug detail.
    public var parsedError: (message: String, debug: String?)? {
        var err: UnsafeMutablePointer<GError>?
        var dbg: UnsafeMutablePointer<gchar>?
        switch raw.pointee.type {
        case GST_MESSAGE_ERROR: gst_message_parse_error(raw, &err, &dbg)
        case GST_MESSAGE_WARNING: gst_message_parse_warning(raw, &err, &dbg)
        case GST_MESSAGE_INFO: gst_message_parse_info(raw, &err, &dbg)
        default: return nil
        }
        defer { if let err { g_error_free(err) }; if let dbg { g_free(dbg) } }
        let m = err?.pointee.message.map { String(cString: $0) } ?? "unknown error"
        return (m, dbg.map { String(cString: $0) })
    }

    /// For state-changed messages: old, new and pending states.
    public var stateChange: (old: State, new: State, pending: State)? {
        guard raw.pointee.type == GST_MESSAGE_STATE_CHANGED else { return nil }
        var o = GST_STATE_VOID_PENDING, n = GST_STATE_VOID_PENDING, p = GST_STATE_VOID_PENDING
        gst_message_parse_state_changed(raw, &o, &n, &p)
        func s(_ x: GstState) -> State { State(rawValue: Int32(bitPattern: x.rawValue)) ?? .voidPending }
        return (s(o), s(n), s(p))
    }

    /// The type's name (`gst_message_type_get_name`) and the poster's name, e.g.
    /// `eos from pipeline0`, for logs.
    public var description: String {
        let t = String(cString: gst_message_type_get_name(raw.pointee.type))
        return "\(t) from \(sourceName)"
    }

    /// Posts an application message with `structure` (copied) from `source`.
    public static func postApplication(from source: Element, _ structure: Structure) -> Bool {
        let msg = gst_message_new_application(
            source.pointer.assumingMemoryBound(to: GstObject.self),
            gst_structure_copy(structure.raw))
        return gst_element_post_message(source.element, msg) != 0
    }
}

/// A GstBus.
///
/// `@unchecked Sendable` for the reasons given on `Object` (atomic refcounts, MT-safe GstObject).
public final class Bus: Object, @unchecked Sendable {
    var bus: UnsafeMutablePointer<GstBus> { pointer.assumingMemoryBound(to: GstBus.self) }

    /// Waits up to `timeout` nanoseconds for the next message (any type).
    public func pop(timeout: ClockTime) -> Message? {
        gst_bus_timed_pop(bus, timeout).map { Message(full: $0) }
    }

    /// Waits up to `timeout` nanoseconds for the next message of one of `kinds`; messages of
    /// other kinds that come first are dropped (in C: they never become Swift objects).
    public func pop(timeout: ClockTime, of kinds: [Message.Kind]) -> Message? {
        gst_bus_timed_pop_filtered(bus, timeout, Message.mask(of: kinds)).map { Message(full: $0) }
    }

    /// Drops all pending messages.
    public func flush() {
        while let m = gst_bus_pop(bus) {
            gst_mini_object_unref(UnsafeMutableRawPointer(m).assumingMemoryBound(to: GstMiniObject.self))
        }
    }

    /// Messages as an async stream, read on a dedicated thread until the stream's consumer
    /// stops iterating (or the task is cancelled). Only one consumer per bus.
    ///
    /// With `kinds`, only messages of those kinds; the others are dropped as they are read,
    /// without waking the consumer. A running WebRTC pipeline posts dozens a second that
    /// hardly anyone reads: its transport's funnel forwards stream-start again each time it
    /// switches between RTP and RTCP, and the sink behind it posts a message each time.
    public func messages(of kinds: [Message.Kind]? = nil) -> AsyncStream<Message> {
        let bus = self
        return AsyncStream { continuation in
            let stop = BusReadStop()
            continuation.onTermination = { _ in stop.flag.store(true, ordering: .releasing) }
            let thread = Thread {
                while !stop.flag.load(ordering: .acquiring) {
                    let m = kinds.map { bus.pop(timeout: 100_000_000, of: $0) } ?? bus.pop(timeout: 100_000_000)
                    if let m { continuation.yield(m) }
                }
                continuation.finish()
            }
            thread.name = "sluice-bus"
            thread.start()
        }
    }
}

extension Bus {
    /// Hands each message of `kinds` to `handler` on a thread of its own, as soon as it is
    /// read, until the returned watch is stopped; messages of other kinds are dropped in C.
    /// Unlike `messages(of:)` nothing hops through Swift concurrency: a measured pipeline
    /// posts a message per frame, and each hop wakes a pool thread. Keep `handler` short.
    public func watch(_ kinds: [Message.Kind], _ handler: @escaping @Sendable (Message) -> Void) -> BusWatch {
        let watch = BusWatch()
        let bus = self
        let thread = Thread {
            while !watch.stopped.load(ordering: .acquiring) {
                if let m = bus.pop(timeout: 100_000_000, of: kinds) { handler(m) }
            }
        }
        thread.name = "sluice-bus"
        thread.start()
        return watch
    }

    /// Hands every message to `handler` on the thread that posts it, and then drops it, so
    /// nothing queues on the bus.
    ///
    /// A bus nobody pops keeps every message, and each message holds a reference to the
    /// element that posted it: a long-lived pipeline whose elements come and go (a served
    /// stream's viewers) would keep every removed element alive, with its sockets and
    /// threads. Keep `handler` short; it runs on streaming threads.
    public func handleSynchronously(_ handler: @escaping @Sendable (Message) -> Void) {
        let box = Unmanaged.passRetained(BusHandlerBox(handler)).toOpaque()
        gst_bus_set_sync_handler(bus, busSyncTrampoline, box, busHandlerDestroy)
    }
}

private final class BusHandlerBox: Sendable {
    let handler: @Sendable (Message) -> Void
    init(_ h: @escaping @Sendable (Message) -> Void) { handler = h }
}

private let busSyncTrampoline: GstBusSyncHandler = { _, message, data in
    guard let message, let data else { return GST_BUS_DROP }
    // GstBusSyncHandler: a handler that returns DROP owns the message and must unref it;
    // the wrapper adopts it and unrefs it when the handler is done with it.
    let box = Unmanaged<BusHandlerBox>.fromOpaque(data).takeUnretainedValue()
    box.handler(Message(full: message))
    return GST_BUS_DROP
}

private let busHandlerDestroy: GDestroyNotify = { data in
    guard let data else { return }
    Unmanaged<BusHandlerBox>.fromOpaque(data).release()
}

/// Set when the consumer of `Bus.messages()` stops iterating; the reading thread then ends.
private final class BusReadStop: Sendable {
    let flag = Atomic<Bool>(false)
}

/// A running `Bus.watch(_:_:)`: `stop()` ends its thread within 0.1 s (the handler is not
/// called after the message it is handling, if any).
public final class BusWatch: Sendable {
    fileprivate let stopped = Atomic<Bool>(false)
    fileprivate init() {}
    /// Stops reading; safe to call more than once.
    public func stop() { stopped.store(true, ordering: .releasing) }
}
