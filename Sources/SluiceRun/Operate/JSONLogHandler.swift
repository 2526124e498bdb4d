import Foundation
import Logging

/// A swift-log handler that writes one JSON object per line to standard error, for log
/// collectors (`--log-format json`): `time` (RFC 3339, UTC, milliseconds), `level`, `label`,
/// `message`, `source`, and the metadata's entries as strings.
public struct JSONLogHandler: LogHandler {
    /// Metadata added to every line this handler writes (a message's own metadata wins on a clash).
    public var metadata: Logger.Metadata = [:]
    /// The least severe level that is written; `.info` unless set.
    public var logLevel: Logger.Level = .info
    /// The logger's label, written as each line's `label`.
    public let label: String
    private let write: @Sendable (Data) -> Void

    /// A handler for the logger labelled `label`; `write` gets each line (JSON and a newline)
    /// in one call, and writes it to standard error unless given.
    public init(label: String, write: @escaping @Sendable (Data) -> Void = { FileHandle.standardError.write($0) }) {
        self.label = label
        self.write = write
    }

    /// One entry of the handler's `metadata`.
    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Writes the event as one JSON line: time, level, label, message, source, the error if any,
    /// and the merged metadata, all as strings.
    public func log(event: LogEvent) {
        var object: [String: String] = [:]
        for (k, v) in metadata.merging(event.metadata ?? [:], uniquingKeysWith: { _, new in new }) { object[k] = "\(v)" }
        object["time"] = Self.timestamp(Date())
        object["level"] = event.level.rawValue
        object["label"] = label
        object["message"] = event.message.description
        object["source"] = event.source
        if let error = event.error { object["error"] = "\(error)" }
        guard var data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else { return }
        data.append(0x0A)
        write(data) // one write per line: lines from several threads do not interleave
    }

    package static func timestamp(_ date: Date) -> String {
        date.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted))
    }
}
