import SluiceRun
import SluiceMeasure
/// Churn for calls of two (`load.churn` with apprtc members): whole calls leave and are
/// replaced, since a member that left alone would end its partner's call and its replacement
/// would have nobody to call.
///
/// The schedule is the crowd's, not one process's, so that shards and netem lanes that each
/// run one member of a call agree without talking: once the whole crowd has started, every
/// `interval` seconds the oldest call leaves. Replacement `k` ends call `k` (members `2k` and
/// `2k + 1`, room `<room>-<k>`) and starts call `calls + k`: member `m` is replaced by member
/// `m + clients`, run by the process that ran `m`, in its group. Calls are numbered in the
/// order they started, so the oldest call is always the one connected longest.
package struct LoadCallChurn: Sendable {
    /// Seconds between two calls replaced, across the crowd.
    package let interval: Double
    /// The crowd's size: member `m` is replaced by member `m + clients`.
    package let clients: Int
    /// Seconds from the start to the crowd's last original member's start.
    package let lastStart: Double

    /// Nil without churn, or with fewer than one call.
    package init?(load: LoadSpec) {
        let calls = load.clients / 2
        guard load.churnPerMinute > 0, calls > 0 else { return nil }
        interval = 60 / (load.churnPerMinute * Double(calls))
        clients = load.clients
        lastStart = Double(load.clients - 1) / load.rampPerSecond
    }

    /// When replacement `k` (0, 1, …) happens, in seconds from the start.
    package func time(of k: Int) -> Double { lastStart + Double(k + 1) * interval }

    /// The members replacement `k` ends, and who replaces each.
    package func replacements(at k: Int) -> [(leaving: Int, joining: Int)] {
        [2 * k, 2 * k + 1].map { ($0, $0 + clients) }
    }
}

extension LoadRun {
    /// Replaces whole calls at `churn`'s pace until the crowd's planned end (or `stop`): for
    /// each member of the leaving call this process runs, the member leaves early and its
    /// replacement starts here, staying until the planned end.
    package func churnCalls(_ churn: LoadCallChurn, in group: inout TaskGroup<Void>, hub: LoadPublisherHub?, stop: StopFlag) async {
        let plannedEnd = churn.lastStart + load.durationSeconds
        // Member m descends from original member m % clients: this process runs it if it ran
        // that one, in that one's group.
        let originals = Set(ids)
        var k = 0
        while !stop.isSet, plannedEnd - churn.time(of: k) >= LoadChurn.minimumStay {
            let at = churn.time(of: k)
            while clock.now < at, !stop.isSet { try? await Task.sleep(for: .milliseconds(50)) }
            guard !stop.isSet else { return }
            let stay = plannedEnd - clock.now
            for (leaving, joining) in churn.replacements(at: k) where originals.contains(leaving % churn.clients) {
                crowd.withLock { $0.running[leaving] }?.leaveEarly.set()
                let groupName = load.group(ofClient: leaving % churn.clients)?.name ?? ""
                group.addTask { await self.runClient(joining, group: groupName, hub: hub, stop: stop, stay: stay) }
            }
            k += 1
        }
    }
}
