import SluiceRun
import SluiceMeasure
/// One second of a load run, across all its clients, with what the process used.
public struct LoadSecond: Sendable, Codable, Equatable {
    /// The second, counted from the start of the run (0, 1, 2, ...).
    public var t: Int
    /// Clients connected for some part of the second: ICE connected before its end, and not
    /// ended before its start.
    public var clients_connected: Int
    /// Bytes of video all clients received in the second.
    public var bytes: Int
    /// Their bitrate, kbit/s (`bytes` × 8 / 1000).
    public var bitrate_kbps: Double
    /// Frames all clients received in the second.
    public var frames: Int
    /// Freezes that started in the second (`FrameTrack.freezeStartsPerSecond`).
    public var freezes_started: Int
    /// CPU the load process(es) used, cores (nil: not sampled).
    public var cpu_cores: Double?
    /// Their resident memory, MiB (nil: not sampled).
    public var memory_mib: Double?

    /// An empty second.
    package init(t: Int) {
        self.t = t
        clients_connected = 0
        bytes = 0
        bitrate_kbps = 0
        frames = 0
        freezes_started = 0
    }
}

/// The timeline of a load run, second by second (`LoadReport.timeline`).
package enum LoadTimeline {
    /// Every second of the run, from the clients' per-second counts and the process samples (the
    /// last sample of a second counts). As long as the longest of `duration`, the clients'
    /// per-second counts and the samples.
    package static func build(_ observations: [ClientObservation], samples: [ProcessSample], duration: Double) -> [LoadSecond] {
        var length = duration.isFinite ? Int(max(0, duration).rounded(.up)) : 0
        for o in observations { length = max(length, o.frames.perSecond.count) }
        for s in samples { length = max(length, s.second + 1) }
        var seconds = (0..<length).map(LoadSecond.init(t:))
        for o in observations {
            let f = o.frames
            for (s, n) in f.perSecond.enumerated() {
                seconds[s].frames += n
                seconds[s].bytes += f.bytesPerSecond[s]
                seconds[s].freezes_started += f.freezeStartsPerSecond[s]
            }
        }
        for (s, n) in connected(observations, length: length).enumerated() { seconds[s].clients_connected = n }
        for s in samples where s.second >= 0 {
            seconds[s.second].cpu_cores = s.cpuCores
            seconds[s.second].memory_mib = s.memoryMiB
        }
        for s in seconds.indices { seconds[s].bitrate_kbps = Double(seconds[s].bytes) * 8 / 1000 }
        return seconds
    }

    /// Clients connected in each of `length` seconds, by a running sum of arrivals (the second
    /// ICE connected in) and departures (the first second starting at or after the end).
    private static func connected(_ observations: [ClientObservation], length: Int) -> [Int] {
        var change = Array(repeating: 0, count: length + 1)
        func index(_ t: Double) -> Int { t.isFinite ? min(length, max(0, Int(t))) : length }
        for o in observations {
            guard let up = o.iceConnectedAt else { continue }
            let from = index(up.rounded(.down))
            let to = o.endedAt.map { index($0.rounded(.up)) } ?? length
            guard to > from else { continue }
            change[from] += 1
            change[to] -= 1
        }
        var running = 0
        return (0..<length).map { s in
            running += change[s]
            return running
        }
    }

    /// The timelines of shards of one run added second by second: clients, bytes, frames,
    /// freezes, CPU and memory summed (the shards are separate processes).
    package static func merge(_ timelines: [[LoadSecond]]) -> [LoadSecond] {
        let length = (timelines.joined().map(\.t).max() ?? -1) + 1
        var seconds = (0..<length).map(LoadSecond.init(t:))
        func sum(_ a: Double?, _ b: Double?) -> Double? { a.map { $0 + (b ?? 0) } ?? b }
        for timeline in timelines {
            for x in timeline where x.t >= 0 {
                let s = x.t
                seconds[s].clients_connected += x.clients_connected
                seconds[s].bytes += x.bytes
                seconds[s].frames += x.frames
                seconds[s].freezes_started += x.freezes_started
                seconds[s].cpu_cores = sum(seconds[s].cpu_cores, x.cpu_cores)
                seconds[s].memory_mib = sum(seconds[s].memory_mib, x.memory_mib)
            }
        }
        for s in seconds.indices { seconds[s].bitrate_kbps = Double(seconds[s].bytes) * 8 / 1000 }
        return seconds
    }
}
