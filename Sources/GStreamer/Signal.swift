import CGStreamer
import CGStreamerShim

/// The arguments of a signal emission, valid only while the handler runs.
///
/// `args[0]` is the emitting instance; the signal's own parameters follow. Read what you
/// need with the typed accessors; do not keep the `SignalArguments` itself.
public struct SignalArguments: ~Copyable {
    let values: UnsafePointer<GValue>?
    /// The number of arguments, the emitting instance included.
    public let count: Int

    /// Raw access to argument `i`.
    package func raw(_ i: Int) -> UnsafePointer<GValue>? {
        guard let values, i >= 0, i < count else { return nil }
        return values + i
    }
    /// Argument `i` converted to `T` (`ValueConvertible`), or nil if `i` is out of range or the
    /// value cannot be read or transformed as a `T`. The value is read, not taken.
    public func get<T: ValueConvertible>(_ i: Int, as: T.Type = T.self) -> T? {
        raw(i).flatMap { Value.read($0) }
    }
    /// Argument `i` as an object wrapper (borrowing a new reference), if it is one of type `T`.
    public func object<T: Object>(_ i: Int, as: T.Type = T.self) -> T? {
        guard let v = raw(i), g_type_is_a(sluice_value_type(v), sluice_type_object()) != 0 else { return nil }
        return Object.wrap(none: g_value_get_object(v), as: T.self)
    }
    /// A copy of argument `i` as an owned Value.
    public func value(_ i: Int) -> Value? { raw(i).map { Value(copying: $0) } }
}

/// Identifies a connected handler so it can be disconnected.
public struct SignalHandlerID: Sendable, Hashable {
    package let raw: gulong
}

/// The Swift side of a GClosure: the handler, kept alive until GLib finalizes the closure.
private final class ClosureBox {
    let handler: (borrowing SignalArguments) -> Value?
    init(_ handler: @escaping (borrowing SignalArguments) -> Value?) { self.handler = handler }
}

private let closureMarshal: GClosureMarshal = { closure, returnValue, nParams, params, _, _ in
    guard let closure, let data = closure.pointee.data else { return }
    let box = Unmanaged<ClosureBox>.fromOpaque(data).takeUnretainedValue()
    let args = SignalArguments(values: params, count: Int(nParams))
    let result = box.handler(args)
    if let returnValue, let result, sluice_value_type(returnValue) != 0 {
        if g_value_type_transformable(result.type, sluice_value_type(returnValue)) != 0 {
            g_value_transform(&result.raw, returnValue)
        }
    }
}

private let closureFinalize: GClosureNotify = { data, _ in
    guard let data else { return }
    Unmanaged<ClosureBox>.fromOpaque(data).release()
}

extension Object {
    /// Connects a Swift closure to a signal (`pad-added`, `on-ice-candidate`,
    /// `notify::ice-connection-state`, …).
    ///
    /// GStreamer may call the handler on any of its threads, hence `@Sendable`. The handler
    /// is released when the object is finalized or the handler disconnected. Return a
    /// `Value` for signals that expect a return value, nil otherwise.
    @discardableResult
    public func connect(
        _ signal: String, after: Bool = false,
        _ handler: @escaping @Sendable (borrowing SignalArguments) -> Value?
    ) -> SignalHandlerID {
        let box = Unmanaged.passRetained(ClosureBox(handler)).toOpaque()
        let closure = g_closure_new_simple(guint(MemoryLayout<GClosure>.size), box)!
        g_closure_set_marshal(closure, closureMarshal)
        g_closure_add_finalize_notifier(closure, box, closureFinalize)
        let id = g_signal_connect_closure(gobject, signal, closure, after ? 1 : 0)
        if id == 0 {
            // Unknown signal: GLib did not take the closure; sink and drop it.
            g_closure_sink(g_closure_ref(closure))
            g_closure_unref(closure)
        }
        return SignalHandlerID(raw: id)
    }

    /// Connects a handler that returns nothing.
    @discardableResult
    public func connect(
        _ signal: String, after: Bool = false,
        _ handler: @escaping @Sendable (borrowing SignalArguments) -> Void
    ) -> SignalHandlerID {
        connect(signal, after: after) { (args: borrowing SignalArguments) -> Value? in
            handler(args); return nil
        }
    }

