/// One problem found in a pipeline file (or its `--set` overrides).
///
/// Rendered as `FILE:LINE:COL: message`, the format editors and CI logs recognise.
public struct Diagnostic: Sendable, Equatable, CustomStringConvertible {
    /// What kind of problem a diagnostic reports, which decides the exit status.
    public enum Category: Sendable, Equatable {
        /// The file itself is wrong (syntax, keys, types, values, combinations): exit 2.
        case invalidFile
        /// The file is fine but this machine lacks a GStreamer element it needs: exit 3.
        case missingElement
    }
    /// Where the problem is; nil when it belongs to no position.
    public var location: SourceLocation?
    /// What is wrong, and usually how to fix it.
    public var message: String
    /// Whether the file is wrong or the machine lacks an element; `.invalidFile` unless given.
    public var category: Category

    /// A problem described by `message` at `location`.
    public init(_ message: String, at location: SourceLocation?, category: Category = .invalidFile) {
        self.message = message; self.location = location; self.category = category
    }

    /// `FILE:LINE:COL: message`, or just the message when there is no location.
    public var description: String {
        if let location { return "\(location): \(message)" }
        return message
    }
}

/// Thrown by `PipelineLoader` when a file cannot become a `PipelineSpec`.
/// Holds every problem found, in file order.
public struct PipelineFileError: Error, Sendable, CustomStringConvertible {
    /// Every problem found, in file order.
    public var diagnostics: [Diagnostic]
    /// An error holding `diagnostics`.
    public init(_ diagnostics: [Diagnostic]) { self.diagnostics = diagnostics }

    /// Only missing elements (fix by installing packages, exit 3), no file errors (exit 2).
    public var onlyMissingElements: Bool {
        !diagnostics.isEmpty && diagnostics.allSatisfy { $0.category == .missingElement }
    }
    /// The diagnostics, one per line.
    public var description: String { diagnostics.map(\.description).joined(separator: "\n") }
}
