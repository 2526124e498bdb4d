import CGStreamer
import CGStreamerShim

/// A borrowed GstBuffer, valid only inside the probe or callback that handed it out.
public struct BufferRef: ~Copyable {
    let raw: UnsafeMutablePointer<GstBuffer>

    /// Presentation timestamp in nanoseconds, nil if unset.
    public var pts: ClockTime? {
        let t = sluice_buffer_pts(raw)
        return t == ClockTime.none ? nil : t
    }
    /// Duration in nanoseconds (`GST_BUFFER_DURATION`), nil if unset (`GST_CLOCK_TIME_NONE`).
    public var duration: ClockTime? {
        let t = sluice_buffer_duration(raw)
        return t == ClockTime.none ? nil : t
    }
    /// Total bytes in the buffer.
    public var size: Int { Int(gst_buffer_get_size(raw)) }

    /// Whether this is not a keyframe (GST_BUFFER_FLAG_DELTA_UNIT).
    public var isDeltaUnit: Bool {
        raw.pointee.mini_object.flags & GST_BUFFER_FLAG_DELTA_UNIT.rawValue != 0
    }

    /// Reads the buffer's bytes.
    public func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R? {
        var info = GstMapInfo()
        guard gst_buffer_map(raw, &info, GST_MAP_READ) != 0 else { return nil }
        defer { gst_buffer_unmap(raw, &info) }
        return try body(UnsafeRawBufferPointer(start: info.data, count: Int(info.size)))
    }
}

/// An owned GstEvent.
///
/// `@unchecked Sendable`: events are immutable once made and mini-object refcounts atomic.
public final class Event: @unchecked Sendable {
    let raw: UnsafeMutablePointer<GstEvent>
    init(full raw: UnsafeMutablePointer<GstEvent>) { self.raw = raw }
    deinit { gst_mini_object_unref(UnsafeMutableRawPointer(raw).assumingMemoryBound(to: GstMiniObject.self)) }

    /// End of stream.
    public static func eos() -> Event { Gst.initialize(); return Event(full: gst_event_new_eos()) }

    /// A flushing, key-unit seek to `position` nanoseconds (time format).
    public static func seek(to position: ClockTime) -> Event {
        Gst.initialize()
        let flags = GstSeekFlags(rawValue: GST_SEEK_FLAG_FLUSH.rawValue | GST_SEEK_FLAG_KEY_UNIT.rawValue)
        return Event(
            full: gst_event_new_seek(
                1.0, GST_FORMAT_TIME, flags, GST_SEEK_TYPE_SET, gint64(position),
                GST_SEEK_TYPE_NONE, -1))
    }

    /// Asks upstream encoders for a keyframe (force-key-unit, all headers). `origin`, if
    /// given, is written into the event's structure as the string field `originField`, so a
    /// probe can tell who asked.
    public static func forceKeyUnit(origin: String? = nil) -> Event {
        Gst.initialize()
        let event = Event(full: gst_video_event_new_upstream_force_key_unit(ClockTime.none, 1, 0))
        if let origin, let s = gst_event_writable_structure(event.raw) { // a new event: writable
            var value = GValue()
            g_value_init(&value, sluice_type_string())
            g_value_set_string(&value, origin)
            gst_structure_set_value(s, Event.originField, &value)
            g_value_unset(&value)
        }
        return event
    }

    /// A caps event announcing `caps` (what the buffers after it are).
    public static func caps(_ caps: Caps) -> Event {
        Gst.initialize()
        return Event(full: gst_event_new_caps(caps.caps))
    }

    /// The structure field `forceKeyUnit(origin:)` writes.
    public static let originField = "origin-tag"

    /// A new reference for an API that takes ownership (transfer full).
    func takeForTransfer() -> UnsafeMutablePointer<GstEvent> {
        _ = gst_mini_object_ref(UnsafeMutableRawPointer(raw).assumingMemoryBound(to: GstMiniObject.self))
        return raw
    }
}

/// An owned reference to a GstBuffer, kept after the probe that saw it returned (a stream's
/// last group of pictures, for instance).
///
/// `@unchecked Sendable`: a GstBuffer's refcount is atomic, and nothing writes to a buffer
/// through this handle. A held buffer is shared (refcount above one), so an element that
/// wants to change it must copy it first (`gst_buffer_make_writable`), as GStreamer requires.
public final class Buffer: @unchecked Sendable {
    let raw: UnsafeMutablePointer<GstBuffer>
    init(full raw: UnsafeMutablePointer<GstBuffer>) { self.raw = raw }
    deinit { gst_mini_object_unref(UnsafeMutableRawPointer(raw).assumingMemoryBound(to: GstMiniObject.self)) }

    /// Total bytes in the buffer.
    public var size: Int { Int(gst_buffer_get_size(raw)) }
    /// Whether this is not a keyframe (GST_BUFFER_FLAG_DELTA_UNIT).
    public var isDeltaUnit: Bool { raw.pointee.mini_object.flags & GST_BUFFER_FLAG_DELTA_UNIT.rawValue != 0 }
    /// The buffer's address: equal to `Pad.ProbeInfo.bufferIdentity` while this very buffer
    /// passes a probe (it cannot be reused while this handle keeps the buffer alive).
    public var identity: UInt { UInt(bitPattern: raw) }

    /// A new reference for an API that takes ownership (transfer full).
    func takeForTransfer() -> UnsafeMutablePointer<GstBuffer> {
        _ = gst_mini_object_ref(UnsafeMutableRawPointer(raw).assumingMemoryBound(to: GstMiniObject.self))
        return raw
    }
}

extension BufferRef {
    /// A new reference to this buffer that outlives the probe (`gst_buffer_ref`).
    public func retained() -> Buffer {
        _ = gst_mini_object_ref(UnsafeMutableRawPointer(raw).assumingMemoryBound(to: GstMiniObject.self))
        return Buffer(full: raw)
    }
}
