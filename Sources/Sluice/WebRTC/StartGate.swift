import GStreamer
import Synchronization

/// Drops the media a peer connection cannot carry yet, so a session starts with a fresh
/// picture instead of a burst of old ones.
///
/// Until DTLS is up, webrtcbin 1.22 holds RTP at its transport (its transport send bin blocks
/// the RTP pad until the handshake ends), and everything made meanwhile waits in the queues
/// before it: when the block lifts it all arrives at once, half a second of fast-forward at
/// the start (17 frames, 550 ms → 6 ms old, in `sluice measure` without warm-up). A gate on
/// the branch drops buffers instead until it is opened (events pass: caps and segments still
/// flow), optionally until the first keyframe after opening (or from a cached group of
/// pictures that leads up to the first frame after opening), then takes itself away.
final class StartGate: Sendable {
    private enum State: UInt8 { case closed, waitingForKeyframe, replaying, open }
    private let state = Atomic<UInt8>(State.closed.rawValue)
    private let waitsForKeyframe: Bool
    private let dropped = Atomic<Int>(0)
    private let cache: GOPCache?
    private let replayTarget: Pad?
    private let asksForKeyframe: Bool
    private let asked = Atomic<Bool>(false)

    /// Closes `pad` for buffers until `open()`. With `waitForKeyframe` (encoded video), it
    /// then also drops delta frames until a keyframe passes, unless `cache` (a passthrough
    /// stream's last group of pictures) holds the group the first delta frame belongs to:
    /// that group is sent first, so the peer starts at once. The group goes into `replayInto`
    /// (default `pad`): past a leaky queue after the gate, which would drop its start; that
    /// queue is empty then (the gate was closed) and the frame being held enters it after.
    /// `onFirstPass` runs (on the streaming thread) when the first buffer goes through.
    ///
    /// With `askForKeyframe` and a cache, the gate asks upstream for a keyframe (Sluice's own
    /// request, `KeyframeRequestLimiter.ownOrigin`) once the cache cannot start the peer (it holds
    /// no group the frame belongs to), the first time it drops a frame after opening. Without a
    /// cache, whoever opens the gate asks.
    init(
        on pad: Pad, waitForKeyframe: Bool, cache: GOPCache? = nil, replayInto: Pad? = nil,
        askForKeyframe: Bool = false, onFirstPass: (@Sendable () -> Void)? = nil
    ) {
        waitsForKeyframe = waitForKeyframe
        self.cache = cache
        self.replayTarget = replayInto
        self.asksForKeyframe = askForKeyframe && waitForKeyframe && cache != nil
        pad.addProbe(.buffer) { [self] (info: borrowing Pad.ProbeInfo) in
            switch State(rawValue: state.load(ordering: .acquiring)) ?? .open {
            case .closed:
                dropped.add(1, ordering: .relaxed)
                return .drop
            case .waitingForKeyframe:
                if info.buffer?.isDeltaUnit ?? false {
                    guard replay(before: info.bufferIdentity, from: info.padReference, into: replayTarget ?? info.padReference) else {
                        dropped.add(1, ordering: .relaxed)
                        askOnce(through: info.padReference)
                        return .drop
                    }
                }
                state.store(State.open.rawValue, ordering: .releasing)
                onFirstPass?()
                return .remove
            case .replaying:
                return .ok // a cached frame, sent by `replay`
            case .open:
                onFirstPass?()
                return .remove // passes this buffer; the probe costs nothing from here on
            }
        }
    }

    /// Sends the cached frames that precede the buffer `current` into `pad` (when that is the
    /// gate's own pad, this probe sees them again and lets them pass), from the streaming
    /// thread that is pushing `current`. A target past a queue may not have had the stream's
    /// sticky events yet (the queue's thread forwards them), so it first gets those it lacks
    /// from the gate's pad: an element must see stream-start, caps and segment before data.
    private func replay(before current: UInt?, from gate: Pad, into pad: Pad) -> Bool {
        guard let cache, let current, let frames = cache.frames(before: current) else { return false }
        state.store(State.replaying.rawValue, ordering: .releasing)
        if pad != gate {
            for event in gate.stickyEvents where !pad.hasStickyEvent(like: event) { pad.sendEvent(event) }
        }
        for frame in frames { pad.chain(frame) }
        cache.noteReplay(frames.count)
        return true
    }

    /// Lets media through from now on (from the next keyframe, if the gate waits for one).
    func open() {
        state.store((waitsForKeyframe ? State.waitingForKeyframe : State.open).rawValue, ordering: .releasing)
    }

    /// Asks upstream of `pad` for a keyframe, the first time only (if the gate asks at all).
    private func askOnce(through pad: Pad) {
        guard asksForKeyframe, asked.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged else { return }
        pad.pushEvent(.forceKeyUnit(origin: KeyframeRequestLimiter.ownOrigin))
    }

    /// Whether media passes.
    var isOpen: Bool { state.load(ordering: .acquiring) == State.open.rawValue }
    /// Buffers dropped so far.
    var droppedBuffers: Int { dropped.load(ordering: .relaxed) }
}
