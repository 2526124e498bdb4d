import CGStreamer
import CGStreamerShim

/// What the GStreamer registry knows about installed element factories.
public enum Registry {
    /// Whether an element factory of this name is installed.
    public static func hasElement(_ factory: String) -> Bool {
        Gst.initialize()
        guard let f = gst_element_factory_find(factory) else { return false }
        gst_object_unref(UnsafeMutableRawPointer(f))
        return true
    }

    /// One installed element factory.
    public struct Factory: Sendable, Hashable {
        /// The factory name, as `Element.make(_:)` takes it (`vp8enc`).
        public var name: String
        /// GStreamer's class string, e.g. `Codec/Encoder/Video`.
        public var klass: String
        /// The factory's one-line description from its metadata (`gst_element_factory_get_metadata`),
        /// empty if it has none.
        public var description: String
        /// The name of the plugin that provides the factory (`gst_plugin_feature_get_plugin_name`),
        /// e.g. `vpx`; empty if unknown.
        public var plugin: String
        /// The factory's rank (`gst_plugin_feature_get_rank`, `GST_RANK_PRIMARY` is 256): autoplugging
        /// prefers higher ranks, and rank 0 (`GST_RANK_NONE`) is never autoplugged.
        public var rank: UInt32
    }

    /// All installed element factories, sorted by name.
    public static func factories() -> [Factory] {
        Gst.initialize()
        // Every element factory (GST_ELEMENT_FACTORY_TYPE_ANY would skip plain filters such
        // as webrtcbin, whose class names no encoder/sink/parser/... type).
        let list = gst_registry_get_feature_list(gst_registry_get(), gst_element_factory_get_type())
        defer { gst_plugin_feature_list_free(list) }
        var out: [Factory] = []
        var node = list
        while let n = node {
            if let data = n.pointee.data {
                let f = OpaquePointer(data)
                let feature = OpaquePointer(data)
                func meta(_ key: String) -> String {
                    gst_element_factory_get_metadata(f, key).map { String(cString: $0) } ?? ""
                }
                out.append(
                    Factory(
                        name: Element.objectName(data),
                        klass: meta("klass"), description: meta("description"),
                        plugin: gst_plugin_feature_get_plugin_name(feature).map { String(cString: $0) } ?? "",
                        rank: gst_plugin_feature_get_rank(feature)))
            }
            node = n.pointee.next
        }
        return out.sorted { $0.name < $1.name }
    }
}
