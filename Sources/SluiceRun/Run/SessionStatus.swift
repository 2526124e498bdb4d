import Foundation
import GStreamer
import Synchronization

/// Where a two-way session (a room, a Jingle call) stands, shared by its listener and the
/// run: negotiated yet, failed and why, ended by the other side and why, being left.
package final class SessionStatus: Sendable {
    /// Not negotiated yet, nothing failed or ended.
    package init() {}

    private struct State {
        var negotiated = false
        var failure: RunError?
        var endedBy: String?
        var leaving = false
    }
    private let state = Mutex(State())

    package func negotiated() { state.withLock { $0.negotiated = true } }

    /// The first failure counts; none counts once this side is leaving.
    package func fail(_ error: RunError) {
        state.withLock { if $0.failure == nil, !$0.leaving { $0.failure = error } }
    }

    /// The other side ended the session (the first reason counts).
    package func ended(by why: String) { state.withLock { if $0.endedBy == nil { $0.endedBy = why } } }

    package func leave() { state.withLock { $0.leaving = true } }
    package var isLeaving: Bool { state.withLock { $0.leaving } }
    package var endedBy: String? { state.withLock { $0.endedBy } }

    /// Waits until the session is negotiated (true), or stopped, ended or past `deadline`
    /// before that (false); throws its failure. Bounded by the run's own end (duration or
    /// Ctrl-C): a first peer waits for the second as long as the run lasts.
    package func waitUntilNegotiated(stop: StopFlag, deadline: ContinuousClock.Instant?) async throws(RunError) -> Bool {
        while true {
            let s = state.withLock { $0 }
            if let e = s.failure { throw e }
            if s.negotiated { return true }
            if s.endedBy != nil || stop.isSet { return false }
            if let deadline, ContinuousClock.now >= deadline { return false }
            try? await Task.sleep(for: .milliseconds(50))
        }
    }

    /// `RemoteSession.tick`: the failure, or why the other side ended the session.
    package func tick() throws(RunError) -> String? {
        let s = state.withLock { $0 }
        if let e = s.failure { throw e }
        return s.endedBy
    }
}
