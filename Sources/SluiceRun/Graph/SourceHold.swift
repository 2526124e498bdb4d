import GStreamer
import Synchronization

/// Holds the buffers of a pipeline's paced sources (files and recordings: not live) at their
/// pacers until `release`. A playback made for one viewer (`POST /whep/<stream>?at=`) is held
/// until that viewer's connection is up, so it starts with the first frame it was asked for
/// instead of wherever the file had got to meanwhile; each pacer (clocksync, sync-to-first)
/// then times the playback from the first buffer it lets through. Events pass: the caps are
/// negotiated while the buffers wait.
package final class SourceHold: Sendable {
    private struct Held {
        var pad: Pad
        var probe: UInt
    }
    private struct State {
        var held: [Held] = []
        var released = false
    }
    private let state = Mutex(State())

    /// Nothing held yet.
    package init() {}

    /// Blocks the buffers arriving at `pad` until `release` (at once, after it).
    package func hold(_ pad: Pad) {
        state.withLock { s in
            guard !s.released else { return }
            let probe = pad.addProbe([.block, .buffer]) { (_: borrowing Pad.ProbeInfo) in .ok }
            s.held.append(Held(pad: pad, probe: probe))
        }
    }

    /// Lets every held source go on; later holds pass at once.
    package func release() {
        let held = state.withLock { s -> [Held] in
            s.released = true
            defer { s.held = [] }
            return s.held
        }
        for h in held { h.pad.removeProbe(h.probe) }
    }

    /// Whether `release` was called.
    package var isReleased: Bool { state.withLock { $0.released } }
}
