import Foundation
import GStreamer
import Synchronization
import SluiceRun
import SluiceMeasure

/// A load run: the crowd a pipeline file's `load:` section describes (command-line options
/// override it), every client in one process, each with its own pipeline and webrtcbin. Clients start at the ramp's pace, stay their planned time and leave; the run
/// ends when the last one has (or at `stop`).
public final class LoadRun: Sendable {
    /// One shard of a crowd split over several processes: clients `index`, `index + count`, …
    public struct Shard: Sendable, Equatable {
        /// This shard's number, 0-based.
        public var index: Int
        /// How many shards the crowd is split into.
        public var count: Int

        /// Shard `index` of `count`.
        public init(index: Int, count: Int) { self.index = index; self.count = count }

        /// Whether client `id` is in this shard.
        public func contains(_ id: Int) -> Bool { id % count == index }
    }

    /// Which of the crowd's groups (`load.groups`) this process runs: groups with `netem`
    /// run in network namespaces of their own, each in a child process (`LoadNetemGroups`).
    public enum GroupSelection: Sendable, Equatable {
        /// Every group: a crowd without netem groups.
        case all
        /// The groups without netem; the others run in child processes.
        case withoutNetem
        /// Only netem group `number` (1-based, in file order among the netem groups): the
        /// child process in that group's namespace.
        case netemGroup(Int)

        /// Whether client `id` of `load` is run here.
        package func contains(_ id: Int, of load: LoadSpec) -> Bool {
            switch self {
            case .all: return true
            case .withoutNetem: return load.group(ofClient: id)?.netem == nil
            case .netemGroup(let n):
                let netem = load.netemGroups
                return netem.indices.contains(n - 1) && load.group(ofClient: id)?.name == netem[n - 1].name
            }
        }

        /// This process's lane among the crowd's processes on one host (0: the one running the
        /// groups without netem), of `count`: churn's replacements never share an id.
        package func lane(of load: LoadSpec) -> Shard {
            let count = 1 + load.netemGroups.count
            if case .netemGroup(let n) = self { return Shard(index: n, count: count) }
            return Shard(index: 0, count: count)
        }
    }

    /// What the run gathered: each client's observation and the process, second by second.
    public struct Result: Sendable {
        /// Every client this process ran, in id order.
        public var clients: [ClientObservation]
        /// The process's CPU and memory each second.
        public var process: [ProcessSample]
        /// Seconds from the run's start to its end.
        public var duration: Double
        /// The process before the first client and after the last one left.
        public var resources: Resources
        /// Whether the clients viewed or published.
        public var role: LoadRole
        /// The clients this process was to run (its shard and groups of the crowd).
        public var clientsPlanned: Int
        /// Publishers and call members: the video frames their shared encoder made; nil for viewers.
        public var sharedEncoderFrames: Int?
    }

    /// The process's open files, threads and memory before and after the crowd: what a run
    /// leaves behind (a client that leaks shows here).
    public struct Resources: Sendable {
        /// Before the first client started (nil: no procfs).
        public var start: ProcessMetrics.Sample?
        /// After the last client left and its pipeline was stopped.
        public var end: ProcessMetrics.Sample?
    }

    package let spec: PipelineSpec
    package let load: LoadSpec
    package let shard: Shard?
    package let groupsHere: GroupSelection
    package let adapter: any LoadAdapter
    /// Whether the clients view or publish (from the file's sections).
    public let role: LoadRole
    package let clock = LoadClock()
    /// The crowd: the clients running now, and what those that ended saw (their pipelines
    /// are gone), with those that could not even be made (their webrtcbin or session).
    package struct Crowd {
        package var running: [Int: LoadClient] = [:]
        package var ended: [ClientObservation] = []
    }
    package let crowd = Mutex(Crowd())

    /// Every client's observation so far: running and ended.
    package var observations: [ClientObservation] {
        crowd.withLock { $0.running.values.map(\.observation) + $0.ended }
    }

