import Synchronization

/// Keeps a webrtcbin's teardown from running while its `get-stats` is being answered.
///
/// GStreamer 1.22.0's rtpsession empties its table of sources when it goes from PAUSED to
/// READY without taking the lock that `get-stats` walks that table under (fixed upstream in
/// 1.22.4: gstreamer merge request 4528). A viewer removed while its statistics were being
/// read could have GLib report `g_hash_table_foreach: assertion 'version ==
/// hash_table->version' failed`, or read a freed source. Each read enters the gate and
/// leaves it; the teardown closes it, and runs at once if no read is inside, else when the
/// last one leaves. No read starts once it is closed.
package final class StatsGate: Sendable {
    private struct State {
        var closed = false
        var inside = 0
        var teardown: (@Sendable () -> Void)?
    }
    private let state = Mutex(State())

    /// Enters for one read: false once the gate is closed (the read must not start).
    package func enter() -> Bool {
        state.withLock { s in
            guard !s.closed else { return false }
            s.inside += 1
            return true
        }
    }

    /// Leaves after a read; the last read out of a closed gate runs its teardown.
    package func leave() {
        let teardown = state.withLock { s -> (@Sendable () -> Void)? in
            s.inside -= 1
            guard s.inside == 0 else { return nil }
            defer { s.teardown = nil }
            return s.teardown
        }
        teardown?()
    }

    /// Closes the gate; `teardown` runs now if no read is inside, else when the last leaves.
    /// Only the first close's teardown runs.
    package func close(then teardown: @escaping @Sendable () -> Void) {
        let now = state.withLock { s -> Bool in
            guard !s.closed else { return false }
            s.closed = true
            guard s.inside > 0 else { return true }
            s.teardown = teardown
            return false
        }
        if now { teardown() }
    }
}
