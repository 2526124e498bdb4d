import CGStreamer
import CGStreamerShim

/// A GstPad.
///
/// `@unchecked Sendable` for the reasons given on `Object` (atomic refcounts, MT-safe GstObject).
public final class Pad: Object, @unchecked Sendable {
    package override class var staticType: GType { sluice_type_pad() }
    var pad: UnsafeMutablePointer<GstPad> { pointer.assumingMemoryBound(to: GstPad.self) }

    /// Which way data flows through a pad (`GstPadDirection`): out of its element (`src`), into it
    /// (`sink`), or `unknown` (`GST_PAD_UNKNOWN`).
    public enum Direction: Sendable { case unknown, src, sink }

    /// The pad's name (`gst_object_get_name`), e.g. `sink`, `src_0`; empty if it has none.
    public var name: String {
        guard let s = gst_object_get_name(pointer.assumingMemoryBound(to: GstObject.self)) else { return "" }
        defer { g_free(s) }
        return String(cString: s)
    }

    /// The pad's direction (`gst_pad_get_direction`).
    public var direction: Direction {
        switch gst_pad_get_direction(pad) {
        case GST_PAD_SRC: .src
        case GST_PAD_SINK: .sink
        default: .unknown
        }
    }

    /// The element the pad belongs to.
    public var parentElement: Element? {
        gst_pad_get_parent_element(pad).map { Element(full: UnsafeMutableRawPointer($0)) }
    }

    /// Whether the pad has a peer now (`gst_pad_is_linked`).
    public var isLinked: Bool { gst_pad_is_linked(pad) != 0 }

    /// Activates or deactivates the pad. Deactivating sets it flushing, which releases a
    /// streaming thread held in one of its blocking probes, without the element's state lock.
    @discardableResult
    public func setActive(_ active: Bool) -> Bool { gst_pad_set_active(pad, active ? 1 : 0) != 0 }

    /// The pad this one is linked to (`gst_pad_get_peer`), or nil if it is not linked. The wrapper
    /// adopts the reference the call returns (transfer full).
    public var peer: Pad? { gst_pad_get_peer(pad).map { Pad(full: UnsafeMutableRawPointer($0)) } }

    /// The sticky events this pad holds (stream-start, caps, segment, tags…), in the order
    /// they are sent downstream (`gst_pad_sticky_events_foreach`); each wrapper holds its own
    /// reference.
    public var stickyEvents: [Event] {
        final class Found { var events: [Event] = [] }
        let found = Found()
        withExtendedLifetime(found) {
            gst_pad_sticky_events_foreach(
                pad,
                { _, event, context in
                    guard let event = event?.pointee, let context else { return 1 }
                    gst_mini_object_ref(UnsafeMutableRawPointer(event).assumingMemoryBound(to: GstMiniObject.self))
                    Unmanaged<Found>.fromOpaque(context).takeUnretainedValue().events.append(Event(full: event))
                    return 1
                }, Unmanaged.passUnretained(found).toOpaque())
        }
        return found.events
    }

    /// Whether this pad holds a sticky event of `event`'s type (`gst_pad_get_sticky_event`).
    public func hasStickyEvent(like event: Event) -> Bool {
        guard let held = gst_pad_get_sticky_event(pad, event.raw.pointee.type, 0) else { return false }
        gst_mini_object_unref(UnsafeMutableRawPointer(held).assumingMemoryBound(to: GstMiniObject.self))
        return true
    }

    /// The running time of `timestamp` in the time segment this pad last carried (its sticky
    /// segment event, `gst_segment_to_running_time`); nil before a segment, or when
    /// `timestamp` lies outside it. From a buffer probe on the pad, this is the running time
    /// of the buffer passing.
    public func runningTime(of timestamp: ClockTime) -> ClockTime? { Self.runningTime(on: pad, of: timestamp) }

