import CGStreamer
import CGStreamerShim

/// A raw video frame mapped by GStreamer; valid only during the call that hands it out.
public struct VideoFrameRef: ~Copyable {
    let raw: UnsafeMutablePointer<GstVideoFrame>

    /// GStreamer's name of the format (`I420`, `NV12`, `RGBA`, `BGRx`, …).
    public var formatName: String { String(cString: gst_video_format_to_string(sluice_frame_format(raw))) }
    /// Width in pixels (`GST_VIDEO_FRAME_WIDTH`).
    public var width: Int { Int(sluice_frame_width(raw)) }
    /// Height in pixels (`GST_VIDEO_FRAME_HEIGHT`).
    public var height: Int { Int(sluice_frame_height(raw)) }
    /// The number of planes (`GST_VIDEO_FRAME_N_PLANES`): 1 for packed formats such as `RGBA`,
    /// 2 for `NV12`, 3 for `I420`.
    public var planeCount: Int { Int(sluice_frame_n_planes(raw)) }
    /// First byte of plane `i`.
    public func planeData(_ i: Int) -> UnsafeMutablePointer<UInt8>? { sluice_frame_plane_data(raw, guint(i)) }
    /// Bytes between rows of plane `i`.
    public func planeStride(_ i: Int) -> Int { Int(sluice_frame_plane_stride(raw, guint(i))) }
    /// The frame's buffer presentation timestamp in nanoseconds (`GST_BUFFER_PTS`), nil if unset.
    public var pts: ClockTime? { let t = sluice_frame_pts(raw); return t == ClockTime.none ? nil : t }
    /// The frame's buffer duration in nanoseconds (`GST_BUFFER_DURATION`), nil if unset.
    public var duration: ClockTime? { let t = sluice_frame_duration(raw); return t == ClockTime.none ? nil : t }
}

/// An unretained reference to the element that owns a Swift element state. Valid as long as
/// the state lives: GStreamer destroys the state in the element's finalize.
///
/// `@unchecked Sendable`: the pointer is only used for MT-safe GStreamer calls (posting
/// messages and errors), and the element outlives every call made through the handle.
public struct ElementHandle: @unchecked Sendable {
    package let pointer: UnsafeMutableRawPointer

    /// The element's name.
    public var name: String { Element.objectName(pointer) }

    /// Posts an element error (the pipeline reports it and stops).
    public func postError(_ text: String) { sluice_element_post_error(pointer, text) }

    /// Tells downstream that the data from `pts` for `duration` is missing: a GAP event with
    /// `GST_GAP_FLAG_MISSING_DATA` (1.20+), as a depayloader sends for packets lost for good,
    /// pushed from the element's `src` pad. Call it on the element's streaming thread (from
    /// its processing of a buffer). A video decoder with `automatic-request-sync-points` then
    /// waits for a keyframe and asks upstream for one. Returns whether the event was taken.
    @discardableResult
    public func pushMissingData(pts: ClockTime, duration: ClockTime?) -> Bool {
        guard pts != ClockTime.none,
            let pad = gst_element_get_static_pad(pointer.assumingMemoryBound(to: GstElement.self), "src") // owned: unref'd below
        else { return false }
        defer { gst_object_unref(pad) }
        guard let event = gst_event_new_gap(pts, duration ?? ClockTime.none) else { return false }
        gst_event_set_gap_flags(event, GST_GAP_FLAG_MISSING_DATA)
        return gst_pad_push_event(pad, event) != 0 // takes the event
    }

    /// Posts an element message on the bus carrying a copy of `structure`.
    @discardableResult
    public func postMessage(_ structure: Structure) -> Bool {
        sluice_element_post_structure(pointer, gst_structure_copy(structure.raw)) != 0
    }
}

/// A GObject property a Swift element declares.
public enum PropertySpec: Sendable {
    /// A read-write `gint` property (`g_param_spec_int`) bounded by `min`...`max`.
    case int(name: String, blurb: String, min: Int32, max: Int32, default: Int32)
    /// A read-write `gdouble` property (`g_param_spec_double`) bounded by `min`...`max`.
    case double(name: String, blurb: String, min: Double, max: Double, default: Double)
    /// A read-write `gboolean` property (`g_param_spec_boolean`).
    case bool(name: String, blurb: String, default: Bool)
    /// A read-write string property (`g_param_spec_string`); a nil default is NULL.
    case string(name: String, blurb: String, default: String?)
    /// A GstValueArray of ints (`region=<0,0,320,180>` in gst-launch).
    case intArray(name: String, blurb: String, min: Int32, max: Int32)
    /// A write-only string property (a key, a passphrase): it can be set but not read back,
    /// so graph dumps (`gst_debug_bin_to_dot_data`) never show it.
    case secret(name: String, blurb: String)

