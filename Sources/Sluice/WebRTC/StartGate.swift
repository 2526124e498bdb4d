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
/// flow), optionally until the first keyframe after opening, then takes itself away.
final class StartGate: Sendable {
    private enum State: UInt8 { case closed, waitingForKeyframe, open }
    private let state = Atomic<UInt8>(State.closed.rawValue)
    private let waitsForKeyframe: Bool
    private let dropped = Atomic<Int>(0)

    /// Closes `pad` for buffers until `open()`. With `waitForKeyframe` (encoded video), it
    /// then also drops delta frames until a keyframe passes.
    /// `onFirstPass` runs (on the streaming thread) when the first buffer goes through.
    init(on pad: Pad, waitForKeyframe: Bool, onFirstPass: (@Sendable () -> Void)? = nil) {
        waitsForKeyframe = waitForKeyframe
        pad.addProbe(.buffer) { [self] (info: borrowing Pad.ProbeInfo) in
            switch State(rawValue: state.load(ordering: .acquiring)) ?? .open {
            case .closed:
                dropped.add(1, ordering: .relaxed)
                return .drop
            case .waitingForKeyframe:
                if info.buffer?.isDeltaUnit ?? false {
                    dropped.add(1, ordering: .relaxed)
                    return .drop
                }
                state.store(State.open.rawValue, ordering: .releasing)
                onFirstPass?()
                return .remove
            case .open:
                onFirstPass?()
                return .remove // passes this buffer; the probe costs nothing from here on
            }
        }
    }

    /// Lets media through from now on (from the next keyframe, if the gate waits for one).
    func open() {
        state.store((waitsForKeyframe ? State.waitingForKeyframe : State.open).rawValue, ordering: .releasing)
    }

    /// Whether media passes.
    var isOpen: Bool { state.load(ordering: .acquiring) == State.open.rawValue }
    /// Buffers dropped so far.
    var droppedBuffers: Int { dropped.load(ordering: .relaxed) }
}
