import Foundation
import Logging

/// A swift-log handler that writes one JSON object per line to standard error, for log
/// collectors (`--log-format json`): `time` (RFC 3339, UTC, milliseconds), `level`, `label`,
/// `message`, `source`, and the metadata's entries as strings.
public struct JSONLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .info
    public let label: String
    private let write: @Sendable (Data) -> Void

    public init(label: String, write: @escaping @Sendable (Data) -> Void = { FileHandle.standardError.write($0) }) {
        self.label = label
        self.write = write
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

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
        write(data)  // one write per line: lines from several threads do not interleave
    }

    static func timestamp(_ date: Date) -> String {
        date.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted))
    }
}
