import CGStreamer
import CGStreamerShim

/// A GstWebRTCDataChannel: a WebRTC data channel of a `webrtcbin`.
///
/// Get one from webrtcbin's `create-data-channel` action signal (the offering side) or its
/// `on-data-channel` signal (a channel the remote peer opened). Handlers run on GStreamer's
/// SCTP threads.
///
/// `@unchecked Sendable` for the reasons given on `Object`: GstWebRTCDataChannel guards its
/// state with its own lock, and the wrapper holds only the immutable pointer.
public final class DataChannel: Object, @unchecked Sendable {
    package override class var staticType: GType { gst_webrtc_data_channel_get_type() }
    /// GstWebRTCDataChannel is an incomplete type to Swift.
    private var channel: OpaquePointer { OpaquePointer(pointer) }

    /// The channel's label.
    public var label: String { self.get("label", as: String.self) ?? "" }

    /// `new` (not yet negotiated), `connecting`, `open`, `closing` or `closed`.
    public var readyState: String {
        guard let v = property("ready-state") else { return "unknown" }
        // Read the number: GStreamer 1.22's enum has no 0 value, which a channel has before
        // negotiation, and serializing that would be a GLib critical.
        switch withUnsafePointer(to: &v.raw, { g_value_get_enum($0) }) {
        case 1: return "connecting"
        case 2: return "open"
        case 3: return "closing"
        case 4: return "closed"
        default: return "new"
        }
    }

    /// Sends a text message. GStreamer queues it in the SCTP association; on a channel that
    /// is not open it reports an error through `on-error` instead.
    public func send(_ text: String) {
        gst_webrtc_data_channel_send_string(channel, text)
    }

    /// Closes the channel.
    public func close() { gst_webrtc_data_channel_close(channel) }

    /// Calls `handler` once the channel is open.
    @discardableResult
    public func onOpen(_ handler: @escaping @Sendable () -> Void) -> SignalHandlerID {
        connect("on-open") { (_: borrowing SignalArguments) in handler() }
    }

    /// Calls `handler` with each text message that arrives (binary messages are given as
    /// UTF-8 text, invalid bytes replaced).
    public func onMessage(_ handler: @escaping @Sendable (String) -> Void) {
        connect("on-message-string") { (args: borrowing SignalArguments) in
            handler(args.get(1, as: String.self) ?? "")
        }
        connect("on-message-data") { (args: borrowing SignalArguments) in
            guard let raw = args.raw(1), let bytes = g_value_get_boxed(raw) else { return }
            var size: gsize = 0
            guard let data = g_bytes_get_data(OpaquePointer(bytes), &size) else { handler(""); return }
            handler(String(decoding: UnsafeRawBufferPointer(start: data, count: Int(size)), as: UTF8.self))
        }
    }

    /// Calls `handler` when the channel closes.
    @discardableResult
    public func onClose(_ handler: @escaping @Sendable () -> Void) -> SignalHandlerID {
        connect("on-close") { (_: borrowing SignalArguments) in handler() }
    }
}

extension Element {
    /// webrtcbin's `create-data-channel`: a channel the next offer will carry.
    /// `maxRetransmits` nil: fully reliable.
    public func createDataChannel(label: String, ordered: Bool = true, maxRetransmits: Int? = nil) throws(GstError) -> DataChannel {
        let options = Structure(name: "options")
        _ = options.set("ordered", ordered)
        if let maxRetransmits { _ = options.set("max-retransmits", Int32(maxRetransmits)) }
        guard let value = try emit("create-data-channel", label, options),
            let object = value.objectValue
        else {
            throw GstError("webrtcbin could not create data channel '\(label)' (is the sctp plugin installed? gstreamer1.0-plugins-bad)")
        }
        return DataChannel(none: object.pointer)
    }

    /// webrtcbin's `on-data-channel`: channels the remote peer opens.
    public func onDataChannel(_ handler: @escaping @Sendable (DataChannel) -> Void) {
        connect("on-data-channel") { (args: borrowing SignalArguments) -> Void in
            if let channel = args.object(1, as: DataChannel.self) { handler(channel) }
        }
    }
}
