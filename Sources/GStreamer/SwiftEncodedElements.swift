import CGStreamer
import CGStreamerShim

/// One encoded frame passing an encoded-frame filter element, writable: valid only during the
/// `process` call that hands it out.
public struct EncodedBufferRef: ~Copyable {
    let raw: UnsafeMutablePointer<GstBuffer>

    /// Presentation timestamp in nanoseconds, nil if unset.
    public var pts: ClockTime? { raw.pointee.pts == ClockTime.none ? nil : raw.pointee.pts }
    /// Decoding timestamp in nanoseconds, nil if unset.
    public var dts: ClockTime? { raw.pointee.dts == ClockTime.none ? nil : raw.pointee.dts }
    /// Duration in nanoseconds, nil if unset.
    public var duration: ClockTime? { raw.pointee.duration == ClockTime.none ? nil : raw.pointee.duration }
    /// Total bytes in the frame.
    public var size: Int { Int(gst_buffer_get_size(raw)) }
    /// Whether this is not a keyframe (GST_BUFFER_FLAG_DELTA_UNIT).
    public var isDeltaUnit: Bool { raw.pointee.mini_object.flags & GST_BUFFER_FLAG_DELTA_UNIT.rawValue != 0 }

    /// Reads the frame's bytes.
    public func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R? {
        var info = GstMapInfo()
        guard gst_buffer_map(raw, &info, GST_MAP_READ) != 0 else { return nil }
        defer { gst_buffer_unmap(raw, &info) }
        return try body(UnsafeRawBufferPointer(start: info.data, count: Int(info.size)))
    }

    /// Replaces the frame's bytes with `count` new ones that `fill` writes (the timestamps and
    /// flags stay). Returns false if no memory could be had.
    @discardableResult
    public func replaceBytes(count: Int, _ fill: (UnsafeMutableRawBufferPointer) -> Void) -> Bool {
        guard let memory = gst_allocator_alloc(nil, gsize(count), nil) else { return false }
        var info = GstMapInfo()
        guard gst_memory_map(memory, &info, GST_MAP_WRITE) != 0 else {
            gst_mini_object_unref(UnsafeMutableRawPointer(memory).assumingMemoryBound(to: GstMiniObject.self))
            return false
        }
        fill(UnsafeMutableRawBufferPointer(start: info.data, count: count))
        gst_memory_unmap(memory, &info)
        gst_buffer_replace_memory_range(raw, 0, -1, memory) // takes the memory
        return true
    }
}

/// The Swift state of one encoded-frame filter element instance. GStreamer calls `process`
/// on a streaming thread, one frame at a time; properties may be set from any thread.
public protocol EncodedFilterState: AnyObject {
    /// The negotiated caps' media type (`video/x-vp8`, `video/x-h264`, `audio/x-opus`, …),
    /// before the first frame and again when caps change; return false to refuse it.
    func setCaps(mediaType: String) -> Bool
    /// Handles frame `number` (counted from 0 per element); `frame` is writable and valid
    /// only during the call.
    func process(_ frame: borrowing EncodedBufferRef, number: UInt64) -> VideoFilterResult
    /// Sets property `index` (its position in the `properties` passed at registration).
    func setProperty(_ index: Int, _ value: borrowing PropertySlot)
    /// Fills `value` with property `index`.
    func getProperty(_ index: Int, _ value: borrowing PropertySlot)
}

extension SwiftElements {
    /// Registers encoded-frame filter factory `factory`: an in-place GstBaseTransform with
    /// ANY caps on both pads, which sits between an encoder (or parser) and a payloader, or
    /// between a depayloader and a decoder. Returns false if the name is taken.
    @discardableResult
    public static func registerEncodedFilter(
        factory: String, longname: String, description: String, properties: [PropertySpec],
        make: @escaping @Sendable (ElementHandle) -> any EncodedFilterState
    ) -> Bool {
        Gst.initialize()
        guard !Registry.hasElement(factory) else { return false }
        let data = UnsafeMutablePointer<SluiceEncodedFilterClassData>.allocate(capacity: 1) // lives for the process
        let specs = UnsafeMutablePointer<UnsafeMutablePointer<GParamSpec>?>.allocate(capacity: max(1, properties.count))
        for (i, p) in properties.enumerated() { specs[i] = p.make() }
        let context = Unmanaged.passRetained(EncodedFilterRegistration(make)).toOpaque()
        data.initialize(
            to: SluiceEncodedFilterClassData(
                vtable: SluiceEncodedFilterVTable(
                    create: encodedCreate, destroy: encodedDestroy, set_caps: encodedSetCaps, process: encodedProcess,
                    set_property: encodedSetProperty, get_property: encodedGetProperty),
                context: context, longname: strdup(longname), description: strdup(description),
                n_properties: guint(properties.count), properties: specs))
        return sluice_encoded_filter_register(typeName(factory), factory, data) != 0
    }
}

// MARK: - Trampolines

private final class EncodedFilterRegistration {
    let make: @Sendable (ElementHandle) -> any EncodedFilterState
    init(_ make: @escaping @Sendable (ElementHandle) -> any EncodedFilterState) { self.make = make }
}

/// Holds a state behind a concrete class so the per-frame path needs no dynamic cast.
private final class EncodedStateBox {
    let state: any EncodedFilterState
    init(_ s: any EncodedFilterState) { state = s }
}

private func encodedBox(_ p: gpointer?) -> EncodedStateBox? {
    p.map { Unmanaged<EncodedStateBox>.fromOpaque($0).takeUnretainedValue() }
}

private let encodedCreate: @convention(c) (gpointer?, gpointer?) -> gpointer? = { context, element in
    guard let context, let element else { return nil }
    let reg = Unmanaged<EncodedFilterRegistration>.fromOpaque(context).takeUnretainedValue()
    return Unmanaged.passRetained(EncodedStateBox(reg.make(ElementHandle(pointer: element)))).toOpaque()
}

private let encodedDestroy: @convention(c) (gpointer?) -> Void = { state in
    guard let state else { return }
    Unmanaged<EncodedStateBox>.fromOpaque(state).release()
}

private let encodedSetCaps: @convention(c) (gpointer?, UnsafeMutablePointer<GstCaps>?) -> gboolean = { state, caps in
    guard let box = encodedBox(state), let caps, gst_caps_get_size(caps) > 0, let s = gst_caps_get_structure(caps, 0),
        let name = gst_structure_get_name(s)
    else { return 0 }
    return box.state.setCaps(mediaType: String(cString: name)) ? 1 : 0
}

private let encodedProcess: @convention(c) (gpointer?, UnsafeMutablePointer<GstBuffer>?, guint64) -> gint = { state, buffer, number in
    guard let box = encodedBox(state), let buffer else { return -1 }
    switch box.state.process(EncodedBufferRef(raw: buffer), number: UInt64(number)) {
    case .keep: return 0
    case .drop: return 1
    case .error: return -1
    }
}

private let encodedSetProperty: @convention(c) (gpointer?, guint, UnsafePointer<GValue>?) -> Void = { state, index, value in
    guard let box = encodedBox(state), let value else { return }
    box.state.setProperty(Int(index), PropertySlot(raw: UnsafeMutablePointer(mutating: value)))
}

private let encodedGetProperty: @convention(c) (gpointer?, guint, UnsafeMutablePointer<GValue>?) -> Void = { state, index, value in
    guard let box = encodedBox(state), let value else { return }
    box.state.getProperty(Int(index), PropertySlot(raw: value))
}