    /// A running client, by id.
    package func client(_ id: Int) -> LoadClient? { crowd.withLock { $0.running[id] } }

    /// Checks that `spec` can be loaded: a transport kind `sluice load` drives, and the
    /// section its role needs. `groups`: which of the crowd's groups run in this process.
    public init(spec: PipelineSpec, load: LoadSpec, shard: Shard? = nil, groups: GroupSelection = .all) throws(RunError) {
        guard let adapter = LoadAdapters.adapter(for: spec.transport.kind) else {
            throw RunError(
                "sluice load drives transport kind \(LoadAdapters.kindsPhrase); this file's is '\(spec.transport.kind.rawValue)'",
                at: spec.transport.location)
        }
        role = try adapter.role(for: spec)
        try adapter.check(load, for: spec)
        self.spec = spec
        self.load = load
        self.shard = shard
        self.groupsHere = groups
        self.adapter = adapter
    }

    /// The load groups this process has clients of.
    private var groupsOfClientsHere: [LoadGroup] {
        let names = Set(ids.compactMap { load.group(ofClient: $0)?.name })
        return load.groups.filter { names.contains($0.name) }
    }

    /// The file as client `id` runs it: with its group's transport, if the group sets one.
    package func spec(forClient id: Int) -> PipelineSpec {
        guard let transport = load.group(ofClient: id)?.transport else { return spec }
        var own = spec
        own.transport = transport
        return own
    }

    /// The ids of the clients this process runs.
    package var ids: [Int] { (0..<load.clients).filter { (shard?.contains($0) ?? true) && groupsHere.contains($0, of: load) } }

    /// Runs the crowd; `onSecond` gets the progress once a second (from a task, not the
    /// media path). Returns when every client has ended.
    public func run(stop: StopFlag, onSecond: @escaping @Sendable (LoadProgress) -> Void = { _ in }) async throws(RunError) -> Result {
        let start = ProcessMetrics.read()
        // Publishers and call members share one capture and encoder, running from before
        // the first of them.
        let hub = role != .viewer && !ids.isEmpty ? try LoadPublisherHub(spec: spec, groups: groupsOfClientsHere, onMessage: busHandler) : nil
        let ticker = LoadTicker(run: self, onSecond: onSecond)
        let tick = Task { await ticker.run(stop: stop) }
        await withTaskGroup(of: Void.self) { group in
            for id in ids {
                let startAt = Double(id) / load.rampPerSecond
                while clock.now < startAt, !stop.isSet { try? await Task.sleep(for: .milliseconds(min(100, Int((startAt - clock.now) * 1000) + 1))) }
                if stop.isSet { break }
                let groupName = self.load.group(ofClient: id)?.name ?? ""
                group.addTask { await self.runClient(id, group: groupName, hub: hub, stop: stop, stay: self.load.durationSeconds) }
            }
            // Members of calls leave and are replaced a call at a time, on the crowd's schedule.
            if role == .member, let calls = LoadCallChurn(load: load) {
                await churnCalls(calls, in: &group, hub: hub, stop: stop)
            } else if let churn = LoadChurn(load: load, shard: shard, lane: groupsHere.lane(of: load), clientsHere: ids.count) {
                await self.churn(churn, in: &group, hub: hub, stop: stop)
            }
        }
        ticker.finish()
        await tick.value
        let clients = observations.sorted { $0.id < $1.id }
        let encoded = hub?.encodedVideoFrames
        _ = consume hub // the shared encoder stops before the process's resources are read
        let duration = clock.now
        return Result(
            clients: clients, process: ticker.samples, duration: duration,
            resources: LoadRun.Resources(start: start, end: await Self.settledSample()), role: role, clientsPlanned: ids.count,
            sharedEncoderFrames: encoded)
    }

