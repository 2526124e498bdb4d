import CGStreamer
import CGStreamerShim

extension Pad.ProbeKind {
    /// Queries travelling downstream (`GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM`), such as the caps
    /// query a payloader negotiates with. The handler sees each query twice: before it is
    /// answered and after (`ProbeInfo.queryAnswered`).
    public static let queryDownstream = Pad.ProbeKind(rawValue: GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM.rawValue)
    /// Queries travelling upstream (`GST_PAD_PROBE_TYPE_QUERY_UPSTREAM`), such as webrtcbin
    /// asking what its input can send; seen twice like `queryDownstream`.
    public static let queryUpstream = Pad.ProbeKind(rawValue: GST_PAD_PROBE_TYPE_QUERY_UPSTREAM.rawValue)
}

/// Reading and changing what passes a probe: queries, events and RTP packets. Everything here
/// acts on the data of the probe call it is made in, and only there.
extension Pad.ProbeInfo {
    /// The kinds of query a probe tells apart.
    public enum QueryKind: Sendable { case caps, acceptCaps, other }

    private var rawQuery: UnsafeMutablePointer<GstQuery>? {
        guard info.pointee.type.rawValue & GST_PAD_PROBE_TYPE_QUERY_BOTH.rawValue != 0 else { return nil }
        return info.pointee.data?.assumingMemoryBound(to: GstQuery.self)
    }

    /// The kind of query passing, if this is a query probe.
    public var query: QueryKind? {
        guard let q = rawQuery else { return nil }
        switch q.pointee.type {
        case GST_QUERY_CAPS: return .caps
        case GST_QUERY_ACCEPT_CAPS: return .acceptCaps
        default: return .other
        }
    }

    /// Whether the passing query has been answered: the probe's second call for it
    /// (`GST_PAD_PROBE_TYPE_PULL`), where its result can be read and changed.
    public var queryAnswered: Bool { info.pointee.type.rawValue & GST_PAD_PROBE_TYPE_PULL.rawValue != 0 }

    /// Whether the passing query travels downstream (asked by the element upstream of the
    /// pad's peer link), not upstream.
    public var queryTravelsDownstream: Bool {
        info.pointee.type.rawValue & GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM.rawValue != 0
    }

    /// A caps query's filter (the formats the asker can take), if it has one.
    public var capsQueryFilter: Caps? {
        guard let q = rawQuery, q.pointee.type == GST_QUERY_CAPS else { return nil }
        var filter: UnsafeMutablePointer<GstCaps>?
        gst_query_parse_caps(q, &filter)
        return filter.map { Caps(none: $0) }
    }

    /// A caps query's answer so far (after it was answered, or what a handler set).
    public var capsQueryResult: Caps? {
        guard let q = rawQuery, q.pointee.type == GST_QUERY_CAPS else { return nil }
        var result: UnsafeMutablePointer<GstCaps>?
        gst_query_parse_caps_result(q, &result)
        return result.map { Caps(none: $0) }
    }

    /// Sets a caps query's answer: before it is answered (then return `.handled`), or to
    /// change the answer after. Does nothing to a query the asker shares (not writable).
    public func setCapsQueryResult(_ caps: Caps) {
        guard let q = rawQuery, q.pointee.type == GST_QUERY_CAPS, isWritable(q) else { return }
        gst_query_set_caps_result(q, caps.caps)
    }

    /// The caps an accept-caps query asks about.
    public var acceptCapsQueryCaps: Caps? {
        guard let q = rawQuery, q.pointee.type == GST_QUERY_ACCEPT_CAPS else { return nil }
        var caps: UnsafeMutablePointer<GstCaps>?
        gst_query_parse_accept_caps(q, &caps)
        return caps.map { Caps(none: $0) }
    }

    /// Answers an accept-caps query (then return `.handled`).
    public func setAcceptCapsQueryResult(_ accepted: Bool) {
        guard let q = rawQuery, q.pointee.type == GST_QUERY_ACCEPT_CAPS, isWritable(q) else { return }
        gst_query_set_accept_caps_result(q, accepted ? 1 : 0)
    }

    private func isWritable(_ q: UnsafeMutablePointer<GstQuery>) -> Bool {
        gst_mini_object_is_writable(UnsafeMutableRawPointer(q).assumingMemoryBound(to: GstMiniObject.self)) != 0
    }

