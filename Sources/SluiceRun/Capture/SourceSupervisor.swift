import Foundation
import GStreamer
import Synchronization

/// A shared source that can be torn down and made again with the same settings, its
/// streams going to the same branches (`StreamRouter` keeps the routes).
package protocol RestartableSource: AnyObject, Sendable {
    /// Where its streams go, and how it is doing.
    var router: StreamRouter { get }
    /// The name of its (first) element in the pipeline; its other elements' names start
    /// with this and a `-`.
    var elementName: String { get }
    /// Removes its elements and makes new ones (the reconnect).
    func restart() throws(RunError)
}

/// What happened to a watched source, for the run's events and log.
package enum SourceEvent: Sendable {
    /// Media stopped; the next reconnect attempt is `attempt`, `retryIn` from now.
    case lost(source: String, reason: String, attempt: Int, retryIn: Duration)
    /// Media came back after `away`.
    case back(source: String, away: Duration)
    /// A branch's fallback went on air after `silent` without media.
    case fallbackOn(source: String, media: MediaKind, content: String, silent: Duration)
    /// The source is back on a branch after its fallback was on air for `shown`.
    case fallbackOff(source: String, media: MediaKind, shown: Duration)
    /// A branch's fallback could not be made; the branch waits for the source as without one.
    case fallbackFailed(source: String, media: MediaKind, reason: String)
}

extension SourceEvent {
    /// The event's type in the event stream (`source-lost`, `source-back`).
    package var type: String {
        switch self {
        case .lost: "source-lost"
        case .back: "source-back"
        case .fallbackOn: "fallback-on"
        case .fallbackOff: "fallback-off"
        case .fallbackFailed: "fallback-failed"
        }
    }

    /// Its fields in the event stream.
    package var fields: [String: PipelineEvent.Value] {
        switch self {
        case .lost(let source, let reason, let attempt, let retryIn):
            ["source": .text(source), "reason": .text(reason), "attempt": .number(Double(attempt)), "retry_in_s": .number(retryIn.seconds)]
        case .back(let source, let away): ["source": .text(source), "away_s": .number(away.seconds)]
        case .fallbackOn(let source, let media, let content, let silent):
            ["source": .text(source), "media": .text(media.rawValue), "fallback": .text(content), "silent_s": .number(silent.seconds)]
        case .fallbackOff(let source, let media, let shown):
            ["source": .text(source), "media": .text(media.rawValue), "shown_s": .number(shown.seconds)]
        case .fallbackFailed(let source, let media, let reason):
            ["source": .text(source), "media": .text(media.rawValue), "reason": .text(reason)]
        }
    }

    /// One line for the log.
    package var logLine: String {
        switch self {
        case .lost(let source, let reason, let attempt, let retryIn):
            "\(source): \(reason); reconnecting in \(String(format: "%.1f", retryIn.seconds)) s (attempt \(attempt))"
        case .back(let source, let away): "\(source): back after \(String(format: "%.1f", away.seconds)) s"
        case .fallbackOn(let source, let media, let content, let silent):
            "\(source): no \(media) for \(String(format: "%.1f", silent.seconds)) s; sending the fallback (\(content))"
        case .fallbackOff(let source, let media, let shown):
            "\(source): \(media) back on air after \(String(format: "%.1f", shown.seconds)) s of fallback"
        case .fallbackFailed(let source, let media, let reason):
            "\(source): cannot send the \(media) fallback (\(reason)); viewers keep the last \(media == .video ? "picture" : "sound") until the source is back"
        }
    }
}