    var name: String {
        switch self {
        case .int(let n, _, _, _, _), .double(let n, _, _, _, _), .bool(let n, _, _),
            .string(let n, _, _), .intArray(let n, _, _, _), .secret(let n, _):
            n
        }
    }

    func make() -> UnsafeMutablePointer<GParamSpec> {
        let flags = GParamFlags(rawValue: G_PARAM_READWRITE.rawValue)
        switch self {
        case .int(let n, let b, let lo, let hi, let d): return g_param_spec_int(n, n, b, lo, hi, d, flags)
        case .double(let n, let b, let lo, let hi, let d): return g_param_spec_double(n, n, b, lo, hi, d, flags)
        case .bool(let n, let b, let d): return g_param_spec_boolean(n, n, b, d ? 1 : 0, flags)
        case .string(let n, let b, let d): return g_param_spec_string(n, n, b, d, flags)
        case .intArray(let n, let b, let lo, let hi):
            let element = g_param_spec_int(n, n, b, lo, hi, lo, flags)
            return gst_param_spec_array(n, n, b, element, flags)
        case .secret(let n, let b):
            return g_param_spec_string(n, n, b, nil, GParamFlags(rawValue: G_PARAM_WRITABLE.rawValue))
        }
    }
}

/// A property value GStreamer hands a Swift element state to read (set) or fill (get);
/// valid only during that call.
public struct PropertySlot: ~Copyable {
    let raw: UnsafeMutablePointer<GValue>

    /// The value as an `Int`, read as a `gint` (transformed if the GValue holds a compatible
    /// type), or nil if it cannot be.
    public var int: Int? { Value.read(raw).map { (x: Int32) in Int(x) } }
    /// The value as a `Double`, or nil if the GValue cannot be read as a `gdouble`.
    public var double: Double? { Value.read(raw) }
    /// The value as a `Bool`, or nil if the GValue cannot be read as a `gboolean`.
    public var bool: Bool? { Value.read(raw) }
    /// The value as a `String` (copied), or nil if the GValue holds NULL or cannot be read as a string.
    public var string: String? { Value.read(raw) }
    /// The ints of a GstValueArray value.
    public var ints: [Int]? {
        guard sluice_value_type(raw) == gst_value_array_get_type() else { return nil }
        return (0..<gst_value_array_get_size(raw)).compactMap { i in
            gst_value_array_get_value(raw, i).flatMap { Value.read($0) }.map { (x: Int32) in Int(x) }
        }
    }

    /// Fills a `gint` property's value (`g_value_set_int`), clamped to the `Int32` range.
    public func set(int: Int) { g_value_set_int(raw, Int32(clamping: int)) }
    /// Fills a `gdouble` property's value (`g_value_set_double`).
    public func set(double: Double) { g_value_set_double(raw, double) }
    /// Fills a `gboolean` property's value (`g_value_set_boolean`).
    public func set(bool: Bool) { g_value_set_boolean(raw, bool ? 1 : 0) }
    /// Fills a string property's value (`g_value_set_string`, which copies the string).
    public func set(string: String) { g_value_set_string(raw, string) }
    /// Fills an `intArray` property's value: appends each int, clamped to `Int32`, to the
    /// GstValueArray (`gst_value_array_append_value`).
    public func set(ints: [Int]) { PropertySlot.append(ints, to: raw) }

    static func append(_ ints: [Int], to v: UnsafeMutablePointer<GValue>) {
        for i in ints {
            var item = GValue()
            g_value_init(&item, sluice_type_int())
            g_value_set_int(&item, Int32(clamping: i))
            gst_value_array_append_value(v, &item)
            g_value_unset(&item)
        }
    }
}

extension Value {
    /// A GstValueArray of ints (for array properties such as `region`).
    public static func intArray(_ ints: [Int]) -> Value {
        let v = Value(type: gst_value_array_get_type())
        PropertySlot.append(ints, to: &v.raw)
        return v
    }
}

extension Object {
    /// Sets a property from an owned GValue (converted to the property's type if needed).
    public func set(_ name: String, value: Value) throws(GstError) {
        guard let type = propertyType(name) else { throw GstError("\(typeName) has no property '\(name)'") }
        if value.type == type || g_type_is_a(value.type, type) != 0 {
            g_object_set_property(gobject, name, &value.raw)
            return
        }
        let converted = Value(type: type)
        guard g_value_type_transformable(value.type, type) != 0, g_value_transform(&value.raw, &converted.raw) != 0 else {
            throw GstError("cannot set \(typeName).\(name) (\(Value.typeName(type))) from \(Value.typeName(value.type))")
        }
        g_object_set_property(gobject, name, &converted.raw)
    }
}

