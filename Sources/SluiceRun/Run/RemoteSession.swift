import Foundation
import Logging
import GStreamer
import SluiceSignalling
import Synchronization

/// A session with a remote peer found through a signalling service (WHIP/WHEP endpoint,
/// camera API, room server): negotiated once the pipeline plays, looked after while the
/// run goes on, ended when it stops.
public protocol RemoteSession: Sendable {
    /// Runs the offer/answer exchange. Returns false if `stop` was set before the other
    /// side turned up (a room's initiator waits for a second peer).
    func negotiate(stop: StopFlag, deadline: ContinuousClock.Instant?) async throws(RunError) -> Bool
    /// Called about five times a second while the run goes on. Returns why the run should
    /// stop when the other side ended the session; throws when the session failed.
    func tick() async throws(RunError) -> String?
    /// Ends the session (best effort: the other side may be gone).
    func end() async
    /// What the summary says about the session.
    var report: RunSummary.Session? { get }
    /// Adds what the session knows to the run's summary (by default `report`, as `session`).
    func fill(_ summary: inout RunSummary)
    /// Whether the other side may end the session (and so an error may be its leaving).
    var peerMayLeave: Bool { get }
    /// Offers made through this session so far.
    var offersMade: Int { get }
}

extension RemoteSession {
    /// By default: sets `summary.session` to `report`.
    public func fill(_ summary: inout RunSummary) { summary.session = report }
    /// By default: true.
    public var peerMayLeave: Bool { true }
    /// By default: 0.
    public var offersMade: Int { 0 }
}
