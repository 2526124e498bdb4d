import SluiceRun
import SluiceMeasure
/// A crowd of load clients summed up (the whole run, or one group): how they ended, and the
/// distributions across them of the times to connect and to the first frame, the frame rate
/// and the freeze rate, with every glass-to-glass delay they read. Aggregates of disjoint
/// crowds add up exactly (`add`), which is how shard reports merge.
public struct LoadAggregate: Sendable, Codable, Equatable {
    /// One reason clients failed for, and how many gave it.
    public struct Failure: Sendable, Codable, Equatable {
        /// The outcome: refused, failed to connect or service gone.
        public var outcome: ClientOutcome.Kind
        /// The reason, as the client recorded it.
        public var reason: String
        /// Clients that ended so.
        public var clients: Int
    }

    /// The group; nil for the whole run.
    public var group: String?
    /// Clients in the report.
    public var clients = 0
    /// Clients that succeeded: stayed as planned, or until the run was stopped early.
    public var succeeded = 0
    /// Those of them the run's stop cut short (`stopped_early`).
    public var stopped_early = 0
    /// Clients still running when the report was made.
    public var running = 0
    /// Clients the service refused.
    public var refused = 0
    /// Clients that never connected.
    public var failed_to_connect = 0
    /// Clients that lost the service after connecting.
    public var service_gone = 0
    /// `succeeded / clients`, 0 to 1 (nil without clients).
    public var success_rate: Double?
    /// Frames the clients received.
    public var frames = 0
    /// Freezes they saw.
    public var freezes = 0
    /// The freezes' total duration, seconds.
    public var freeze_s = 0.0
    /// Request to ICE connected, ms, across the clients that connected.
    public var connect_ms = LoadDistribution()
    /// Request to ICE and DTLS connected, ms, across the clients that got there.
    public var dtls_ms = LoadDistribution()
    /// Request to the first frame, ms, across the clients that received one.
    public var time_to_first_frame_ms = LoadDistribution()
    /// Steady frames per second, across the clients that connected (`LoadClientRow.fps`).
    public var fps = LoadDistribution()
    /// Freezes per minute of video, across the clients with enough video (`LoadClientRow.freezes_per_minute`).
    public var freezes_per_minute = LoadDistribution()
    /// Every glass-to-glass delay read by a decoding client, ms.
    public var glass_to_glass_ms = LoadDistribution()
    /// Request to the first audio packet, ms, across the clients that received audio.
    public var time_to_first_audio_ms = LoadDistribution()
    /// Missing audio (lost packets' sound) per minute of audio, ms, across the clients with
    /// enough audio (`LoadClientRow.Audio.missing_ms_per_minute`).
    public var missing_audio_ms_per_minute = LoadDistribution()
    /// Every mouth-to-ear delay read by a decoding client, ms.
    public var mouth_to_ear_ms = LoadDistribution()
    /// Every A/V offset of a decoding client's audio stamps, ms (audio minus video; positive:
    /// audio late); kept from -1000 ms up, to 4 digits.
    public var av_offset_ms = LoadAggregate.avOffsetDistribution()
    /// Each distinct failure with its count, most frequent first.
    public var failures: [Failure] = []
    /// Clients by the picture size of the latest keyframe they received (`"640x360": 10`):
    /// the layer a simulcast server gave them. nil: none saw a keyframe.
    public var video_sizes: [String: Int]?

    /// An empty A/V offset distribution: signed, from -1 s, 4 digits (0.1 ms near 0).
    public static func avOffsetDistribution() -> LoadDistribution { LoadDistribution(scale: 1000, significantDigits: 4, origin: -1000) }

    /// Every mouth-to-ear delay and A/V offset the decoding clients among `observations` read.
    package struct Heard {
        package var mouthToEar = LoadDistribution()
        package var avOffset = LoadAggregate.avOffsetDistribution()
        package init() {}
        package init(_ observations: [ClientObservation]) {
            for o in observations where o.decodes {
                guard let a = o.audio else { continue }
                for ms in a.mouthToEarMs { mouthToEar.record(ms) }
                for ms in a.pairing.offsets { avOffset.record(ms) }
            }
        }
    }

