/// GStreamer elements that Debian's gstreamer1.0-* packages ship, with the plugin and package
/// that provide each. Used to tell a typo (`videoflipp`: a file error) from an element that
/// exists but is not installed here (`x264enc` without gstreamer1.0-plugins-ugly: install it).
public enum KnownElements {
    /// The plugin and Debian package that ship `factory`, if it is a known element.
    public static func provider(of factory: String) -> (plugin: String, package: String)? {
        table[factory]
    }

    /// One line telling how to get a missing element, e.g.
    /// `element 'x264enc' is not installed: it is in GStreamer plugin 'x264'; install it with: apt-get install gstreamer1.0-plugins-ugly`.
    public static func missingHint(for factory: String) -> String {
        if let p = provider(of: factory) {
            return "element '\(factory)' is not installed: it is in GStreamer plugin '\(p.plugin)'; install it with: apt-get install \(p.package)"
        }
        return "element '\(factory)' is not installed and is not one Debian's GStreamer packages ship"
    }

    /// All known element names (installed here or not).
    public static var allNames: Dictionary<String, (plugin: String, package: String)>.Keys { table.keys }
}
