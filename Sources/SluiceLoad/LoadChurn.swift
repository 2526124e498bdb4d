import SluiceRun
import SluiceMeasure
/// Churn (`load.churn`): the share of the crowd that leaves and is replaced each minute,
/// as real audiences come and go. Once the whole crowd has started, every `interval` seconds
/// the client that has been connected longest leaves (its outcome `left_as_planned`, marked
/// `churned`) and a new client takes its place, staying until the crowd's planned end. The
/// service sees sessions created and ended at that pace under the crowd's load.
package struct LoadChurn: Sendable {
    /// Seconds between two replacements in this process.
    package let interval: Double
    /// The first replacement's id and the step between two, so that no two processes of a
    /// crowd collide: with P processes per host (the lane: one plus one per netem group),
    /// the process in lane L of shard I of N replaces with `clients + I·P + L`, then steps
    /// by `N·P`.
    package let firstID: Int
    package let idStep: Int

    /// Nil without churn (or without clients here).
    package init?(load: LoadSpec, shard: LoadRun.Shard?, lane: LoadRun.Shard, clientsHere: Int) {
        guard load.churnPerMinute > 0, clientsHere > 0 else { return nil }
        interval = 60 / (load.churnPerMinute * Double(clientsHere))
        firstID = load.clients + (shard?.index ?? 0) * lane.count + lane.index
        idStep = (shard?.count ?? 1) * lane.count
    }

    /// Replacements stay until the crowd's planned end (its last original client's start
    /// plus the duration); none starts less than this many seconds before that end.
    package static let minimumStay = 2.0
}

extension LoadRun {
    /// Replaces clients at `churn`'s pace until the crowd's planned end (or `stop`).
    package func churn(_ churn: LoadChurn, in group: inout TaskGroup<Void>, hub: LoadPublisherHub?, stop: StopFlag) async {
        let lastStart = Double(ids.last ?? 0) / load.rampPerSecond
        let plannedEnd = lastStart + load.durationSeconds
        var nextID = churn.firstID
        var next = clock.now + churn.interval
        while !stop.isSet, plannedEnd - next >= LoadChurn.minimumStay {
            while clock.now < next, !stop.isSet { try? await Task.sleep(for: .milliseconds(100)) }
            let stay = plannedEnd - clock.now
            guard !stop.isSet, stay >= LoadChurn.minimumStay else { return }
            next += churn.interval
            // The client connected longest leaves; one that has not connected yet stays.
            let leaving = crowd.withLock { c in
                c.running.values.filter { $0.observation.dtlsConnectedAt != nil && !$0.leaveEarly.isSet }
                    .min { ($0.observation.dtlsConnectedAt ?? 0) < ($1.observation.dtlsConnectedAt ?? 0) }
            }
            guard let leaving else { continue }
            leaving.leaveEarly.set()
            let id = nextID
            nextID += churn.idStep
            // The replacement joins the group of the client it replaces.
            let groupName = leaving.observation.group
            group.addTask { await self.runClient(id, group: groupName, hub: hub, stop: stop, stay: stay) }
        }
    }
}