    fileprivate static func runningTime(on pad: UnsafeMutablePointer<GstPad>, of timestamp: ClockTime) -> ClockTime? {
        guard let event = gst_pad_get_sticky_event(pad, GST_EVENT_SEGMENT, 0) else { return nil }
        defer { gst_mini_object_unref(UnsafeMutableRawPointer(event).assumingMemoryBound(to: GstMiniObject.self)) }
        var segment: UnsafePointer<GstSegment>?
        gst_event_parse_segment(event, &segment)
        guard let segment, segment.pointee.format == GST_FORMAT_TIME else { return nil }
        let time = gst_segment_to_running_time(segment, GST_FORMAT_TIME, timestamp)
        return time == ClockTime.none ? nil : time
    }

    /// The negotiated caps, once there are some.
    public var currentCaps: Caps? { gst_pad_get_current_caps(pad).map { Caps(full: $0) } }

    /// What the pad could accept or produce now.
    public func queryCaps(filter: Caps? = nil) -> Caps? {
        gst_pad_query_caps(pad, filter?.caps).map { Caps(full: $0) }
    }

    /// Links this src pad to a sink pad.
    public func link(_ sink: Pad) throws(GstError) {
        let r = gst_pad_link(pad, sink.pad)
        guard r == GST_PAD_LINK_OK else {
            let why = String(cString: gst_pad_link_get_name(r))
            throw GstError("cannot link pad \(name) to \(sink.name): \(why)")
        }
    }

    /// Unlinks this src pad from `sink` (`gst_pad_unlink`); false if they were not linked to each
    /// other.
    @discardableResult
    public func unlink(_ sink: Pad) -> Bool { gst_pad_unlink(pad, sink.pad) != 0 }

    /// Sends an event into the pad (downstream events into a sink pad).
    @discardableResult
    public func sendEvent(_ event: Event) -> Bool { gst_pad_send_event(pad, event.takeForTransfer()) != 0 }

    /// Pushes an event to the pad's peer (upstream events such as seeks from a sink pad).
    @discardableResult
    public func pushEvent(_ event: Event) -> Bool { gst_pad_push_event(pad, event.takeForTransfer()) != 0 }

    /// Hands `buffer` to this sink pad as its peer's push would (`gst_pad_chain`, with a new
    /// reference): its probes run, then its element's chain function. Call it on the
    /// streaming thread that feeds this pad, e.g. from a probe on it (probes then run again
    /// for this buffer).
    @discardableResult
    public func chain(_ buffer: Buffer) -> FlowReturn { FlowReturn(raw: gst_pad_chain(pad, buffer.takeForTransfer()).rawValue) }

    /// Runs `body` holding the pad's stream lock (`GST_PAD_STREAM_LOCK`, recursive): the lock a
    /// sink pad's chain holds while its probes and its element's chain function run. Data
    /// pushed into this pad from any other thread waits until `body` returns, so `body` can
    /// `chain` several buffers in a row that nothing else interleaves with. Keep it short:
    /// the streaming thread that feeds the pad waits.
    public func withStreamLock<T>(_ body: () throws -> T) rethrows -> T {
        let lock = sluice_pad_stream_lock(pad)
        g_rec_mutex_lock(lock)
        defer { g_rec_mutex_unlock(lock) }
        return try body()
    }

    /// The running-time offset applied to data passing this pad, in nanoseconds.
    public var offset: Int64 {
        get { Int64(gst_pad_get_offset(pad)) }
        set { gst_pad_set_offset(pad, gint64(newValue)) }
    }

    // MARK: Probes

    /// What a buffer probe sees.
    ///
    /// A handler must not capture its own `Pad` wrapper: the pad owns the handler, so that
    /// would be a reference cycle. Use `currentCaps` here instead.
    public struct ProbeInfo: ~Copyable {
        let pad: UnsafeMutablePointer<GstPad>
        let info: UnsafeMutablePointer<GstPadProbeInfo>

