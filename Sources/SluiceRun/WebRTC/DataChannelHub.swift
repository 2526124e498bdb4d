import GStreamer
import Synchronization

/// The data channels a pipeline file declares (`transport.data_channels`), on one or both
/// ends of a session.
///
/// The offering side opens the declared channels (`open(on:)`); the answering side adopts
/// the ones the remote peer opens (`accept(on:)`), matched by label. Every message that
/// arrives on a channel whose spec says `print` goes to `onMessage`; `send` writes to the
/// channel that takes standard input, queueing until it is open.
public final class DataChannelHub: Sendable {
    /// The data channels the pipeline file declares, matched to channels by label.
    public let specs: [DataChannelSpec]
    private let onMessage: @Sendable (_ label: String, _ text: String) -> Void

    private struct Entry {
        /// The end this process writes to: the channel it created, or the first remote one.
        var local: DataChannel?
        var open = false
        var pending: [String] = []
        var sent = 0
        var received = 0
    }
    private let table = Mutex<[String: Entry]>([:])
    /// Channels the remote opened that the file does not declare (kept so they are not
    /// finalized while open; their messages are printed too).
    private let extra = Mutex<[DataChannel]>([])

    /// A hub for `specs`; `onMessage` gets the label and text of every message that arrives on a
    /// channel whose spec says `print` (and on channels the remote opened that no spec declares).
    public init(specs: [DataChannelSpec], onMessage: @escaping @Sendable (_ label: String, _ text: String) -> Void) {
        self.specs = specs
        self.onMessage = onMessage
        table.withLock { t in for s in specs { t[s.label] = Entry() } }
    }

    /// Opens every declared channel on `webrtcbin` (before the offer is made).
    public func open(on webrtcbin: Element) throws(RunError) {
        for spec in specs {
            do {
                let channel = try webrtcbin.createDataChannel(
                    label: spec.label, ordered: spec.ordered,
                    maxRetransmits: spec.maxRetransmits)
                adopt(channel)
            } catch {
                throw RunError("data channel '\(spec.label)': \(error.message)", at: spec.location)
            }
        }
    }

    /// Adopts the channels the remote peer opens on `webrtcbin`.
    public func accept(on webrtcbin: Element) {
        webrtcbin.onDataChannel { [weak self] channel in self?.adopt(channel) }
    }

    private func adopt(_ channel: DataChannel) {
        let label = channel.label
        let declared = table.withLock { t -> Bool in
            guard t[label] != nil else { return false }
            if t[label]?.local == nil { t[label]?.local = channel }
            return true
        }
        if !declared { extra.withLock { $0.append(channel) } }
        let prints = specs.first { $0.label == label }?.print ?? true
        channel.onMessage { [weak self] text in
            guard let self else { return }
            self.table.withLock { $0[label]?.received += 1 }
            if prints { self.onMessage(label, text) }
        }
        channel.onOpen { [weak self, weak channel] in
            guard let self, let channel else { return }
            self.markOpen(channel, label: label)
        }
        // The channel may have opened before the handler was connected.
        if channel.readyState == "open" { markOpen(channel, label: label) }
    }

    /// Records that `channel` is open and sends what was queued for it (once).
    private func markOpen(_ channel: DataChannel, label: String) {
        let queued = table.withLock { t -> [String] in
            guard t[label]?.local === channel, t[label]?.open == false else { return [] }
            t[label]?.open = true
            let q = t[label]?.pending ?? []
            t[label]?.pending = []
            t[label]?.sent += q.count
            return q
        }
        for text in queued { channel.send(text) }
    }

    /// The label of the channel that takes standard input, if one does.
    public var stdinLabel: String? { specs.first { $0.stdin }?.label }

    /// Sends `text` on channel `label` (queued until the channel opens).
    public func send(_ text: String, on label: String) {
        let channel = table.withLock { t -> DataChannel? in
            guard var e = t[label] else { return nil }
            defer { t[label] = e }
            guard e.open, let c = e.local else { e.pending.append(text); return nil }
            e.sent += 1
            return c
        }
        channel?.send(text)
    }

    /// Whether channel `label` is open on this side.
    public func isOpen(_ label: String) -> Bool { table.withLock { $0[label]?.open ?? false } }

    /// Per-channel counts for the run summary.
    public var report: [RunSummary.DataChannelReport] {
        table.withLock { t in
            specs.map { s in
                let e = t[s.label] ?? Entry()
                return RunSummary.DataChannelReport(label: s.label, opened: e.open, sent: e.sent, received: e.received)
            }
        }
    }

    /// Closes every channel.
    public func close() {
        let channels = table.withLock { $0.values.compactMap(\.local) } + extra.withLock { $0 }
        for c in channels where c.readyState == "open" { c.close() }
    }
}
