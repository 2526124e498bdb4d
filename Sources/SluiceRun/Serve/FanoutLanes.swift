import Foundation
import GStreamer
import Synchronization

/// The viewers of one `tee`, spread over a few threads instead of one each.
///
/// A branch of its own per viewer (tee → leaky queue → payloader → webrtcbin) gives every
/// viewer a streaming thread, and every buffer then wakes N threads: with 80 viewers of a
/// 720p stream that waking (futex wait and wake, the scheduler's switch) was about a tenth
/// of the server's CPU. A lane is one leaky queue and a tee of its own, off the stream's tee;
/// its thread pushes each buffer through the branches of all the viewers it carries, one
/// after another. Viewers go to the lane that carries fewest, and there are a few lanes per
/// core (`perCore`), so the branches still run in parallel.
///
/// What a viewer's own queue did, a lane does for its viewers together: it drops buffers
/// (the oldest first) when its thread falls behind, and counts each drop for each of them.
/// A viewer's branch never blocks (webrtcbin's transport only holds data before DTLS is up,
/// and a viewer's start gate drops everything before that), and a branch that fails is cut
/// off at its lane's tee pad (`Pad.isolate`), so one viewer cannot stop the others.
package final class FanoutLanes: Sendable {
    /// One lane: the queue and tee it adds off the stream's tee, while any viewer uses it.
    package final class Lane: Sendable {
        /// Built for its first viewer, removed after its last.
        package let branch: SharedBranch
        private let dropped: Counter
        /// Buffers its queue dropped because its thread was behind (each one was lost to
        /// every viewer the lane carried then).
        package var overruns: Int { dropped.value.load(ordering: .relaxed) }

        fileprivate init(branch: SharedBranch, dropped: Counter) {
            self.branch = branch
            self.dropped = dropped
        }
    }

    /// A viewer's place on a lane: the lane's tee to take a pad from, and the lane to release
    /// when it leaves.
    package struct Seat: Sendable {
        package var lane: Lane
        package var tee: Element

        /// Gives the seat back, once the viewer's pad on `tee` is released; the lane's last
        /// viewer leaving removes it.
        package func leave() { lane.branch.release() }
    }

    /// Lanes per core by default: fewer threads than viewers, so few wake-ups per buffer, but
    /// more than the cores, so that a process busy with other threads still gives the lanes
    /// their share of the CPU (measured: 2 and 8 lanes cost the same here).
    package static let perCore = 4

    private let lanes: [Lane]

    /// Lanes off `tee` in `pipeline`, at most `count` (default: `perCore` per core).
    package init(tee: Element, in pipeline: Pipeline, count: Int = FanoutLanes.perCore * ProcessInfo.processInfo.activeProcessorCount) {
        lanes = (0..<max(1, count)).map { _ in
            let dropped = Counter()
            let branch = SharedBranch(in: pipeline) { () throws(RunError) -> SharedBranch.Built in
                try Self.buildLane(off: tee, in: pipeline) { dropped.add() }
            }
            return Lane(branch: branch, dropped: dropped)
        }
    }

    /// A seat on the lane that carries fewest viewers, its queue and tee built now if it had
    /// none. Each seat must be given back (`Seat.leave()`) once the viewer's pad on its tee is
    /// released.
    package func join() throws(GstError) -> Seat {
        guard let lane = lanes.min(by: { $0.branch.users < $1.branch.users }) else {
            throw GstError("a stream has no lane for viewers")
        }
        do { return Seat(lane: lane, tee: try lane.branch.acquire()) } catch { throw GstError(error.message) }
    }

    /// Viewers on each lane now.
    package var occupancy: [Int] { lanes.map(\.branch.users) }

    /// No viewer is on any lane (none of them has elements in the pipeline).
    package var isEmpty: Bool { lanes.allSatisfy { $0.branch.users == 0 } }

    /// tee pad → queue (leaky, 30 buffers) → tee, added to `pipeline`, linked and playing.
    private static func buildLane(
        off tee: Element, in pipeline: Pipeline, overrun: @escaping @Sendable () -> Void
    ) throws(RunError) -> SharedBranch.Built {
        do throws(GstError) {
            let queue = try ViewerBranch.leakyQueue()
            queue.connect("overrun") { (_: borrowing SignalArguments) in overrun() }
            let laneTee = try Element.make("tee")
            try laneTee.set("allow-not-linked", true)
            try pipeline.add([queue, laneTee])
            try queue.link(laneTee)
            guard let pad = tee.requestPad("src_%u"), let entrance = queue.staticPad("sink") else {
                throw GstError("the stream's tee gave no pad for a lane")
            }
            for e in [laneTee, queue] { e.syncStateWithParent() }
            // As for a viewer: a lane's (re)negotiation must not reach the encoder, and its
            // queue refusing a buffer (flushing, while it is being removed) must not stop the
            // stream's tee, which would stop pushing to the other lanes.
            pad.dropReconfigure()
            pad.isolate(into: entrance) { _ in }
            try pad.link(entrance)
            return SharedBranch.Built(output: laneTee, elements: [queue, laneTee], input: (tee, pad))
        } catch {
            throw RunError("cannot add a lane for viewers: \(error.message)")
        }
    }

    /// A count shared by a lane and its queue's `overrun` handler.
    fileprivate final class Counter: Sendable {
        let value = Atomic<Int>(0)
        func add() { value.add(1, ordering: .relaxed) }
    }
}