        /// The passing buffer, only if a buffer passes (the info's data is a buffer, an event
        /// or a query, told apart by its type: a probe can watch several).
        var rawBuffer: UnsafeMutablePointer<GstBuffer>? {
            info.pointee.type.rawValue & GST_PAD_PROBE_TYPE_BUFFER.rawValue != 0 ? sluice_pad_probe_info_buffer(info) : nil
        }
        /// The passing event, only if an event passes.
        var rawEvent: UnsafeMutablePointer<GstEvent>? {
            info.pointee.type.rawValue & GST_PAD_PROBE_TYPE_EVENT_BOTH.rawValue != 0 ? sluice_pad_probe_info_event(info) : nil
        }
        /// The probed pad's negotiated caps.
        public var currentCaps: Caps? { gst_pad_get_current_caps(pad).map { Caps(full: $0) } }
        /// The probed pad, as a new reference: for work after the handler returns (never to
        /// keep in the handler itself, which the pad owns).
        public var padReference: Pad { Pad(none: UnsafeMutableRawPointer(pad)) }
        /// The running time of the passing buffer's timestamp in the probed pad's segment
        /// (`Pad.runningTime(of:)`); nil without a buffer, a timestamp or a time segment.
        public var bufferRunningTime: ClockTime? {
            guard let raw = rawBuffer else { return nil }
            let pts = raw.pointee.pts
            return pts == ClockTime.none ? nil : Pad.runningTime(on: pad, of: pts)
        }
        /// The buffer passing, if this is a buffer probe.
        public var buffer: BufferRef? {
            rawBuffer.map { BufferRef(raw: $0) }
        }
        /// Calls `body` with the passing buffer, or with each buffer of a passing list
        /// (a probe watching `[.buffer, .bufferList]`), in order.
        public func forEachBuffer(_ body: (borrowing BufferRef) -> Void) {
            if let buffer = rawBuffer {
                body(BufferRef(raw: buffer))
            } else if info.pointee.type.rawValue & GST_PAD_PROBE_TYPE_BUFFER_LIST.rawValue != 0,
                let list = gst_pad_probe_info_get_buffer_list(info)
            {
                for i in 0..<gst_buffer_list_length(list) {
                    if let buffer = gst_buffer_list_get(list, i) { body(BufferRef(raw: buffer)) }
                }
            }
        }
        /// The passing buffer's address: it tells buffers apart while they are alive (a
        /// freed buffer's address can be reused, so never keep it past the buffer's trip).
        public var bufferIdentity: UInt? {
            rawBuffer.map { UInt(bitPattern: $0) }
        }
        /// Whether the passing event is sticky (stream-start, caps, segment, tags, EOS: a pad
        /// keeps them and hands them to every new peer).
        public var eventIsSticky: Bool {
            guard let e = rawEvent else { return false }
            return e.pointee.type.rawValue & GST_EVENT_TYPE_STICKY.rawValue != 0
        }
        /// The passing event's type as GStreamer names it (`stream-start`, `caps`, `segment`,
        /// `eos`; `gst_event_type_get_name`).
        public var eventTypeName: String? {
            rawEvent.map { String(cString: gst_event_type_get_name($0.pointee.type)) }
        }
        /// The name of the passing event's structure (`GstForceKeyUnit`, `RTPTWCCPackets`), read
        /// in place: check it before taking the copy `eventStructure` makes.
        public var eventName: String? {
            guard let e = rawEvent, let s = gst_event_get_structure(e) else { return nil }
            return String(cString: gst_structure_get_name(s))
        }
        /// A copy of the passing event's structure (custom events carry their data there;
        /// e.g. rtpsession's upstream `RTPTWCCPackets`), if it has one.
        public var eventStructure: Structure? {
            guard let e = rawEvent, let s = gst_event_get_structure(e) else { return nil }
            return Structure(owned: gst_structure_copy(s))
        }
        /// The kind of event passing, if this is an event probe.
        public var event: EventKind? {
            guard let e = rawEvent else { return nil }
            switch e.pointee.type {
            case GST_EVENT_EOS: return .eos
            case GST_EVENT_CAPS: return .caps
            case GST_EVENT_SEGMENT: return .segment
            case GST_EVENT_FLUSH_START: return .flushStart
            case GST_EVENT_FLUSH_STOP: return .flushStop
            case GST_EVENT_RECONFIGURE: return .reconfigure
            default: return .other
            }
        }
    }

    /// Event kinds probes distinguish (`reconfigure` travels upstream: downstream asks to
    /// negotiate again).
    public enum EventKind: Sendable { case eos, caps, segment, flushStart, flushStop, reconfigure, other }

