import CGStreamer
import CGStreamerShim

/// GstCaps: a media type description (`video/x-raw,width=1280,height=720`).
///
/// `@unchecked Sendable`: the wrapper never mutates the caps it holds (GstCaps shared by
/// more than one reference are immutable by GStreamer's rules) and mini-object reference
/// counting is atomic.
public final class Caps: @unchecked Sendable, CustomStringConvertible, Equatable {
    let caps: UnsafeMutablePointer<GstCaps>

    /// Adopts a reference the caller owns.
    init(full caps: UnsafeMutablePointer<GstCaps>) { self.caps = caps }

    /// Takes a new reference to caps owned elsewhere.
    init(none caps: UnsafeMutablePointer<GstCaps>) {
        self.caps = caps
        _ = gst_mini_object_ref(UnsafeMutableRawPointer(caps).assumingMemoryBound(to: GstMiniObject.self))
    }

    /// Parses caps from their string form; throws with a clear message if they don't parse.
    public init(_ string: String) throws(GstError) {
        Gst.initialize()
        guard let c = gst_caps_from_string(string) else {
            throw GstError("'\(string)' is not a valid caps string")
        }
        caps = c
    }

    deinit { gst_mini_object_unref(UnsafeMutableRawPointer(caps).assumingMemoryBound(to: GstMiniObject.self)) }

    /// The caps' string form (`gst_caps_to_string`), e.g. `video/x-raw,width=1280`; empty if
    /// GStreamer returns none.
    public var description: String {
        guard let s = gst_caps_to_string(caps) else { return "" }
        defer { g_free(s) }
        return String(cString: s)
    }

    /// The number of structures in the caps (`gst_caps_get_size`).
    public var size: Int { Int(gst_caps_get_size(caps)) }
    /// Whether the caps describe exactly one format, with no ranges or lists (`gst_caps_is_fixed`).
    public var isFixed: Bool { gst_caps_is_fixed(caps) != 0 }
    /// Whether the caps allow no format at all (`gst_caps_is_empty`).
    public var isEmpty: Bool { gst_caps_is_empty(caps) != 0 }
    /// Whether the caps allow any format (`gst_caps_is_any`, `ANY` caps).
    public var isAny: Bool { gst_caps_is_any(caps) != 0 }

    /// Structure `i`, borrowed from these caps (kept alive with them).
    public func structure(at i: Int) -> Structure? {
        guard i >= 0, i < size, let s = gst_caps_get_structure(caps, guint(i)) else { return nil }
        return Structure(borrowed: s, owner: self)
    }

    /// Whether the two caps have any format in common (`gst_caps_can_intersect`); computes no
    /// intersection.
    public func intersects(_ other: Caps) -> Bool { gst_caps_can_intersect(caps, other.caps) != 0 }

    /// The formats both caps allow (`gst_caps_intersect`); a new caps the result owns (transfer
    /// full), empty when they have nothing in common.
    public func intersect(_ other: Caps) -> Caps { Caps(full: gst_caps_intersect(caps, other.caps)) }

    /// A copy of these caps with the integer field `field` set to `value` in every structure
    /// (e.g. an RTP stream's `payload`).
    public func setting(_ field: String, to value: Int32) -> Caps {
        let copy = Caps(full: gst_caps_copy(caps)) // a new caps, writable
        for i in 0..<gst_caps_get_size(copy.caps) {
            guard let s = gst_caps_get_structure(copy.caps, i) else { continue }
            let v = Value(value)
            gst_structure_set_value(s, field, &v.raw)
        }
        return copy
    }

    /// Whether the two caps describe the same formats (`gst_caps_is_equal`), not whether they are
    /// the same object.
    public static func == (a: Caps, b: Caps) -> Bool { gst_caps_is_equal(a.caps, b.caps) != 0 }

    /// A GValue holding these caps (for properties and signal arguments).
    public func asValue() -> Value {
        let v = Value(type: sluice_type_caps())
        g_value_set_boxed(&v.raw, caps)
        return v
    }
}

extension Caps: SignalArgument {}