/// What a filter state decides about a frame.
public enum VideoFilterResult: Sendable {
    /// `keep` passes the frame on (`GST_FLOW_OK`); `drop` discards it
    /// (`GST_BASE_TRANSFORM_FLOW_DROPPED`) and the stream goes on.
    case keep, drop
    /// Fatal: the element posts an error and the stream stops.
    case error
}

/// The Swift state of one filter element instance. GStreamer calls `process` on a streaming
/// thread, one frame at a time; properties may be set from any thread.
public protocol VideoFilterState: AnyObject {
    /// The negotiated format (GstVideoFilter's `set_info`), called before the first frame and
    /// again when caps change; return false to refuse the format, which fails negotiation.
    func setInfo(formatName: String, width: Int, height: Int) -> Bool
    /// Handles frame `number` (counted from 0 per element) in place, on the streaming thread
    /// (GstVideoFilter's `transform_frame_ip`); `frame` is valid only during the call.
    func process(_ frame: borrowing VideoFrameRef, number: UInt64) -> VideoFilterResult
    /// Sets property `index`, the position of its `PropertySpec` in the `properties` passed to
    /// `registerFilter` (GObject property id `index + 1`); may run on any thread.
    func setProperty(_ index: Int, _ value: borrowing PropertySlot)
    /// Fills `value` with property `index` (same numbering as `setProperty`); may run on any thread.
    func getProperty(_ index: Int, _ value: borrowing PropertySlot)
}

/// The Swift state of one source element instance; `fill` draws frame `number`.
public protocol VideoSourceState: AnyObject {
    /// The negotiated format, which the source then draws every frame in; return false to refuse
    /// it, which fails negotiation.
    func setInfo(formatName: String, width: Int, height: Int) -> Bool
    /// Returns false to end the stream.
    func fill(_ frame: borrowing VideoFrameRef, number: UInt64) -> Bool
}

/// Registers GStreamer element types implemented in Swift: in-place video filters
/// (GstVideoFilter subclasses) and live video sources (GstPushSrc subclasses). Once
/// registered, a factory name works everywhere an element name does, including
/// gst-launch fragments.
public enum SwiftElements {
    /// Registers filter factory `factory`. `caps` lists the raw formats it accepts, e.g.
    /// `video/x-raw, format=(string){ I420, NV12 }`. `make` creates the state of each new
    /// element. Returns false if the name is taken.
    @discardableResult
    public static func registerFilter(
        factory: String, longname: String, description: String, caps: String,
        analysisOnly: Bool, properties: [PropertySpec],
        make: @escaping @Sendable (ElementHandle) -> any VideoFilterState
    ) -> Bool {
        Gst.initialize()
        guard !Registry.hasElement(factory) else { return false }
        let data = UnsafeMutablePointer<SluiceFilterClassData>.allocate(capacity: 1) // lives for the process
        let specs = UnsafeMutablePointer<UnsafeMutablePointer<GParamSpec>?>.allocate(capacity: max(1, properties.count))
        for (i, p) in properties.enumerated() { specs[i] = p.make() }
        let context = Unmanaged.passRetained(FilterRegistration(make)).toOpaque()
        data.initialize(
            to: SluiceFilterClassData(
                vtable: SluiceFilterVTable(
                    create: filterCreate, destroy: filterDestroy, set_info: filterSetInfo,
                    process: filterProcess, set_property: filterSetProperty,
                    get_property: filterGetProperty),
                context: context, longname: strdup(longname), description: strdup(description), caps: strdup(caps),
                analysis_only: analysisOnly ? 1 : 0, n_properties: guint(properties.count), properties: specs))
        return sluice_filter_register(typeName(factory), factory, data) != 0
    }

    /// Registers live source factory `factory` (properties `width`, `height`, `fps`,
    /// `format`; paced by the pipeline clock).
    @discardableResult
    public static func registerSource(
        factory: String, longname: String, description: String, caps: String,
        make: @escaping @Sendable (ElementHandle) -> any VideoSourceState
    ) -> Bool {
        Gst.initialize()
        guard !Registry.hasElement(factory) else { return false }
        let data = UnsafeMutablePointer<SluiceSourceClassData>.allocate(capacity: 1) // lives for the process
        let context = Unmanaged.passRetained(SourceRegistration(make)).toOpaque()
        data.initialize(
            to: SluiceSourceClassData(
                vtable: SluiceSourceVTable(create: sourceCreate, destroy: sourceDestroy, set_info: sourceSetInfo, fill: sourceFill),
                context: context, longname: strdup(longname), description: strdup(description), caps: strdup(caps)))
        return sluice_source_register(typeName(factory), factory, data) != 0
    }

