import GStreamer
import Synchronization

/// The last group of pictures of a passthrough video stream: its latest keyframe and every
/// frame since.
///
/// A viewer that joins, or a connection that comes up, starts from it at once (`StartGate`)
/// instead of waiting for the source's next keyframe: IP cameras send one every 2–4 s and
/// many ignore keyframe requests. The cache holds references, not copies; it gives up on a
/// group (until the next keyframe) past `maxBuffers` or `maxBytes`.
package final class GOPCache: Sendable {
    /// At most this many frames are kept (20 s at 30 fps).
    package static let maxBuffers = 600
    /// At most this many bytes are kept.
    package static let maxBytes = 32 << 20

    private struct State {
        var frames: [Buffer] = []
        var bytes = 0
        /// The current group outgrew the limits: nothing is kept until the next keyframe.
        var overflowed = false
    }
    private let state = Mutex(State())
    private let replayed = Atomic<Int>(0)

    /// Keeps what passes `pad` (encoded, parsed video) from each keyframe on.
    package init(watching pad: Pad) {
        pad.addProbe(.buffer) { [weak self] (info: borrowing Pad.ProbeInfo) in
            if let self, let buffer = info.buffer { self.keep(buffer) }
            return .ok
        }
    }

    private func keep(_ buffer: borrowing BufferRef) {
        let keyframe = !buffer.isDeltaUnit, size = buffer.size
        state.withLock { s in
            if keyframe {
                s = State()
            } else if s.overflowed || s.frames.isEmpty {
                return
            }
            if s.frames.count >= Self.maxBuffers || s.bytes + size > Self.maxBytes {
                s = State(overflowed: true)
                return
            }
            s.frames.append(buffer.retained())
            s.bytes += size
        }
    }

    /// The frames of the current group that came before the buffer whose identity is
    /// `current` (`Pad.ProbeInfo.bufferIdentity`), its keyframe first; nil when `current`
    /// is not in the group (it is the keyframe itself, or older than the group), in which
    /// case the next keyframe is the place to start.
    package func frames(before current: UInt) -> [Buffer]? {
        state.withLock { s in
            guard let i = s.frames.firstIndex(where: { $0.identity == current }), i > 0 else { return nil }
            return Array(s.frames[..<i])
        }
    }

    /// Records that `count` cached frames were sent to start a peer.
    package func noteReplay(_ count: Int) { replayed.add(count, ordering: .relaxed) }
    /// Cached frames sent to start peers so far.
    package var replayedFrames: Int { replayed.load(ordering: .relaxed) }
}
