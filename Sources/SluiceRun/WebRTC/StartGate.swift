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
///
/// A gate can also be *readied* shortly before its connection comes up (`ready()`: the
/// offer and answer are set, ICE and DTLS are under way) while whoever readies it asks the
/// encoder for a keyframe. From then on it keeps the newest keyframe and the frames after it
/// (`StartHold`) instead of dropping them, and `open()` sends them at once: the keyframe is
/// made while ICE and DTLS finish, instead of after them (the next capture and its encoding,
/// 20–40 ms at 30 fps).
package final class StartGate: Sendable {
    private enum State: UInt8 { case closed, holding, waitingForKeyframe, replaying, open }
    private let state = Atomic<UInt8>(State.closed.rawValue)
    private let waitsForKeyframe: Bool
    private let dropped = Atomic<Int>(0)
    private let cache: GOPCache?
    private let replayTarget: Pad?
    private let asksForKeyframe: Bool
    private let asked = Atomic<Bool>(false)
    private let hold = Mutex(StartHold())
    private let onFirstPass: (@Sendable () -> Void)?

    /// Closes `pad` for buffers until `open()`. With `waitForKeyframe` (encoded video), it
    /// then also drops delta frames until a keyframe passes, unless `cache` (a passthrough
    /// stream's last group of pictures) holds the group the first delta frame belongs to:
    /// that group is sent first, so the peer starts at once. The group goes into `replayInto`
    /// (default `pad`): past a leaky queue after the gate, which would drop its start; that
    /// queue is empty then (the gate was closed) and the frame being held enters it after.
    /// `onFirstPass` runs (on the streaming thread, or on the thread that opens the gate when
    /// it sends held frames) when the first buffer goes through.
    ///
    /// With `askForKeyframe` and a cache, the gate asks upstream for a keyframe (Sluice's own
    /// request, `KeyframeRequestLimiter.ownOrigin`) once the cache cannot start the peer (it holds
    /// no group the frame belongs to), the first time it drops a frame after opening. Without a
    /// cache, whoever opens the gate asks.
    package init(
        on pad: Pad, waitForKeyframe: Bool, cache: GOPCache? = nil, replayInto: Pad? = nil,
        askForKeyframe: Bool = false, onFirstPass: (@Sendable () -> Void)? = nil
    ) {
        waitsForKeyframe = waitForKeyframe
        self.cache = cache
        self.replayTarget = replayInto
        self.asksForKeyframe = askForKeyframe && waitForKeyframe && cache != nil
        self.onFirstPass = onFirstPass
        pad.addProbe(.buffer) { [self] (info: borrowing Pad.ProbeInfo) in decide(info) }
    }

    private func decide(_ info: borrowing Pad.ProbeInfo) -> Pad.ProbeReturn {
        switch State(rawValue: state.load(ordering: .acquiring)) ?? .open {
        case .closed:
            dropped.add(1, ordering: .relaxed)
            return .drop
        case .holding:
            if let buffer = info.buffer, keep(buffer) { return .drop }
            // Opened meanwhile (the gate sits before a queue, `open()` replays past it).
            return decide(info)
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
            return .ok // a held or cached frame, or one queued behind them
        case .open:
            onFirstPass?()
            return .remove // passes this buffer; the probe costs nothing from here on
        }
    }

    /// Keeps `buffer` while the gate holds (false: the gate is no longer holding).
    private func keep(_ buffer: borrowing BufferRef) -> Bool {
        hold.withLock { h in
            guard state.load(ordering: .acquiring) == State.holding.rawValue else { return false }
            if !h.keep(buffer.retained(), keyframe: !buffer.isDeltaUnit) { dropped.add(1, ordering: .relaxed) }
            return true
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
        Self.forwardStickyEvents(from: gate, to: pad)
        for frame in frames { pad.chain(frame) }
        cache.noteReplay(frames.count)
        return true
    }

    private static func forwardStickyEvents(from gate: Pad, to pad: Pad) {
        guard pad != gate else { return }
        for event in gate.stickyEvents where !pad.hasStickyEvent(like: event) { pad.sendEvent(event) }
    }

    /// Keeps the newest keyframe and what follows it from now until `open()` (video gates
    /// without a cache; others ignore it). Whoever readies the gate asks for the keyframe.
    /// False if the gate does not hold (no keyframes to wait for, a cached source, or
    /// already open).
    @discardableResult
    package func ready() -> Bool {
        guard waitsForKeyframe, cache == nil else { return false }
        return hold.withLock { h in
            guard
                state.compareExchange(
                    expected: State.closed.rawValue, desired: State.holding.rawValue, ordering: .acquiringAndReleasing
                ).exchanged
            else { return false }
            h.readiedAt = .now
            return true
        }
    }

    /// How a gate opened: what its branch starts from.
    package enum Opening: Equatable {
        /// Media passes as it comes (audio), or from a cached group of pictures.
        case asItComes
        /// The held keyframe and the frames after it were sent.
        case fromHeldKeyframe
        /// The keyframe asked for when the gate was readied is not made yet: it passes when it is.
        case keyframeUnderWay
        /// From the next keyframe: ask the encoder for one now.
        case needsKeyframe
    }

    /// Lets media through from now on (from the next keyframe, if the gate waits for one).
    /// A readied gate first sends what it holds into `pad` (its replay target, else the pad it
    /// sits on, which the caller passes), if that starts at a keyframe younger than
    /// `StartHold.maxAge`.
    @discardableResult
    package func open(at pad: Pad? = nil) -> Opening {
        guard let target = replayTarget ?? pad else {
            let underWay = hold.withLock { h in h.take().underWay }
            state.store((waitsForKeyframe ? State.waitingForKeyframe : State.open).rawValue, ordering: .releasing)
            return withoutHeldFrames(keyframeUnderWay: underWay)
        }
        return target.withStreamLock {
            let taken = hold.withLock { h -> StartHold.Taken in
                let taken = h.take()
                let next: State = !taken.frames.isEmpty ? .replaying : waitsForKeyframe ? .waitingForKeyframe : .open
                state.store(next.rawValue, ordering: .releasing)
                return taken
            }
            guard !taken.frames.isEmpty else { return withoutHeldFrames(keyframeUnderWay: taken.underWay) }
            if let gate = pad, gate != target { Self.forwardStickyEvents(from: gate, to: target) }
            onFirstPass?()
            for frame in taken.frames { target.chain(frame) }
            state.store(State.open.rawValue, ordering: .releasing)
            return .fromHeldKeyframe
        }
    }

    /// How a gate that sent nothing held opened.
    private func withoutHeldFrames(keyframeUnderWay: Bool) -> Opening {
        guard waitsForKeyframe, cache == nil else { return .asItComes }
        return keyframeUnderWay ? .keyframeUnderWay : .needsKeyframe
    }

    /// Asks upstream of `pad` for a keyframe, the first time only (if the gate asks at all).
    private func askOnce(through pad: Pad) {
        guard asksForKeyframe, asked.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged else { return }
        pad.pushEvent(.forceKeyUnit(origin: KeyframeRequestLimiter.ownOrigin))
    }

    /// Whether media passes.
    package var isOpen: Bool { state.load(ordering: .acquiring) == State.open.rawValue }
    /// Buffers dropped so far.
    package var droppedBuffers: Int { dropped.load(ordering: .relaxed) }
}

/// What a readied `StartGate` keeps: the newest keyframe and every frame since, while the
/// connection comes up.
package struct StartHold {
    /// Held frames older than this when the gate opens are not sent: a burst of old frames
    /// would show as fast-forward (the connection took longer than a keyframe's encoding).
    /// Also how long a keyframe asked for when the gate was readied is waited for.
    package static let maxAge: Duration = .milliseconds(200)
    /// At most this many frames are held (past it, the hold waits for the next keyframe).
    package static let maxFrames = 30

    private var frames: [Buffer] = []
    private var since: ContinuousClock.Instant?
    /// When the gate was readied (and a keyframe asked for).
    package var readiedAt: ContinuousClock.Instant?

    /// What `take()` found.
    package struct Taken {
        /// The held frames, keyframe first (empty if none, or too old).
        package var frames: [Buffer]
        /// Nothing was held yet, but the keyframe asked for on readying is recent enough to wait for.
        package var underWay: Bool
    }

    /// Keeps `buffer`: a keyframe starts the hold anew, a delta frame joins a held keyframe's.
    /// False when it was not kept (a delta frame with no keyframe before it, or too many).
    package mutating func keep(_ buffer: Buffer, keyframe: Bool) -> Bool {
        if keyframe {
            frames = [buffer]
            since = .now
            return true
        }
        guard !frames.isEmpty, frames.count < Self.maxFrames else {
            frames = []
            return false
        }
        frames.append(buffer)
        return true
    }

    /// The held frames if they are young enough to send; empties the hold.
    package mutating func take() -> Taken {
        defer { frames = []; since = nil; readiedAt = nil }
        let now = ContinuousClock.now
        if let since, now - since <= Self.maxAge { return Taken(frames: frames, underWay: false) }
        let underWay = since == nil && readiedAt.map { now - $0 <= Self.maxAge } == true
        return Taken(frames: [], underWay: underWay)
    }
}
