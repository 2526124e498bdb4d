/// One problem found in a pipeline file (or its `--set` overrides).
///
/// Rendered as `FILE:LINE:COL: message`, the format editors and CI logs recognise.
public struct Diagnostic: Sendable, Equatable, CustomStringConvertible {
    public enum Category: Sendable, Equatable {
        /// The file itself is wrong (syntax, keys, types, values, combinations): exit 2.
        case invalidFile
        /// The file is fine but this machine lacks a GStreamer element it needs: exit 3.
        case missingElement
    }
    public var location: SourceLocation?
    public var message: String
    public var category: Category

    public init(_ message: String, at location: SourceLocation?, category: Category = .invalidFile) {
        self.message = message; self.location = location; self.category = category
    }

    public var description: String {
        if let location { return "\(location): \(message)" }
        return message
    }
}

/// Thrown by `PipelineLoader` when a file cannot become a `PipelineSpec`.
/// Holds every problem found, in file order.
public struct PipelineFileError: Error, Sendable, CustomStringConvertible {
    public var diagnostics: [Diagnostic]
    public init(_ diagnostics: [Diagnostic]) { self.diagnostics = diagnostics }

    /// Only missing elements (fix by installing packages, exit 3), no file errors (exit 2).
    public var onlyMissingElements: Bool {
        !diagnostics.isEmpty && diagnostics.allSatisfy { $0.category == .missingElement }
    }
    public var description: String { diagnostics.map(\.description).joined(separator: "\n") }
}
