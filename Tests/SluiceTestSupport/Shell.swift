/// Writing shell scripts from tests.
public enum Shell {
    /// `words` as single-quoted shell words separated by spaces: each one stays one argument,
    /// whatever it holds (a `'` inside is closed, escaped and reopened).
    public static func quote(_ words: [String]) -> String {
        words.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
    }
}
