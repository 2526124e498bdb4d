import CGStreamer
import CGStreamerShim

/// A reference to a GObject. Holds exactly one strong reference, released on deinit.
///
/// Ownership is explicit at construction: `init(full:)` adopts a reference the caller
/// already owns (sinking a floating one, as gstreamer-rs' `from_glib_full` does), and
/// `init(none:)` borrows, taking a new reference.
///
/// `@unchecked Sendable`: GObject reference counting is atomic, and every GStreamer object
/// this wrapper exposes (elements, pads, buses) guards its own state with the object lock,
/// which is what lets GStreamer call them from its streaming threads. The Swift wrapper
/// itself holds only the immutable pointer.
public class Object: @unchecked Sendable, Hashable, CustomStringConvertible {
    /// The GObject pointer (never null while the wrapper lives).
    package let pointer: UnsafeMutableRawPointer

    /// Adopts a reference the caller owns (transfer full); a floating reference is sunk.
    package required init(full pointer: UnsafeMutableRawPointer) {
        Gst.initialize()
        self.pointer = pointer
        if g_object_is_floating(pointer) != 0 { g_object_ref_sink(pointer) }
    }

    /// Takes a new reference to an object owned by someone else (transfer none).
    package required init(none pointer: UnsafeMutableRawPointer) {
        Gst.initialize()
        self.pointer = pointer
        g_object_ref(pointer)
    }

    deinit { g_object_unref(pointer) }

    var gobject: UnsafeMutablePointer<GObject> { pointer.assumingMemoryBound(to: GObject.self) }

    /// The GType name of the object, e.g. `GstWebRTCBin`.
    public var typeName: String { String(cString: sluice_object_type_name(pointer)) }

    /// The object's GType.
    package var gType: GType {
        pointer.assumingMemoryBound(to: GTypeInstance.self).pointee.g_class!.pointee.g_type
    }

    /// The current reference count (diagnostics and leak tests only).
    public var refCount: UInt32 { gobject.pointee.ref_count }

    /// Identity: whether both wrappers hold the same GObject pointer (two wrappers of one
    /// object are equal).
    public static func == (a: Object, b: Object) -> Bool { a.pointer == b.pointer }
    /// Hashes the GObject pointer, consistent with `==`.
    public func hash(into h: inout Hasher) { h.combine(pointer) }
    /// The GType name and the pointer, e.g. `GstPipeline@0x…`, for logs.
    public var description: String { "\(typeName)@\(pointer)" }

    /// The GType every instance of this wrapper class must have (or derive from).
    package class var staticType: GType { sluice_type_object() }

    /// This object as wrapper `T` if its GType is `T.staticType` or derives from it.
    public func cast<T: Object>(to: T.Type) -> T? {
        g_type_is_a(gType, T.staticType) != 0 ? T(none: pointer) : nil
    }

    /// Wraps a borrowed pointer as `T`, checking its type first.
    package static func wrap<T: Object>(none pointer: UnsafeMutableRawPointer?, as: T.Type) -> T? {
        guard let pointer else { return nil }
        let type = pointer.assumingMemoryBound(to: GTypeInstance.self).pointee.g_class!.pointee.g_type
        return g_type_is_a(type, T.staticType) != 0 ? T(none: pointer) : nil
    }

    // MARK: Properties

    private func paramSpec(_ name: String) -> UnsafeMutablePointer<GParamSpec>? {
        let cls = pointer.assumingMemoryBound(to: GTypeInstance.self).pointee.g_class!
        return g_object_class_find_property(UnsafeMutableRawPointer(cls).assumingMemoryBound(to: GObjectClass.self), name)
    }

    /// Whether the object has a property of this name.
    public func hasProperty(_ name: String) -> Bool { paramSpec(name) != nil }

    /// The GType of a property's values, or nil if there is no such property.
    package func propertyType(_ name: String) -> GType? {
        paramSpec(name).map { sluice_param_spec_value_type($0) }
    }

    /// Names of all properties that can be written.
    public var writablePropertyNames: [String] {
        let cls = pointer.assumingMemoryBound(to: GTypeInstance.self).pointee.g_class!
        var n: guint = 0
        guard
            let specs = g_object_class_list_properties(
                UnsafeMutableRawPointer(cls).assumingMemoryBound(to: GObjectClass.self), &n)
        else { return [] }
        defer { g_free(specs) }
        return (0..<Int(n)).compactMap { i in
            guard let spec = specs[i], spec.pointee.flags.rawValue & G_PARAM_WRITABLE.rawValue != 0 else { return nil }
            return String(cString: spec.pointee.name)
        }
    }

    /// Sets a property from a typed Swift value, converting to the property's own type
    /// (an `Int` sets a `guint` property, for instance).
    public func set<T: ValueConvertible>(_ name: String, _ value: T) throws(GstError) {
        guard let spec = paramSpec(name) else { throw GstError("\(typeName) has no property '\(name)'") }
        let target = sluice_param_spec_value_type(spec)
        let source = Value(value)
        if source.type == target || g_type_is_a(source.type, target) != 0 {
            g_object_set_property(gobject, name, &source.raw)
            return
        }
        let converted = Value(type: target)
        guard g_value_type_transformable(source.type, target) != 0,
            g_value_transform(&source.raw, &converted.raw) != 0
        else {
            throw GstError("cannot set \(typeName).\(name) (\(Value.typeName(target))) from \(T.self)")
        }
        g_object_set_property(gobject, name, &converted.raw)
    }