    /// The aggregate of `rows`, with their clients' glass-to-glass delays and what they heard.
    package init(group: String?, rows: [LoadClientRow], glassToGlass: LoadDistribution, heard: Heard = Heard()) {
        self.group = group
        glass_to_glass_ms = glassToGlass
        mouth_to_ear_ms = heard.mouthToEar
        av_offset_ms = heard.avOffset
        for r in rows { count(r) }
        success_rate = clients > 0 ? Double(succeeded) / Double(clients) : nil
        failures.sort(by: Self.ordered)
    }

    /// Counts one client in.
    private mutating func count(_ r: LoadClientRow) {
        clients += 1
        switch r.outcome {
        case .leftAsPlanned: succeeded += 1
        case .stoppedEarly:
            succeeded += 1
            stopped_early += 1
        case .running: running += 1
        case .refused: refused += 1
        case .failedToConnect: failed_to_connect += 1
        case .serviceGone: service_gone += 1
        }
        frames += r.frames
        freezes += r.freezes
        freeze_s += r.freeze_ms / 1000
        if let v = r.connect_ms { connect_ms.record(v) }
        if let v = r.dtls_ms { dtls_ms.record(v) }
        if let v = r.time_to_first_frame_ms { time_to_first_frame_ms.record(v) }
        if let v = r.fps { fps.record(v) }
        if let v = r.freezes_per_minute { freezes_per_minute.record(v) }
        if let v = r.audio?.time_to_first_audio_ms { time_to_first_audio_ms.record(v) }
        if let v = r.audio?.missing_ms_per_minute { missing_audio_ms_per_minute.record(v) }
        if let reason = r.reason, !r.succeeded {
            add(Failure(outcome: r.outcome, reason: reason, clients: 1))
        }
        if let size = r.video_size { video_sizes = (video_sizes ?? [:]).merging([size: 1], uniquingKeysWith: +) }
    }

    /// Adds the clients of another aggregate (a disjoint crowd): counts summed, distributions merged.
    package mutating func add(_ other: LoadAggregate) {
        clients += other.clients
        succeeded += other.succeeded
        stopped_early += other.stopped_early
        running += other.running
        refused += other.refused
        failed_to_connect += other.failed_to_connect
        service_gone += other.service_gone
        success_rate = clients > 0 ? Double(succeeded) / Double(clients) : nil
        frames += other.frames
        freezes += other.freezes
        freeze_s += other.freeze_s
        connect_ms.add(other.connect_ms)
        dtls_ms.add(other.dtls_ms)
        time_to_first_frame_ms.add(other.time_to_first_frame_ms)
        fps.add(other.fps)
        freezes_per_minute.add(other.freezes_per_minute)
        glass_to_glass_ms.add(other.glass_to_glass_ms)
        time_to_first_audio_ms.add(other.time_to_first_audio_ms)
        missing_audio_ms_per_minute.add(other.missing_audio_ms_per_minute)
        mouth_to_ear_ms.add(other.mouth_to_ear_ms)
        av_offset_ms.add(other.av_offset_ms)
        for f in other.failures { add(f) }
        failures.sort(by: Self.ordered)
        if let sizes = other.video_sizes { video_sizes = (video_sizes ?? [:]).merging(sizes, uniquingKeysWith: +) }
    }

    /// Counts a failure in with those of the same outcome and reason.
    private mutating func add(_ f: Failure) {
        if let i = failures.firstIndex(where: { $0.outcome == f.outcome && $0.reason == f.reason }) {
            failures[i].clients += f.clients
        } else {
            failures.append(f)
        }
    }

    /// Most clients first, then by outcome and reason, so the order does not depend on the input's.
    private static func ordered(_ a: Failure, _ b: Failure) -> Bool {
        if a.clients != b.clients { return a.clients > b.clients }
        return a.outcome != b.outcome ? a.outcome.rawValue < b.outcome.rawValue : a.reason < b.reason
    }
}
