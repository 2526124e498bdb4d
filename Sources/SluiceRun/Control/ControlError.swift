/// Why a control operation on a running pipeline was refused. The kinds map onto HTTP
/// statuses in the control API (404, 422, 409).
public struct ControlError: Error, Sendable, CustomStringConvertible {
    /// Which way a control operation failed, and so which HTTP status the control API answers with.
    public enum Kind: Sendable {
        /// No such branch, filter, channel or pipeline.
        case notFound
        /// The request names things that exist but asks for something impossible (a
        /// parameter the filter lacks, a value outside its range, a malformed filter list).
        case invalid
        /// The pipeline cannot do it in its current shape or state (no data channel is open,
        /// the encoder has no known bitrate, the pipeline is stopping).
        case conflict
    }
    /// Why the operation was refused: not found (404), invalid (422) or conflict (409).
    public let kind: Kind
    /// What went wrong, for people; the control API's error message.
    public let message: String
    /// `FILE:LINE:COL: message` lines, for a filter list that did not validate.
    public let diagnostics: [String]

    /// An error of `kind` saying `message`, with the validator's diagnostics for a filter list (none unless given).
    public init(_ kind: Kind, _ message: String, diagnostics: [String] = []) {
        self.kind = kind; self.message = message; self.diagnostics = diagnostics
    }
    /// The message.
    public var description: String { message }
}
