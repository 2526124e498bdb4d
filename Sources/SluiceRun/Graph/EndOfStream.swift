import Foundation
import GStreamer
import Synchronization

/// End-of-stream sent into a running pipeline, and its arrival where it matters (receive
/// sinks, so recordings are finalized), with bounded waits.
///
/// The send runs on a thread of its own: sending EOS waits for each source's streaming lock,
/// and a streaming thread can be held for good inside webrtcbin (an input whose media the
/// negotiation rejected stays blocked). Waiting for it in a task would hang the caller; after
/// the wait the caller goes to NULL, which unblocks that thread and the send with it.
package final class EndOfStream: Sendable {
    private let sent = StopFlag()
    private let remaining: Atomic<Int>

    /// Watches `sinks` for EOS (each probe removes itself after its EOS), then starts `send`.
    package init(arrivingAt sinks: [Pad], send: @escaping @Sendable () -> Void) {
        remaining = Atomic(sinks.count)
        for pad in sinks {
            pad.addProbe(.eventDownstream) { [self] (info: borrowing Pad.ProbeInfo) in
                if info.event == .eos { remaining.subtract(1, ordering: .relaxed); return .remove }
                return .ok
            }
        }
        let sent = sent
        Thread.detachNewThread {
            send()
            sent.set()
        }
    }

    /// Whether `send` has returned.
    package var isSent: Bool { sent.isSet }
    /// Sinks that have not seen EOS yet.
    package var pending: Int { remaining.load(ordering: .relaxed) }

    /// Waits until `send` returned and every sink saw EOS, or `timeout` seconds.
    package func wait(timeout: Double) async {
        let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
        while (pending > 0 || !isSent) && ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Waits until `send` returned, or `timeout` seconds.
    package func waitUntilSent(timeout: Double) async {
        let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
        while !isSent && ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(20)) }
    }
}
