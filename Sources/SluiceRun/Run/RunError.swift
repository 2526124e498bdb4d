/// A failure while building or running a pipeline (exit code 3 from the CLI).
public struct RunError: Error, Sendable, CustomStringConvertible {
    /// One line saying what went wrong and how to fix it.
    public var message: String
    /// Where in the pipeline file the failing stage was declared, if known.
    public var location: SourceLocation?
    /// An error saying `message`, blaming `location` if given.
    public init(_ message: String, at location: SourceLocation? = nil) {
        self.message = message; self.location = location
    }
    /// `FILE:LINE:COL: message`, or just the message without a location.
    public var description: String {
        location.map { "\($0): \(message)" } ?? message
    }
}
