import CGStreamer

/// RTP header extensions (GstRTPHeaderExtension) that payloaders write into each packet.
public enum RTPHeaderExtensions {
    /// A new extension implementing `uri` with the negotiated `id`, or nil if no installed
    /// plugin implements it. Attach it with `attach(_:to:)`.
    public static func make(uri: String, id: Int) -> Element? {
        Gst.initialize()
        guard (1...255).contains(id), let ext = gst_rtp_header_extension_create_from_uri(uri) else { return nil }
        gst_rtp_header_extension_set_id(ext, guint(id))
        // create_from_uri returns a new, floating element: `init(full:)` sinks it.
        return Element(full: UnsafeMutableRawPointer(ext))
    }

    /// Adds `ext` to an RTP payloader (its `add-extension` action signal), so every packet
    /// the payloader makes carries it. The payloader keeps its own reference.
    public static func attach(_ ext: Element, to payloader: Element) throws(GstError) {
        try payloader.emit("add-extension", ext)
    }

    /// Removes every extension from an RTP payloader (its `clear-extensions` action signal).
    public static func detachAll(from payloader: Element) throws(GstError) {
        try payloader.emit("clear-extensions")
    }
}
