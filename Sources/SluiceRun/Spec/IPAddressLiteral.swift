/// Whether a text is an IPv4 or IPv6 address literal (`10.0.0.1`, `::1`), as ICE settings
/// and command-line options take them.
public enum IPAddressLiteral {
    /// True for an IPv4 or IPv6 literal, false for a name or anything else.
    public static func isValid(_ text: String) -> Bool { SpecScalars.isIPAddress(text) }
}
