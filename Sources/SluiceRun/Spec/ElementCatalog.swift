/// What the validator needs to know about this machine's GStreamer.
///
/// The real implementation (`GStreamerCatalog`) asks the GStreamer registry; tests can use a
/// fixed table. All answers are about element *factory* names (`videoflip`, `x264enc`).
public protocol ElementCatalog: Sendable {
    /// Whether an element factory of this name is installed.
    func isInstalled(_ factory: String) -> Bool
    /// All installed element factory names (for did-you-mean suggestions).
    func installedFactories() -> [String]
    /// The element's writable property names, or nil if the element is not installed.
    func propertyNames(of factory: String) -> [String]?
    /// nil if `value` is acceptable for the property (parsed the way gst-launch parses it),
    /// otherwise a short reason such as `expected an integer between 0 and 8`.
    func checkProperty(factory: String, property: String, value: String) -> String?
    /// nil if the gst-launch fragment parses into a bin, otherwise GStreamer's error message.
    func checkFragment(_ fragment: String) -> String?
}
