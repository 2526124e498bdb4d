import CGStreamer
import CGStreamerShim

/// How a Swift type is kept in a GValue: its GType, and how it is stored and read. Its
/// members are the bindings' own (`package`), so no GLib type shows in the public API, and
/// only the bindings make one: the types that convert are the ones listed below.
public struct ValueKind<T>: Sendable {
    /// The GType a fresh GValue for `T` is initialized with.
    package let gType: @Sendable () -> GType
    /// Stores a `T` into an initialized GValue of `gType`.
    package let store: @Sendable (T, UnsafeMutablePointer<GValue>) -> Void
    /// Reads a `T` from a GValue of `gType`; nil if it holds nothing (a NULL string).
    package let load: @Sendable (UnsafePointer<GValue>) -> T?
}

/// A Swift type that can be stored in and read from a GValue: `Bool`, `Int32`, `UInt32`,
/// `Int64`, `UInt64`, `Int`, `Double` and `String`. Properties, structure fields and signal
/// arguments are read and written as these.
public protocol ValueConvertible {
    /// How this type is kept in a GValue.
    static var valueKind: ValueKind<Self> { get }
}

extension ValueConvertible {
    /// The GType a fresh GValue for this type is initialized with.
    package static var gType: GType { valueKind.gType() }
    /// Stores `self` into an initialized GValue of `gType`.
    package func store(in value: UnsafeMutablePointer<GValue>) { Self.valueKind.store(self, value) }
    /// Reads a value of this type from a GValue of `gType`.
    package static func load(from value: UnsafePointer<GValue>) -> Self? { valueKind.load(value) }
}

/// An owned GValue. Unset (freeing what it holds) when released.
public final class Value {
    var raw = GValue()

    /// An empty GValue of the given type.
    package init(type: GType) {
        g_value_init(&raw, type)
    }

    /// A GValue holding `value`.
    public convenience init<T: ValueConvertible>(_ value: T) {
        self.init(type: T.gType)
        value.store(in: &raw)
    }

    /// A copy of a borrowed GValue.
    package init(copying other: UnsafePointer<GValue>) {
        g_value_init(&raw, sluice_value_type(other))
        g_value_copy(other, &raw)
    }

    /// A GValue holding a NULL-terminated array of strings (`G_TYPE_STRV`), as signals such
    /// as splitmuxsrc's `format-location` return. The array and its strings are GLib's
    /// (`g_strdup`), freed with the value.
    public convenience init(strings: [String]) {
        self.init(type: g_strv_get_type())
        let slots = strings.count + 1
        guard let memory = g_malloc0(gsize(MemoryLayout<UnsafeMutablePointer<gchar>?>.stride * slots)) else { return }
        let array = memory.assumingMemoryBound(to: UnsafeMutablePointer<gchar>?.self)
        for (i, s) in strings.enumerated() { array[i] = g_strdup(s) }
        g_value_take_boxed(&raw, memory)
    }

    /// The strings of a `G_TYPE_STRV` value; nil for a value of another type.
    public var strings: [String]? {
        guard type == g_strv_get_type() else { return nil }
        guard let memory = g_value_get_boxed(&raw) else { return [] }
        let array = memory.assumingMemoryBound(to: UnsafeMutablePointer<gchar>?.self)
        var out: [String] = []
        var i = 0
        while let s = array[i] {
            out.append(String(cString: s))
            i += 1
        }
        return out
    }

    deinit { g_value_unset(&raw) }

    package var type: GType { withUnsafePointer(to: &raw) { sluice_value_type($0) } }

    /// The value as `T`, transforming between compatible types (int ↔ uint, enum → int, …).
    public func get<T: ValueConvertible>(_: T.Type = T.self) -> T? {
        withUnsafePointer(to: &raw) { Value.read($0) }
    }

