import CGStreamer
import CGStreamerShim

/// A Swift type that can be stored in and read from a GValue.
public protocol ValueConvertible {
    /// The GType a fresh GValue for this Swift type is initialized with.
    static var gType: GType { get }
    /// Stores `self` into an initialized GValue of `gType`.
    func store(in value: UnsafeMutablePointer<GValue>)
    /// Reads a value of this type; returns nil if the GValue holds something else
    /// that GLib cannot transform.
    static func load(from value: UnsafePointer<GValue>) -> Self?
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
    /// `G_TYPE_BOOLEAN`: the GType a `Bool` is stored as.
    public static var gType: GType { sluice_type_boolean() }
    /// Stores the value in `value`, already initialized to `gType` (`g_value_set_boolean`).
    public func store(in value: UnsafeMutablePointer<GValue>) { g_value_set_boolean(value, self ? 1 : 0) }
    /// Reads the value (`g_value_get_boolean`) from a GValue of type `gType`; never nil.
    public static func load(from value: UnsafePointer<GValue>) -> Bool? { g_value_get_boolean(value) != 0 }
}

extension Int32: ValueConvertible {
    /// `G_TYPE_INT` (`gint`): the GType an `Int32` is stored as.
    public static var gType: GType { sluice_type_int() }
    /// Stores the value in `value`, already initialized to `gType` (`g_value_set_int`).
    public func store(in value: UnsafeMutablePointer<GValue>) { g_value_set_int(value, self) }
    /// Reads the value (`g_value_get_int`) from a GValue of type `gType`; never nil.
    public static func load(from value: UnsafePointer<GValue>) -> Int32? { g_value_get_int(value) }
}

extension UInt32: ValueConvertible {
    /// `G_TYPE_UINT` (`guint`): the GType a `UInt32` is stored as.
    public static var gType: GType { sluice_type_uint() }
    /// Stores the value in `value`, already initialized to `gType` (`g_value_set_uint`).
    public func store(in value: UnsafeMutablePointer<GValue>) { g_value_set_uint(value, self) }
    /// Reads the value (`g_value_get_uint`) from a GValue of type `gType`; never nil.
    public static func load(from value: UnsafePointer<GValue>) -> UInt32? { g_value_get_uint(value) }
}

extension Int64: ValueConvertible {
    /// `G_TYPE_INT64`: the GType an `Int64` is stored as.
    public static var gType: GType { sluice_type_int64() }
    /// Stores the value in `value`, already initialized to `gType` (`g_value_set_int64`).
    public func store(in value: UnsafeMutablePointer<GValue>) { g_value_set_int64(value, gint64(self)) }
    /// Reads the value (`g_value_get_int64`) from a GValue of type `gType`; never nil.
    public static func load(from value: UnsafePointer<GValue>) -> Int64? { Int64(g_value_get_int64(value)) }
}

extension UInt64: ValueConvertible {
    /// `G_TYPE_UINT64`: the GType a `UInt64` is stored as.
    public static var gType: GType { sluice_type_uint64() }
    /// Stores the value in `value`, already initialized to `gType` (`g_value_set_uint64`).
    public func store(in value: UnsafeMutablePointer<GValue>) { g_value_set_uint64(value, guint64(self)) }
    /// Reads the value (`g_value_get_uint64`) from a GValue of type `gType`; never nil.
    public static func load(from value: UnsafePointer<GValue>) -> UInt64? { UInt64(g_value_get_uint64(value)) }
}

/// `Int` is stored as a 64-bit GValue and transformed to the property's width on set.
extension Int: ValueConvertible {
    /// `G_TYPE_INT64`: the GType an `Int` is stored as.
    public static var gType: GType { sluice_type_int64() }
    /// Stores the value in `value`, already initialized to `gType` (`g_value_set_int64`).
    public func store(in value: UnsafeMutablePointer<GValue>) { g_value_set_int64(value, gint64(self)) }
    /// Reads the value (`g_value_get_int64`) from a GValue of type `gType`; never nil.
    public static func load(from value: UnsafePointer<GValue>) -> Int? { Int(g_value_get_int64(value)) }
}

extension Double: ValueConvertible {
    /// `G_TYPE_DOUBLE`: the GType a `Double` is stored as.
    public static var gType: GType { sluice_type_double() }
    /// Stores the value in `value`, already initialized to `gType` (`g_value_set_double`).
    public func store(in value: UnsafeMutablePointer<GValue>) { g_value_set_double(value, self) }
    /// Reads the value (`g_value_get_double`) from a GValue of type `gType`; never nil.
    public static func load(from value: UnsafePointer<GValue>) -> Double? { g_value_get_double(value) }
}

extension String: ValueConvertible {
    /// `G_TYPE_STRING`: the GType a `String` is stored as.
    public static var gType: GType { sluice_type_string() }
    /// Stores the value in `value`, already initialized to `gType` (`g_value_set_string`, which
    /// copies the string).
    public func store(in value: UnsafeMutablePointer<GValue>) { g_value_set_string(value, self) }
    /// Reads the string (`g_value_get_string`, copied into Swift); nil if the GValue holds NULL.
    public static func load(from value: UnsafePointer<GValue>) -> String? {
        g_value_get_string(value).map { String(cString: $0) }
    }
}