    /// The caps a passing caps event announces.
    public var eventCaps: Caps? {
        guard let e = rawEvent, e.pointee.type == GST_EVENT_CAPS else { return nil }
        var caps: UnsafeMutablePointer<GstCaps>?
        gst_event_parse_caps(e, &caps)
        return caps.map { Caps(none: $0) }
    }

    /// Puts `event` in the passing event's place (the handler returns `.ok` for it to go on);
    /// the probe's reference to the old one is dropped.
    public func replaceEvent(with event: Event) {
        guard let old = rawEvent else { return }
        info.pointee.data = UnsafeMutableRawPointer(event.takeForTransfer())
        gst_mini_object_unref(UnsafeMutableRawPointer(old).assumingMemoryBound(to: GstMiniObject.self))
    }

    /// Puts a new buffer holding `bytes` in the passing buffer's place, with its timestamps,
    /// duration and flags (a payload substituted, such as silence for a muted stretch); the
    /// probe's reference to the old one is dropped. Does nothing unless a buffer passes.
    public func replaceBuffer(withBytes bytes: UnsafeRawBufferPointer) {
        guard let old = rawBuffer, let new = gst_buffer_new_allocate(nil, gsize(bytes.count), nil) else { return }
        if let base = bytes.baseAddress { _ = gst_buffer_fill(new, 0, base, gsize(bytes.count)) }
        let metadata = GstBufferCopyFlags(rawValue: GST_BUFFER_COPY_FLAGS.rawValue | GST_BUFFER_COPY_TIMESTAMPS.rawValue)
        _ = gst_buffer_copy_into(new, old, metadata, 0, gsize.max)
        info.pointee.data = UnsafeMutableRawPointer(new)
        gst_mini_object_unref(UnsafeMutableRawPointer(old).assumingMemoryBound(to: GstMiniObject.self))
    }

    /// Sets the RTP payload type (`gst_rtp_buffer_set_payload_type`) of the passing buffer, or
    /// of every buffer of a passing list, each made writable first (a copy only where it is
    /// shared). False if one was not an RTP packet (it passes unchanged).
    @discardableResult
    public func setRTPPayloadType(_ payloadType: UInt8) -> Bool {
        let type = info.pointee.type.rawValue
        if type & GST_PAD_PROBE_TYPE_BUFFER.rawValue != 0, let buffer = rawBuffer {
            let writable = Self.makeWritable(buffer, as: GstBuffer.self)
            info.pointee.data = UnsafeMutableRawPointer(writable)
            return Self.setPayloadType(payloadType, of: writable)
        }
        guard type & GST_PAD_PROBE_TYPE_BUFFER_LIST.rawValue != 0, let list = gst_pad_probe_info_get_buffer_list(info) else {
            return false
        }
        // GstBufferList is opaque to Swift: made writable through its mini-object header.
        let made = gst_mini_object_make_writable(UnsafeMutableRawPointer(list).assumingMemoryBound(to: GstMiniObject.self))
        let writable = OpaquePointer(made!)
        info.pointee.data = UnsafeMutableRawPointer(made)
        var all = true
        for i in 0..<gst_buffer_list_length(writable) {
            guard let buffer = gst_buffer_list_get_writable(writable, i) else { continue }
            all = Self.setPayloadType(payloadType, of: buffer) && all
        }
        return all
    }

    /// `gst_mini_object_make_writable`: the same object when only the caller holds it, else a
    /// copy (the caller's reference moves to the result either way).
    private static func makeWritable<T>(_ object: UnsafeMutablePointer<T>, as: T.Type) -> UnsafeMutablePointer<T> {
        let raw = gst_mini_object_make_writable(UnsafeMutableRawPointer(object).assumingMemoryBound(to: GstMiniObject.self))
        return UnsafeMutableRawPointer(raw!).assumingMemoryBound(to: T.self)
    }

    private static func setPayloadType(_ payloadType: UInt8, of buffer: UnsafeMutablePointer<GstBuffer>) -> Bool {
        var rtp = GstRTPBuffer()
        guard gst_rtp_buffer_map(buffer, GstMapFlags(rawValue: GST_MAP_READ.rawValue | GST_MAP_WRITE.rawValue), &rtp) != 0 else {
            return false
        }
        gst_rtp_buffer_set_payload_type(&rtp, payloadType)
        gst_rtp_buffer_unmap(&rtp)
        return true
    }
}