    /// Sets an object-valued property (splitmuxsink's `muxer` and `sink`). The object keeps
    /// its own reference: the property holder takes one of its own (`g_object_set_property`).
    public func set(_ name: String, object: Object) throws(GstError) {
        guard let spec = paramSpec(name) else { throw GstError("\(typeName) has no property '\(name)'") }
        let target = sluice_param_spec_value_type(spec)
        guard g_type_is_a(object.gType, target) != 0 else {
            throw GstError("cannot set \(typeName).\(name) (\(Value.typeName(target))) to a \(object.typeName)")
        }
        let value = object.asValue()
        g_object_set_property(gobject, name, &value.raw)
    }

    /// Sets a property from its string form, parsed as gst-launch parses it
    /// (`method=horizontal-flip`, `caps="video/x-raw"`, `bitrate=2000`).
    public func set(_ name: String, fromString string: String) throws(GstError) {
        guard let spec = paramSpec(name) else { throw GstError("\(typeName) has no property '\(name)'") }
        let type = sluice_param_spec_value_type(spec)
        guard let value = Value.deserialize(string, as: type) else {
            throw GstError("'\(string)' is not a valid value for \(typeName).\(name) (\(Value.typeName(type)))")
        }
        g_object_set_property(gobject, name, &value.raw)
    }

    /// Why `string` cannot set property `name` (no such property, not writable, not
    /// parseable, or outside the property's range), or nil if `set(_:fromString:)` would
    /// take it as is. GLib itself only warns and ignores an out-of-range value.
    public func problem(setting name: String, fromString string: String) -> String? {
        guard let spec = paramSpec(name) else { return "\(typeName) has no property '\(name)'" }
        guard spec.pointee.flags.rawValue & G_PARAM_WRITABLE.rawValue != 0 else { return "\(typeName).\(name) is read-only" }
        let type = sluice_param_spec_value_type(spec)
        guard let value = Value.deserialize(string, as: type) else {
            return "'\(string)' is not a valid value for \(typeName).\(name) (\(Value.typeName(type)))"
        }
        if g_param_value_validate(spec, &value.raw) != 0 {
            return "\(string) is outside the range of \(typeName).\(name)"
        }
        return nil
    }

    /// Whether `string` would be accepted by `set(_:fromString:)`, without setting it.
    public func canParse(_ string: String, forProperty name: String) -> Bool {
        guard let type = propertyType(name) else { return false }
        return Value.deserialize(string, as: type) != nil
    }

    /// Reads a property as `T`, or nil if it does not exist or cannot be converted.
    public func get<T: ValueConvertible>(_ name: String, as: T.Type = T.self) -> T? {
        guard let value = property(name) else { return nil }
        return value.get(T.self)
    }

    /// Reads a property into an owned GValue of the property's own type.
    public func property(_ name: String) -> Value? {
        guard let spec = paramSpec(name) else { return nil }
        let value = Value(type: sluice_param_spec_value_type(spec))
        g_object_get_property(gobject, name, &value.raw)
        return value
    }

    /// Reads an object-valued property (e.g. webrtcbin's `ice-agent`).
    public func objectProperty<T: Object>(_ name: String, as: T.Type = T.self) -> T? {
        guard let value = property(name), g_type_is_a(value.type, sluice_type_object()) != 0,
            let obj = g_value_get_object(&value.raw)
        else { return nil }
        return T(none: obj)
    }

    /// Reads a caps-valued property (capsfilter's `caps`).
    public func capsProperty(_ name: String) -> Caps? {
        guard let value = property(name), value.type == sluice_type_caps(),
            let boxed = g_value_get_boxed(&value.raw)
        else { return nil }
        return Caps(none: boxed.assumingMemoryBound(to: GstCaps.self))
    }

    /// Reads a structure-valued property (rtpjitterbuffer's `stats`), as an owned copy.
    public func structureProperty(_ name: String) -> Structure? {
        guard let value = property(name), value.type == sluice_type_structure(),
            let boxed = g_value_get_boxed(&value.raw)
        else { return nil }
        return Structure(owned: gst_structure_copy(boxed.assumingMemoryBound(to: GstStructure.self)))
    }

    /// Reads an enum property as its integer value.
    public func enumProperty(_ name: String) -> Int32? {
        guard let value = property(name), g_type_is_a(value.type, sluice_type_enum()) != 0 else { return nil }
        return g_value_get_enum(&value.raw)
    }

    /// Sets an enum property from its integer value.
    public func setEnum(_ name: String, _ raw: Int32) throws(GstError) {
        guard let type = propertyType(name), g_type_is_a(type, sluice_type_enum()) != 0 else {
            throw GstError("\(typeName).\(name) is not an enum property")
        }
        let value = Value(type: type)
        g_value_set_enum(&value.raw, raw)
        g_object_set_property(gobject, name, &value.raw)
    }
}