    /// `sluice-pixelate` → `SluiceSwift_sluice_pixelate` (a valid, unique GType name).
    static func typeName(_ factory: String) -> String {
        "SluiceSwift_" + String(factory.map { $0.isLetter || $0.isNumber ? $0 : "_" })
    }
}

// MARK: - Trampolines

private final class FilterRegistration {
    let make: @Sendable (ElementHandle) -> any VideoFilterState
    init(_ make: @escaping @Sendable (ElementHandle) -> any VideoFilterState) { self.make = make }
}

private final class SourceRegistration {
    let make: @Sendable (ElementHandle) -> any VideoSourceState
    init(_ make: @escaping @Sendable (ElementHandle) -> any VideoSourceState) { self.make = make }
}

/// Holds a state behind a concrete class so the per-frame path needs no dynamic cast.
private final class FilterStateBox {
    let state: any VideoFilterState
    init(_ s: any VideoFilterState) { state = s }
}

private final class SourceStateBox {
    let state: any VideoSourceState
    init(_ s: any VideoSourceState) { state = s }
}

private func filterBox(_ p: gpointer?) -> FilterStateBox? {
    p.map { Unmanaged<FilterStateBox>.fromOpaque($0).takeUnretainedValue() }
}

private func sourceBox(_ p: gpointer?) -> SourceStateBox? {
    p.map { Unmanaged<SourceStateBox>.fromOpaque($0).takeUnretainedValue() }
}

private func frameInfo(_ info: UnsafePointer<GstVideoInfo>?) -> (String, Int, Int)? {
    guard let info, let finfo = info.pointee.finfo else { return nil }
    return (String(cString: gst_video_format_to_string(finfo.pointee.format)), Int(info.pointee.width), Int(info.pointee.height))
}

private let filterCreate: @convention(c) (gpointer?, gpointer?) -> gpointer? = { context, element in
    guard let context, let element else { return nil }
    let reg = Unmanaged<FilterRegistration>.fromOpaque(context).takeUnretainedValue()
    return Unmanaged.passRetained(FilterStateBox(reg.make(ElementHandle(pointer: element)))).toOpaque()
}

private let filterDestroy: @convention(c) (gpointer?) -> Void = { state in
    guard let state else { return }
    Unmanaged<FilterStateBox>.fromOpaque(state).release()
}

private let filterSetInfo: @convention(c) (gpointer?, UnsafePointer<GstVideoInfo>?) -> gboolean = { state, info in
    guard let box = filterBox(state), let (format, w, h) = frameInfo(info) else { return 0 }
    return box.state.setInfo(formatName: format, width: w, height: h) ? 1 : 0
}

private let filterProcess: @convention(c) (gpointer?, UnsafeMutablePointer<GstVideoFrame>?, guint64) -> gint = { state, frame, number in
    guard let box = filterBox(state), let frame else { return -1 }
    switch box.state.process(VideoFrameRef(raw: frame), number: UInt64(number)) {
    case .keep: return 0
    case .drop: return 1
    case .error: return -1
    }
}

private let filterSetProperty: @convention(c) (gpointer?, guint, UnsafePointer<GValue>?) -> Void = { state, index, value in
    guard let box = filterBox(state), let value else { return }
    box.state.setProperty(Int(index), PropertySlot(raw: UnsafeMutablePointer(mutating: value)))
}

private let filterGetProperty: @convention(c) (gpointer?, guint, UnsafeMutablePointer<GValue>?) -> Void = { state, index, value in
    guard let box = filterBox(state), let value else { return }
    box.state.getProperty(Int(index), PropertySlot(raw: value))
}

private let sourceCreate: @convention(c) (gpointer?, gpointer?) -> gpointer? = { context, element in
    guard let context, let element else { return nil }
    let reg = Unmanaged<SourceRegistration>.fromOpaque(context).takeUnretainedValue()
    return Unmanaged.passRetained(SourceStateBox(reg.make(ElementHandle(pointer: element)))).toOpaque()
}

private let sourceDestroy: @convention(c) (gpointer?) -> Void = { state in
    guard let state else { return }
    Unmanaged<SourceStateBox>.fromOpaque(state).release()
}

private let sourceSetInfo: @convention(c) (gpointer?, UnsafePointer<GstVideoInfo>?) -> gboolean = { state, info in
    guard let box = sourceBox(state), let (format, w, h) = frameInfo(info) else { return 0 }
    return box.state.setInfo(formatName: format, width: w, height: h) ? 1 : 0
}

private let sourceFill: @convention(c) (gpointer?, UnsafeMutablePointer<GstVideoFrame>?, guint64) -> gboolean = { state, frame, number in
    guard let box = sourceBox(state), let frame else { return 0 }
    return box.state.fill(VideoFrameRef(raw: frame), number: UInt64(number)) ? 1 : 0
}
