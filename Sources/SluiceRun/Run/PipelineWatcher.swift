import Foundation

/// Applies edits of a pipeline file to its running pipeline (`sluice run --watch`): filter
/// changes go live through hot swap, new settings of the same encoded filters (an `e2ee`
/// key) are set on the running ones, receivers first, and a send branch's other list of
/// encoded filters is swapped in; anything else is reported as needing a restart; a
/// file that no longer validates is reported and the running pipeline is kept.
public final class PipelineWatcher: Sendable {
    /// What the watcher did after an edit.
    public enum Report: Sendable {
        /// These filter lists (`send.video.filters`, …) were replaced live.
        case applied([String])
        /// These parts changed (`transport`, `send.video`, …) and take effect only after a restart.
        case needsRestart([String])
        /// The edited file does not validate; the running pipeline is kept.
        case invalid([Diagnostic])
        /// Replacing a branch's filters live failed, for this reason.
        case failed(RunError)
    }

    private let path: String
    private let overrides: [String]
    private let loader: PipelineLoader
    private let run: PipelineRun

    /// A watcher of the file at `path` (loaded with `overrides`, the `--set` arguments, by `loader`) for `run`.
    public init(path: String, overrides: [String], loader: PipelineLoader, run: PipelineRun) {
        self.path = path; self.overrides = overrides; self.loader = loader; self.run = run
    }

    /// Polls the file's modification time every `interval` seconds until cancelled, calling
    /// `report` after each edit.
    public func watch(interval: Double = 0.25, report: @escaping @Sendable (Report) -> Void) async {
        var current = run.spec
        var lastStamp = Self.stamp(path)
        while !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(Int(interval * 1000)))
            let stamp = Self.stamp(path)
            guard stamp != lastStamp else { continue }
            lastStamp = stamp
            let next: PipelineSpec
            do { next = try loader.load(path: path, overrides: overrides) } catch {
                report(.invalid(error.diagnostics))
                continue
            }
            let diff = SpecDiff(from: current, to: next)
            if !diff.needsRestart.isEmpty { report(.needsRestart(diff.needsRestart)) }
            var applied: [String] = []
            for change in diff.filterChanges {
                do {
                    try await run.replaceFilters(change.side, change.media, with: change.filters)
                    applied.append("\(change.side.rawValue).\(change.media.rawValue).filters")
                } catch {
                    report(.failed(error))
                }
            }
            // Receivers first: a receiver given a new key still opens the old one's frames
            // for a while, a sender's new frames would find it unprepared.
            for change in diff.encodedSettingsChanges.sorted(by: { $0.side == .receive && $1.side == .send }) {
                do {
                    try run.reconfigureEncodedFilters(change.side, change.media, with: change.filters)
                    applied.append("\(change.side.rawValue).\(change.media.rawValue).encoded_filters")
                    current.setEncodedFilters(change.filters, side: change.side, media: change.media)
                } catch {
                    report(.failed(error))
                }
            }
            for change in diff.encodedListChanges {
                do {
                    try await run.replaceEncodedFilters(change.media, with: change.filters)
                    applied.append("send.\(change.media.rawValue).encoded_filters")
                    current.setEncodedFilters(change.filters, side: .send, media: change.media)
                } catch {
                    report(.failed(error))
                }
            }
            if !applied.isEmpty { report(.applied(applied)) }
            // Only the applied filters become the reference; other changes wait for a restart.
            for change in diff.filterChanges {
                current.setFilters(change.filters, side: change.side, media: change.media)
            }
        }
    }

    private static func stamp(_ path: String) -> Date? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
    }
}

extension PipelineSpec {
    package mutating func setEncodedFilters(_ filters: [FilterSpec], side: BranchSide, media: MediaKind) {
        switch (side, media) {
        case (.send, .video): send?.video?.encodedFilters = filters
        case (.send, .audio): send?.audio?.encodedFilters = filters
        case (.receive, .video): receive?.video?.encodedFilters = filters
        case (.receive, .audio): receive?.audio?.encodedFilters = filters
        }
    }

    package mutating func setFilters(_ filters: [FilterSpec], side: BranchSide, media: MediaKind) {
        switch (side, media) {
        case (.send, .video): send?.video?.filters = filters
        case (.send, .audio): send?.audio?.filters = filters
        case (.receive, .video): receive?.video?.filters = filters
        case (.receive, .audio): receive?.audio?.filters = filters
        }
    }
}
