import CGStreamer
import CGStreamerShim

/// A GstStructure: a named set of typed fields.
///
/// Either owned (freed with the wrapper) or borrowed from a parent (caps, message, promise
/// reply) that the wrapper keeps alive through `owner`.
///
/// `@unchecked Sendable`: a borrowed structure is read-only (`set` refuses it) and keeps its
/// immutable owner alive; an owned one is only written through `set`, which callers use
/// while building it, before handing it to other threads or to C.
public final class Structure: @unchecked Sendable, CustomStringConvertible {
    let raw: UnsafeMutablePointer<GstStructure>
    private let owned: Bool
    private let owner: AnyObject?

    init(borrowed raw: UnsafeMutablePointer<GstStructure>, owner: AnyObject?) {
        self.raw = raw; self.owned = false; self.owner = owner
    }

    init(owned raw: UnsafeMutablePointer<GstStructure>) {
        self.raw = raw; self.owned = true; self.owner = nil
    }

    /// Parses `name, field=(type)value, …`.
    public init(_ string: String) throws(GstError) {
        Gst.initialize()
        guard let s = gst_structure_from_string(string, nil) else {
            throw GstError("'\(string)' is not a valid structure")
        }
        raw = s; owned = true; owner = nil
    }

    /// An empty structure with a name.
    public init(name: String) {
        Gst.initialize()
        raw = gst_structure_new_empty(name); owned = true; owner = nil
    }

    deinit { if owned { gst_structure_free(raw) } }

    /// The structure's name (`gst_structure_get_name`), e.g. `application/x-rtp-source-stats` or
    /// `GstForceKeyUnit`.
    public var name: String { String(cString: gst_structure_get_name(raw)) }

    /// The structure's string form (`gst_structure_to_string`), `name, field=(type)value, …`; empty
    /// if GStreamer returns none.
    public var description: String {
        guard let s = gst_structure_to_string(raw) else { return "" }
        defer { g_free(s) }
        return String(cString: s)
    }

    /// Field names in order.
    public var fieldNames: [String] {
        (0..<Int(gst_structure_n_fields(raw))).compactMap { i in
            gst_structure_nth_field_name(raw, guint(i)).map { String(cString: $0) }
        }
    }

    /// Whether the structure has a field of this name (`gst_structure_has_field`), whatever its type.
    public func has(_ field: String) -> Bool { gst_structure_has_field(raw, field) != 0 }

    /// A field's raw value, borrowed from the structure.
    package func rawValue(_ field: String) -> UnsafePointer<GValue>? { gst_structure_get_value(raw, field) }

    /// A field converted to `T` (numeric widths are converted), or nil.
    public func get<T: ValueConvertible>(_ field: String, as: T.Type = T.self) -> T? {
        rawValue(field).flatMap { Value.read($0) }
    }

    /// A field holding a nested structure (webrtcbin's stats are structures of structures).
    public func structure(_ field: String) -> Structure? {
        guard let v = rawValue(field), sluice_value_type(v) == sluice_type_structure(),
            let s = g_value_get_boxed(v)
        else { return nil }
        return Structure(borrowed: s.assumingMemoryBound(to: GstStructure.self), owner: self)
    }

    /// The structures in a field holding a GValueArray (rtpsession's TWCC `packets`),
    /// borrowed from this structure.
    public func structures(inValueArray field: String) -> [Structure] {
        guard let v = rawValue(field), sluice_value_type(v) == sluice_type_value_array(), let p = g_value_get_boxed(v) else { return [] }
        let array = p.assumingMemoryBound(to: GValueArray.self).pointee
        guard let values = array.values else { return [] }
        return (0..<Int(array.n_values)).compactMap { i in
            let item = values + i
            guard sluice_value_type(item) == sluice_type_structure(), let s = g_value_get_boxed(item) else { return nil }
            return Structure(borrowed: s.assumingMemoryBound(to: GstStructure.self), owner: self)
        }
    }

    /// A field holding an enum, as its integer value.
    public func enumValue(_ field: String) -> Int32? {
        guard let v = rawValue(field), g_type_is_a(sluice_value_type(v), sluice_type_enum()) != 0 else { return nil }
        return g_value_get_enum(v)
    }

    /// A field's value serialized as text (for any type).
    public func string(describing field: String) -> String? {
        guard let v = rawValue(field), let s = gst_value_serialize(v) else { return nil }
        defer { g_free(s) }
        return String(cString: s)
    }

    /// Sets a field. Only owned structures can be changed: returns false on a borrowed one.
    @discardableResult
    public func set<T: ValueConvertible>(_ field: String, _ value: T) -> Bool {
        guard owned else { return false }
        let v = Value(value)
        gst_structure_set_value(raw, field, &v.raw)
        return true
    }

    /// An owned deep copy.
    public func copy() -> Structure { Structure(owned: gst_structure_copy(raw)) }

    /// A GValue holding a copy of this structure.
    public func asValue() -> Value {
        let v = Value(type: sluice_type_structure())
        g_value_set_boxed(&v.raw, raw)
        return v
    }
}

extension Structure: SignalArgument {}