    /// The process once the last clients' threads have ended: GStreamer's streaming threads
    /// stop as their pipelines go to NULL, but some end a moment later (sampled just after
    /// the crowd, a run once showed 55 threads "left behind" that were gone a second later).
    /// Waits until two readings 200 ms apart agree on the threads and open files, at most 3 s.
    package static func settledSample() async -> ProcessMetrics.Sample? {
        var last = ProcessMetrics.read()
        let until = ContinuousClock.now + .seconds(3)
        while ContinuousClock.now < until {
            try? await Task.sleep(for: .milliseconds(200))
            let now = ProcessMetrics.read()
            if now?.threads == last?.threads, now?.openFDs == last?.openFDs { return now }
            last = now
        }
        return last
    }

    /// The client's media: a viewer's own pipeline, or a publisher's or call member's
    /// branch of `hub`.
    private func makeMedia(_ id: Int, decodes: Bool, hub: LoadPublisherHub?, record: LoadFrameRecorder) throws(RunError) -> any LoadClientMedia {
        let timeout = spec.transport.ice.connectTimeout
        let group = load.group(ofClient: id)
        switch (role, hub) {
        case (.member, let hub?):
            let turns = adapter.mixesAudio(of: spec) ? SpeakingTurns(member: id, of: load, sending: spec) : nil
            return try LoadMemberMedia(
                client: id, group: group?.name, decodes: decodes, hub: hub, connectTimeout: timeout, record: record, turns: turns)
        case (.publisher, let hub?):
            return try LoadPublisherMedia(client: id, group: group?.name, hub: hub, connectTimeout: timeout, record: record)
        case (.viewer, _):
            return try LoadViewerMedia(
                client: id, group: group, decodes: decodes, spec: spec(forClient: id),
                offer: adapter.serviceOffers(as: role) ? nil : adapter.viewerOffer(for: spec(forClient: id)), record: record, onMessage: busHandler)
        case (.member, nil), (.publisher, nil):
            throw RunError("\(role.rawValue)s send the crowd's shared stream, which was not built")
        }
    }

    /// One client of `group` from its start to its end; a client that cannot be made ends
    /// as failed.
    package func runClient(_ id: Int, group: String, hub: LoadPublisherHub?, stop: StopFlag, stay: Double) async {
        var plan = LoadClient.Plan(stay: stay, connectTimeout: spec.transport.ice.connectTimeout)
        if spec.receive?.video == nil, spec.receive?.audio != nil { plan.watched = .audio }
        let client: LoadClient
        let session: any LoadSession
        do {
            session = try adapter.session(for: spec(forClient: id), role: role, client: id)
            let decodes = role != .publisher && load.decode.decodes(client: id)
            client = try LoadClient(id: id, group: group, decodes: decodes, clock: clock) { record throws(RunError) in
                try makeMedia(id, decodes: decodes, hub: hub, record: record)
            }
        } catch {
            var failed = ClientObservation(id: id, group: group, decodes: false, startedAt: clock.now)
            failed.outcome = .failedToConnect(reason: error.message)
            failed.endedAt = failed.startedAt
            crowd.withLock { [failed] in $0.ended.append(failed) }
            return
        }
        crowd.withLock { $0.running[id] = client }
        await client.live(session: session, plan: plan, stop: stop, clock: clock)
        // Its observation moves to `ended` and its pipeline goes: a long run with churning
        // clients holds each one's figures, not its elements.
        crowd.withLock { c in
            c.running[id] = nil
            c.ended.append(client.observation)
        }
        client.remove()
    }
}

extension LoadRun.Shard {
    /// A shard from `I/N` (1-based on the command line: `1/2` is the first of two); nil
    /// unless 1 ≤ I ≤ N.
    public init?(_ text: String) {
        let parts = text.split(separator: "/")
        guard parts.count == 2, let i = Int(parts[0]), let n = Int(parts[1]), n >= 1, (1...n).contains(i) else { return nil }
        self.init(index: i - 1, count: n)
    }
}
