import GStreamer
import Logging
import Synchronization

/// Peers' keyframe requests (PLI, FIR) for a passthrough stream, which nothing upstream can
/// answer: RTSP has no way to ask a camera for one, and an SRT or RTMP encoder or an HLS
/// stream cannot be asked at all. They are counted, kept from travelling further, and
/// logged at most every `logInterval` (at 10% loss a viewer asks several times a second).
/// A viewer that joins still starts at once, from the cached group of pictures (`GOPCache`);
/// one that lost a keyframe waits for the source's next.
///
/// Sluice's own requests (a start gate opening, a viewer connecting) pass untouched: they
/// are not a peer's, and the cache answers them. While a fallback slate is on air, peers'
/// requests pass too: the slate's encoder answers them.
package final class PassthroughKeyframeRequests: Sendable {
    /// How often the log repeats that requests go unanswered.
    package static let logInterval: Duration = .seconds(10)
    private static let logger = Logger(label: "sluice.passthrough")

    private let unanswered = Atomic<Int>(0)
    /// While this says yes, something upstream can answer (a fallback's encoder is on air).
    private let answerer = Mutex<(@Sendable () -> Bool)?>(nil)
    private let lastLogged = Mutex<ContinuousClock.Instant?>(nil)

    /// Watches `output` (the passthrough queue's src pad) for upstream requests; `source`
    /// names the stream in the log.
    package init(watching output: Pad, source: String) {
        output.addProbe(.eventUpstream) { [self] (info: borrowing Pad.ProbeInfo) in
            guard info.eventName == "GstForceKeyUnit", let structure = info.eventStructure,
                structure.get(Event.originField, as: String.self) != KeyframeRequestLimiter.ownOrigin
            else { return .ok }
            if answerer.withLock({ $0 })?() == true { return .ok }
            let n = unanswered.add(1, ordering: .relaxed).newValue
            let now = ContinuousClock.now
            let due = lastLogged.withLock { last -> Bool in
                guard last.map({ now - $0 >= Self.logInterval }) ?? true else { return false }
                last = now
                return true
            }
            if due {
                Self.logger.warning(
                    "\(source): a viewer asked for a keyframe (\(n) so far); a passed-through stream gets one only when its source sends one")
            }
            return .drop
        }
    }

    /// Lets peers' requests travel upstream while `answers()` is true: a fallback slate is on
    /// air, and its encoder makes the keyframe they ask for.
    package func letThrough(while answers: @escaping @Sendable () -> Bool) { answerer.withLock { $0 = answers } }

    /// Requests from peers that went unanswered so far.
    package var count: Int { unanswered.load(ordering: .relaxed) }
}
