import SluiceRun
import SluiceMeasure
/// What `sluice load` reports for one run (or one shard of it): each client's figures, the
/// aggregates over the whole crowd and over each group, and the timeline second by second.
/// Written as JSON (`json()`, stable snake_case keys); shard reports merge exactly (`merge`).
public struct LoadReport: Sendable, Codable, Equatable, SummaryJSON {
    /// The pipeline file (its name).
    public var pipeline: String
    /// What the clients connected to (the WHEP URL, the room, ...).
    public var target: String
    /// What the clients were: `viewer`, `publisher` or `member` (of a call; nil in reports
    /// from before publishers: viewers).
    public var role: String?
    /// Publishers and members: the video frames their one shared encoder made (each sends
    /// every one it can take); nil for viewers. A merged report: the shards' added up.
    public var shared_encoder_frames: Int?
    /// Clients this report's process was to start (its shard's share; a merged report: the sum).
    public var clients_planned: Int
    /// How long the run lasted, seconds (a merged report: the longest shard).
    public var duration_s: Double
    /// The shard, `I/N` (nil: the whole run). A merged report of some shards of a run lists
    /// them, `1/4+2/4`; of all of them, nil.
    public var shard: String?
    /// The whole crowd.
    public var overall: LoadAggregate
    /// Each group (`load.groups`), by name; a run without groups has one, named "".
    public var groups: [LoadAggregate]
    /// Every client, by id.
    public var clients: [LoadClientRow]
    /// The run second by second.
    public var timeline: [LoadSecond]
    /// The load process's open files, threads and memory before and after the crowd (a
    /// merged report: the shards' added up); nil when not known.
    public var process: LoadProcessUse?

    /// The report of `observations` (clients still running end at `duration`), with the
    /// process's per-second `samples`.
    public init(
        pipeline: String, target: String, clientsPlanned: Int, duration: Double, shard: String? = nil,
        observations: [ClientObservation], samples: [ProcessSample] = []
    ) {
        self.pipeline = pipeline
        self.target = target
        clients_planned = clientsPlanned
        duration_s = duration
        self.shard = shard
        let sorted = observations.sorted { $0.id < $1.id }
        let rows = sorted.map { LoadClientRow($0, runEnd: duration) }
        clients = rows
        overall = LoadAggregate(group: nil, rows: rows, glassToGlass: Self.glassToGlass(sorted), heard: .init(sorted))
        groups = Set(rows.map(\.group)).sorted().map { name in
            let members = sorted.filter { $0.group == name }
            return LoadAggregate(
                group: name, rows: rows.filter { $0.group == name },
                glassToGlass: Self.glassToGlass(members), heard: .init(members))
        }
        timeline = LoadTimeline.build(sorted, samples: samples, duration: duration)
    }

    /// Every glass-to-glass delay the decoding clients among `observations` read, ms.
    private static func glassToGlass(_ observations: [ClientObservation]) -> LoadDistribution {
        var d = LoadDistribution()
        for o in observations where o.decodes {
            for ms in o.glassToGlassMs { d.record(ms) }
        }
        return d
    }

    /// The process exit status: 0 when every planned client started and succeeded (stayed as
    /// planned, or until the run was stopped), 3 otherwise (a refusal, a failure, a client lost
    /// or still running, or fewer clients than planned).
    public var exitCode: Int32 {
        overall.succeeded == overall.clients && overall.clients >= clients_planned ? 0 : 3
    }
}
