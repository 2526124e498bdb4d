import Foundation
import GStreamer
import Synchronization

/// Keeps peers' keyframe requests from becoming a storm: at most one reaches the encoder
/// per `interval`, and one that comes too soon is not lost but coalesced into a single
/// request sent when the interval has passed.
///
/// Requests arrive as upstream `GstForceKeyUnit` events at the encoder's output: from
/// webrtcbin when a peer sends PLI or FIR (one per viewer of a shared encoder, and at 10%
/// loss many a second), and from Sluice itself (a start gate opening, a viewer connecting,
/// the control API). Sluice's own carry `ownOrigin` and always pass at once: each stands
/// for someone waiting to start, or an operator who asked. They still count as the last
/// keyframe, so peers' requests right after them are folded. Each keyframe is several times
/// a delta frame; answering every PLI keeps a lossy link full of keyframes that are
/// themselves lost. Delaying a request by less than `interval` costs a viewer at most that
/// long before it can decode.
package final class KeyframeRequestLimiter: Sendable {
    /// Half a second: a 720p keyframe at 1 Mbit/s takes ~350 ms to send; two requests in less
    /// than that ask for a keyframe that cannot have arrived yet.
    package static let interval: Duration = .milliseconds(500)
    /// The `origin` Sluice's own requests carry (`Event.forceKeyUnit(origin:)`).
    package static let ownOrigin = "sluice"

    private struct State { var lastPassed: ContinuousClock.Instant?; var pending = false }
    private let state = Mutex(State())
    private let passed = Atomic<Int>(0)
    private let coalesced = Atomic<Int>(0)

    /// Watches `encoderOutput` (the encoder's src pad).
    package init(watching encoderOutput: Pad, interval: Duration = KeyframeRequestLimiter.interval) {
        encoderOutput.addProbe(.eventUpstream) { [self] (info: borrowing Pad.ProbeInfo) in
            guard info.eventName == "GstForceKeyUnit", let structure = info.eventStructure else { return .ok }
            let own = structure.get(Event.originField, as: String.self) == Self.ownOrigin
            let now = ContinuousClock.now
            let verdict = state.withLock { s -> (pass: Bool, scheduleIn: Duration?) in
                if !own, let last = s.lastPassed, now - last < interval {
                    defer { s.pending = true }
                    return (false, s.pending ? nil : interval - (now - last))
                }
                s.lastPassed = now
                s.pending = false
                return (true, nil)
            }
            if verdict.pass { passed.add(1, ordering: .relaxed); return .ok }
            coalesced.add(1, ordering: .relaxed)
            if let delay = verdict.scheduleIn {
                // The one request for everything that came too soon; it passes this probe
                // again once the interval is over. (A new reference to the pad, held only
                // until then: the probe itself must not own its pad.)
                let pad = info.padReference
                Task.detached {
                    try? await Task.sleep(for: delay)
                    pad.sendEvent(.forceKeyUnit())
                }
            }
            return .drop
        }
    }

    /// Requests passed to the encoder, and those folded into a later one.
    package var counts: (passed: Int, coalesced: Int) { (passed.load(ordering: .relaxed), coalesced.load(ordering: .relaxed)) }
}
