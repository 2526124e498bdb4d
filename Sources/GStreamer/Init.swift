import CGStreamer
import CGStreamerShim

/// Namespace for process-wide GStreamer state.
public enum Gst {
    private static let initialized: Bool = {
        gst_init(nil, nil)
        return true
    }()

    /// Initializes GStreamer once per process. Every wrapper that creates objects calls it,
    /// so calling it yourself is only needed before using raw C APIs.
    public static func initialize() {
        _ = initialized
    }

    /// The runtime GStreamer version, e.g. `1.22.0`.
    public static var version: String {
        initialize()
        var major: guint = 0, minor: guint = 0, micro: guint = 0, nano: guint = 0
        gst_version(&major, &minor, &micro, &nano)
        return "\(major).\(minor).\(micro)"
    }
}

/// An error from GStreamer or from misuse of the bindings, with a message meant for users.
public struct GstError: Error, Sendable, CustomStringConvertible, Equatable {
    /// The message, in English, meant for the user (a GError's own message when it came from one).
    public var message: String
    /// An error with this message.
    public init(_ message: String) { self.message = message }
    /// The message itself.
    public var description: String { message }

    /// Takes ownership of a GError, frees it, and returns its message.
    static func consume(_ error: UnsafeMutablePointer<GError>?, fallback: String) -> GstError {
        guard let error else { return GstError(fallback) }
        defer { g_error_free(error) }
        return GstError(error.pointee.message.map { String(cString: $0) } ?? fallback)
    }
}

/// Nanoseconds, GStreamer's clock unit; `nil` stands for GST_CLOCK_TIME_NONE.
public typealias ClockTime = UInt

extension ClockTime {
    static let none: UInt = UInt.max
}