    /// What a probe watches.
    public struct ProbeKind: OptionSet, Sendable {
        /// The `GstPadProbeType` bits.
        public let rawValue: UInt32
        /// A set from raw `GstPadProbeType` bits.
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        /// Buffers (`GST_PAD_PROBE_TYPE_BUFFER`).
        public static let buffer = ProbeKind(rawValue: GST_PAD_PROBE_TYPE_BUFFER.rawValue)
        /// Buffer lists (payloaders and SRTP may push packets as lists).
        public static let bufferList = ProbeKind(rawValue: GST_PAD_PROBE_TYPE_BUFFER_LIST.rawValue)
        /// Events travelling downstream, e.g. caps, segment, EOS (`GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM`).
        public static let eventDownstream = ProbeKind(rawValue: GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM.rawValue)
        /// Events travelling upstream, e.g. force-key-unit, seeks (`GST_PAD_PROBE_TYPE_EVENT_UPSTREAM`).
        public static let eventUpstream = ProbeKind(rawValue: GST_PAD_PROBE_TYPE_EVENT_UPSTREAM.rawValue)
        /// Blocks the data the probe sees until the handler returns `remove` or the probe is removed
        /// (`GST_PAD_PROBE_TYPE_BLOCK`); combine with the kinds to block on.
        public static let block = ProbeKind(rawValue: GST_PAD_PROBE_TYPE_BLOCK.rawValue)
        /// Called once the pad is not pushing; data waits while the handler runs.
        public static let idle = ProbeKind(rawValue: GST_PAD_PROBE_TYPE_IDLE.rawValue)
    }

    /// What a probe handler tells GStreamer (`GstPadProbeReturn`): `ok` lets the data pass (and
    /// keeps a blocking probe blocking), `drop` discards it, `remove` lets it pass and removes the
    /// probe, `pass` lets it pass without unblocking a blocking probe.
    /// `handled` (queries only) says the handler answered the query itself: it goes no
    /// further and the asker gets true (`GST_PAD_PROBE_HANDLED`).
    public enum ProbeReturn: Sendable { case ok, drop, remove, pass, handled }

    /// Calls `handler` for each buffer (or event, per `mask`) that passes the pad, on the
    /// streaming thread. Keep it short: it runs in the media path.
    @discardableResult
    public func addProbe(
        _ kind: ProbeKind = .buffer,
        _ handler: @escaping @Sendable (borrowing ProbeInfo) -> ProbeReturn
    ) -> UInt {
        let box = Unmanaged.passRetained(ProbeBox(handler)).toOpaque()
        let id = gst_pad_add_probe(pad, GstPadProbeType(rawValue: kind.rawValue), probeTrampoline, box, probeDestroy)
        return UInt(id)
    }

    /// Removes a probe by the id `addProbe` returned (`gst_pad_remove_probe`); the handler is
    /// released once GStreamer drops the probe.
    public func removeProbe(_ id: UInt) { gst_pad_remove_probe(pad, gulong(id)) }
}

private final class ProbeBox {
    let handler: @Sendable (borrowing Pad.ProbeInfo) -> Pad.ProbeReturn
    init(_ h: @escaping @Sendable (borrowing Pad.ProbeInfo) -> Pad.ProbeReturn) { handler = h }
}

private let probeTrampoline: GstPadProbeCallback = { pad, info, data in
    guard let pad, let info, let data else { return GST_PAD_PROBE_OK }
    let box = Unmanaged<ProbeBox>.fromOpaque(data).takeUnretainedValue()
    switch box.handler(Pad.ProbeInfo(pad: pad, info: info)) {
    case .ok: return GST_PAD_PROBE_OK
    case .drop: return GST_PAD_PROBE_DROP
    case .remove: return GST_PAD_PROBE_REMOVE
    case .pass: return GST_PAD_PROBE_PASS
    case .handled: return GST_PAD_PROBE_HANDLED
    }
}

private let probeDestroy: GDestroyNotify = { data in
    guard let data else { return }
    Unmanaged<ProbeBox>.fromOpaque(data).release()
}
