/// Whether a text is an SDP a peer can work with: what servers check before handing an
/// offer to a media engine, so malformed input gets a clear 400 instead of undefined behaviour.
public enum SDPCheck {
    /// The largest SDP accepted.
    public static let maxBytes = 256 * 1024

    /// nil if `text` is a well-formed SDP (RFC 8866: `v=0` first, then `o=`, `s=`, `t=`, every
    /// line `x=value`), otherwise what is wrong.
    public static func problem(in text: String) -> String? {
        guard !text.isEmpty else { return "the SDP is empty" }
        guard text.utf8.count <= maxBytes else { return "the SDP is too large (\(text.utf8.count) bytes, at most \(maxBytes))" }
        let lines = text.split(whereSeparator: \.isNewline)
        guard lines.first == "v=0" else { return "the SDP must start with v=0" }
        for (i, line) in lines.enumerated() {
            let bytes = Array(line.utf8)
            guard bytes.count >= 2, bytes[1] == UInt8(ascii: "="), (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(bytes[0]) else {
                return "line \(i + 1) of the SDP is not of the form x=value"
            }
        }
        for required in ["o=", "s=", "t="] where !lines.contains(where: { $0.hasPrefix(required) }) {
            return "the SDP has no \(required) line"
        }
        return nil
    }
}