/// Keeps a run's live network sources coming back: when one that has delivered media stops
/// (an error on the bus, the end of its stream, or no media for `stallAfter`), the run goes
/// on, the outage is recorded, and the source is made again after a backoff of 1 s doubling
/// to 30 s with jitter, until media flows again. A source that never delivered is not
/// watched: its error ends the run, as a mistake should.
package final class SourceSupervisor: Sendable {
    /// Silence after which a delivering source counts as gone.
    package let stallAfter: Duration
    private struct State {
        var sources: [any RestartableSource] = []
        var fallbacks: [FallbackSwitch] = []
        var pending: Set<ObjectIdentifier> = []
        var stopped = false
        var onEvent: (@Sendable (SourceEvent) -> Void)?
        var silenceWatch: Task<Void, Never>?
    }
    private let state = Mutex(State())

    package init(stallAfter: Duration = .seconds(5)) { self.stallAfter = stallAfter }

    /// Watches `source` from now on.
    package func watch(_ source: any RestartableSource) {
        state.withLock { $0.sources.append(source) }
        source.router.onLost { [weak self, weak source] reason in
            guard let self, let source else { return false }
            return self.lost(source, reason: reason)
        }
        // Not `source` itself: its router keeps this handler, and the source keeps the router.
        let label = source.router.label
        source.router.onBack { [weak self] outage in
            let away = (outage.end ?? outage.start) - outage.start
            self?.post(.back(source: label, away: away))
        }
    }

    /// Watches `fallback` from `start` on; its events go where the sources' go.
    package func watch(fallback: FallbackSwitch) {
        state.withLock { $0.fallbacks.append(fallback) }
        fallback.onEvent { [weak self] in self?.post($0) }
    }

    /// Sends what happens to `handler` (the run's events and log).
    package func onEvent(_ handler: @escaping @Sendable (SourceEvent) -> Void) { state.withLock { $0.onEvent = handler } }

    /// An error from the element named by `lineage` (innermost first): true if it came from
    /// a watched source that had delivered, and is now an outage being waited out.
    package func handleError(from lineage: [String], reason: String) -> Bool {
        let source = state.withLock { s in
            s.sources.first { source in lineage.contains { $0 == source.elementName || $0.hasPrefix(source.elementName + "-") } }
        }
        guard let source else { return false }
        return lost(source, reason: reason)
    }

    /// Stops reconnecting and watching (the run is ending).
    package func stop() {
        let (watch, fallbacks) = state.withLock { s in
            s.stopped = true
            return (s.silenceWatch, s.fallbacks)
        }
        watch?.cancel()
        for fallback in fallbacks { fallback.stop() }
    }

    /// Starts checking every second that each delivering source still delivers, until `stop`.
    package func start() {
        let task = watchForSilence()
        let fallbacks = state.withLock { s in
            s.silenceWatch = task
            return s.fallbacks
        }
        for fallback in fallbacks { fallback.start() }
    }

    private func watchForSilence() -> Task<Void, Never> {
        Task.detached { [weak self] in
            while !Task.isCancelled, let self, !self.state.withLock({ $0.stopped }) {
                try? await Task.sleep(for: .seconds(1))
                for source in self.state.withLock({ $0.sources }) {
                    guard let silent = source.router.health.silence(), silent > self.stallAfter else { continue }
                    _ = self.lost(source, reason: "no media for \(Int(silent.seconds)) s")
                }
            }
        }
    }

    /// Per source that had an outage or sent its fallback, for the summary; with `quiet`,
    /// every watched source (for metrics, which count from zero).
    package func report(quiet: Bool = false) -> [RunSummary.SourceReport] {
        let (sources, fallbacks) = state.withLock { ($0.sources, $0.fallbacks) }
        let now = ContinuousClock.now
        return sources.compactMap { source in
            let outages = source.router.health.history
            let label = source.router.label
            // The longest of its branches' fallbacks (video and audio go on air together).
            let shown = fallbacks.filter { $0.source == label }.map { $0.report(now: now) }.max { $0.seconds < $1.seconds }
            guard quiet || !outages.isEmpty || (shown?.times ?? 0) > 0 else { return nil }
            let away = outages.reduce(Duration.zero) { $0 + (($1.end ?? now) - $1.start) }
            return RunSummary.SourceReport(
                source: label, outages: outages.count, away_s: away.seconds,
                last_reason: outages.last?.reason ?? "", back: outages.last.map { $0.end != nil } ?? true,
                fallback_shown: shown?.times, fallback_s: shown?.seconds)
        }
    }

    /// Records the outage and schedules the next attempt, unless one is already waiting.
    /// False once the run is ending: an end of stream then is the drain's, and goes on.
    private func lost(_ source: any RestartableSource, reason: String) -> Bool {
        let id = ObjectIdentifier(source)
        let waiting = state.withLock { s -> Bool? in
            if s.stopped { return nil }
            return !s.pending.insert(id).inserted
        }
        guard let waiting else { return false }
        if waiting { return true }
        guard let attempt = source.router.health.lost(reason) else {
            state.withLock { _ = $0.pending.remove(id) }
            return false
        }
        let delay = SourceHealth.backoff(attempt: attempt, jitter: Double.random(in: -1...1))
        post(.lost(source: source.router.label, reason: reason, attempt: attempt, retryIn: delay))
        Task.detached { [weak self, weak source] in
            try? await Task.sleep(for: delay)
            guard let self, let source else { return }
            let go = self.state.withLock { s -> Bool in
                s.pending.remove(id)
                return !s.stopped
            }
            if go { self.reconnect(source) }
        }
        return true
    }

    /// Makes `source` again; a failure at once is the next attempt's reason.
    private func reconnect(_ source: any RestartableSource) {
        source.router.health.restarted()
        do { try source.restart() } catch { _ = lost(source, reason: error.message) }
    }

    private func post(_ event: SourceEvent) {
        state.withLock { $0.onEvent }?(event)
    }
}
