import GStreamer

/// How an element standing for a source is named in messages (`rtsp capture rtsp://cam@host/…`),
/// and the secret its errors must not show.
package struct SourceLabel: Sendable {
    /// The source as the user knows it, without its password.
    package var text: String
    /// Text removed from the element's messages (a password in its URL).
    package var secret: String?

    /// `message` with the secret replaced by `***`.
    package func redact(_ message: String) -> String {
        guard let secret, !secret.isEmpty else { return message }
        return message.replacingOccurrences(of: secret, with: "***")
    }
}

/// Sources that serve more than one branch, and how their elements are named in errors.
extension GraphBuilder {
    /// The source `key` names in this run, made by `make` (given a fresh element name) the
    /// first time a branch asks for it. Branches are built on one thread, before the run.
    package func shared<Source: Sendable>(_ key: String, make: (String) throws(RunError) -> Source) throws(RunError) -> Source {
        let (existing, count) = state.withLock { ($0.sharedSources[key], $0.sharedSources.count) }
        if let existing = existing as? Source { return existing }
        let made = try make("source-\(count)")
        state.withLock { $0.sharedSources[key] = made }
        return made
    }

    /// Names element `name` in error messages as `text`, with `secret` kept out of them.
    package func label(source name: String, as text: String, secret: String?) {
        state.withLock { $0.sourceLabels[name] = SourceLabel(text: text, secret: secret) }
    }

    /// The label of element `name`, if it stands for a source.
    package func sourceLabel(of name: String) -> SourceLabel? { state.withLock { $0.sourceLabels[name] } }

    /// Records a failure found on a streaming thread; the run stops with it (the first one wins).
    package var failAsync: @Sendable (RunError) -> Void {
        { [weak self] error in self?.state.withLock { if $0.error == nil { $0.error = error } } }
    }
}