    /// Disconnects a handler `connect` returned (`g_signal_handler_disconnect`); does nothing if it
    /// is already disconnected or its signal was unknown (id 0). GLib then releases the handler.
    public func disconnect(_ id: SignalHandlerID) {
        if id.raw != 0, g_signal_handler_is_connected(gobject, id.raw) != 0 {
            g_signal_handler_disconnect(gobject, id.raw)
        }
    }

    /// Emits an action signal (`create-offer`, `add-ice-candidate`, `get-stats`, …).
    ///
    /// Each argument is converted to the signal's declared parameter type. Returns the
    /// signal's return value, if it has one.
    @discardableResult
    public func emit(_ signal: String, _ args: any SignalArgument...) throws(GstError) -> Value? {
        let id = g_signal_lookup(signal, gType)
        guard id != 0 else { throw GstError("\(typeName) has no signal '\(signal)'") }
        var query = GSignalQuery()
        g_signal_query(id, &query)
        guard Int(query.n_params) == args.count else {
            throw GstError("signal '\(signal)' takes \(query.n_params) arguments, got \(args.count)")
        }
        let staticScope = GType(1) // G_SIGNAL_TYPE_STATIC_SCOPE
        var values = [GValue](repeating: GValue(), count: args.count + 1)
        defer { for i in values.indices where sluice_value_type(&values[i]) != 0 { g_value_unset(&values[i]) } }
        g_value_init(&values[0], gType)
        g_value_set_object(&values[0], pointer)
        for (i, arg) in args.enumerated() {
            let type = query.param_types[i] & ~staticScope
            g_value_init(&values[i + 1], type)
            if arg is NullArgument { continue } // a zeroed value is NULL for pointers and objects
            // Enum and flags parameters take their nick as a string ("recvonly"), parsed by
            // GStreamer: numeric enum values are too easy to get wrong.
            if let text = arg as? String, type != sluice_type_string(),
                g_type_is_a(type, sluice_type_enum()) != 0 || g_type_is_a(type, sluice_type_flags()) != 0
            {
                guard gst_value_deserialize(&values[i + 1], text) != 0 else {
                    throw GstError("'\(text)' is not a valid \(Value.typeName(type)) for argument \(i + 1) of '\(signal)'")
                }
                continue
            }
            let source = arg.asValue()
            if source.type == type || g_type_is_a(source.type, type) != 0 {
                g_value_copy(&source.raw, &values[i + 1])
            } else if g_value_type_transformable(source.type, type) == 0
                || g_value_transform(&source.raw, &values[i + 1]) == 0
            {
                throw GstError("argument \(i + 1) of '\(signal)' must be \(Value.typeName(type))")
            }
        }
        let returnType = query.return_type & ~staticScope
        let result: Value? = returnType == GType(4) /* G_TYPE_NONE */ ? nil : Value(type: returnType)
        values.withUnsafeBufferPointer { buf in
            if let result { g_signal_emitv(buf.baseAddress, id, 0, &result.raw) } else { g_signal_emitv(buf.baseAddress, id, 0, nil) }
        }
        return result
    }
}

/// Anything `emit` accepts as an argument.
public protocol SignalArgument {
    /// A GValue holding this argument, which `emit` then converts to the signal's parameter type.
    func asValue() -> Value
}

extension Bool: SignalArgument { public func asValue() -> Value { Value(self) } }
extension Int32: SignalArgument { public func asValue() -> Value { Value(self) } }
extension UInt32: SignalArgument { public func asValue() -> Value { Value(self) } }
extension Int: SignalArgument { public func asValue() -> Value { Value(self) } }
extension Int64: SignalArgument { public func asValue() -> Value { Value(self) } }
extension UInt64: SignalArgument { public func asValue() -> Value { Value(self) } }
extension Double: SignalArgument { public func asValue() -> Value { Value(self) } }
extension String: SignalArgument { public func asValue() -> Value { Value(self) } }
extension Value: SignalArgument { public func asValue() -> Value { self } }

/// Passes NULL for an object- or pointer-typed signal argument (e.g. `get-stats` with no pad).
public struct NullArgument: SignalArgument {
    /// The NULL argument.
    public init() {}
    /// A zeroed `G_TYPE_POINTER` value; `emit` passes NULL in the parameter's own type.
    public func asValue() -> Value { Value(type: sluice_type_pointer()) }
}

extension Object: SignalArgument {
    /// A GValue of the object's own GType holding it (`g_value_set_object` takes a new reference,
    /// released with the value).
    public func asValue() -> Value {
        let v = Value(type: gType)
        g_value_set_object(&v.raw, pointer)
        return v
    }
}