    /// Reads `T` from a borrowed GValue, transforming if the types differ.
    package static func read<T: ValueConvertible>(_ value: UnsafePointer<GValue>) -> T? {
        let from = sluice_value_type(value)
        if from == T.gType || g_type_is_a(from, T.gType) != 0 { return T.load(from: value) }
        guard g_value_type_transformable(from, T.gType) != 0 else { return nil }
        var tmp = GValue()
        g_value_init(&tmp, T.gType)
        defer { g_value_unset(&tmp) }
        guard g_value_transform(value, &tmp) != 0 else { return nil }
        return withUnsafePointer(to: &tmp) { T.load(from: $0) }
    }

    /// The object this value holds, if it holds one (borrowing a new reference).
    public var objectValue: Object? {
        guard g_type_is_a(type, sluice_type_object()) != 0, let p = g_value_get_object(&raw) else { return nil }
        return Object(none: p)
    }

    /// GStreamer's serialization of the value (as gst-launch would write it).
    public var serialized: String? {
        withUnsafePointer(to: &raw) { ptr in
            guard let s = gst_value_serialize(ptr) else { return nil }
            defer { g_free(s) }
            return String(cString: s)
        }
    }

    /// Parses `string` into a GValue of `type` the way gst-launch parses property values.
    package static func deserialize(_ string: String, as type: GType) -> Value? {
        let v = Value(type: type)
        return gst_value_deserialize(&v.raw, string) != 0 ? v : nil
    }

    /// Human name of a GType (`gint`, `GstVideoFlipMethod`).
    package static func typeName(_ type: GType) -> String {
        g_type_name(type).map { String(cString: $0) } ?? "unknown"
    }
}

extension Bool: ValueConvertible {
    /// Kept as `G_TYPE_BOOLEAN`.
    public static let valueKind = ValueKind<Bool>(
        gType: { sluice_type_boolean() }, store: { g_value_set_boolean($1, $0 ? 1 : 0) }, load: { g_value_get_boolean($0) != 0 })
}

extension Int32: ValueConvertible {
    /// Kept as `G_TYPE_INT` (`gint`).
    public static let valueKind = ValueKind<Int32>(
        gType: { sluice_type_int() }, store: { g_value_set_int($1, $0) }, load: { g_value_get_int($0) })
}

extension UInt32: ValueConvertible {
    /// Kept as `G_TYPE_UINT` (`guint`).
    public static let valueKind = ValueKind<UInt32>(
        gType: { sluice_type_uint() }, store: { g_value_set_uint($1, $0) }, load: { g_value_get_uint($0) })
}

extension Int64: ValueConvertible {
    /// Kept as `G_TYPE_INT64`.
    public static let valueKind = ValueKind<Int64>(
        gType: { sluice_type_int64() }, store: { g_value_set_int64($1, gint64($0)) }, load: { Int64(g_value_get_int64($0)) })
}

extension UInt64: ValueConvertible {
    /// Kept as `G_TYPE_UINT64`.
    public static let valueKind = ValueKind<UInt64>(
        gType: { sluice_type_uint64() }, store: { g_value_set_uint64($1, guint64($0)) }, load: { UInt64(g_value_get_uint64($0)) })
}

/// `Int` is stored as a 64-bit GValue and transformed to the property's width on set.
extension Int: ValueConvertible {
    /// Kept as `G_TYPE_INT64`.
    public static let valueKind = ValueKind<Int>(
        gType: { sluice_type_int64() }, store: { g_value_set_int64($1, gint64($0)) }, load: { Int(g_value_get_int64($0)) })
}

extension Double: ValueConvertible {
    /// Kept as `G_TYPE_DOUBLE`.
    public static let valueKind = ValueKind<Double>(
        gType: { sluice_type_double() }, store: { g_value_set_double($1, $0) }, load: { g_value_get_double($0) })
}

extension String: ValueConvertible {
    /// Kept as `G_TYPE_STRING` (`g_value_set_string` copies the string; a NULL string reads as nil).
    public static let valueKind = ValueKind<String>(
        gType: { sluice_type_string() }, store: { g_value_set_string($1, $0) },
        load: { g_value_get_string($0).map { String(cString: $0) } })
}
