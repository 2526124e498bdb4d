import Foundation
import SluiceRun

/// What `sluice measure` reports for one run.
public struct MeasureReport: Sendable, Codable, Equatable, SummaryJSON {
    /// Latency over one second of the run.
    public struct Second: Sendable, Codable, Equatable {
        /// The second, counted from the start of the recorder (0, 1, 2, ...).
        public var t: Int
        /// Frames read back during that second.
        public var frames: Int
        /// Median latency of those frames, ms (nil: none were read back).
        public var p50_ms: Double?
        /// 95th-percentile latency of those frames, ms (nil: none were read back).
        public var p95_ms: Double?
    }

    /// The pipeline file measured (its path).
    public var pipeline: String
    /// How long the run lasted, seconds.
    public var duration_s: Double
    /// 1: sender and receiver in this process; 2: two processes (and namespaces).
    public var processes: Int
    /// The `tc netem` settings applied between the two processes, if any.
    public var netem: String?
    /// The video codec received (or sent, when nothing was received), e.g. `h264`; nil if unknown.
    public var codec: String?
    /// Width of the decoded video, pixels (0: none decoded).
    public var width: Int
    /// Height of the decoded video, pixels (0: none decoded).
    public var height: Int
    /// Glass-to-glass latency over the frames read back after `warmup_s`.
    public var latency: LatencyFigures
    /// Seconds after the first frame left out of `latency` (start-up); 0: nothing left out.
    public var warmup_s: Double
    /// Stamped frames set against those read back: lost, duplicated, out of order, unreadable.
    public var frames: FrameAccounting
    /// Frames the encoder produced (the writer's frames that a leaky queue did not drop).
    public var encoded_frames: Int
    /// Distinct frames read back per second, from the first one to the end.
    public var delivered_fps: Double
    /// Encoder output, kbit/s over the run.
    public var encoder_bitrate_kbps: Double
    /// CPU seconds (user + system) of the measured process(es).
    public var cpu_seconds: Double
    /// Largest resident set of any measured process, MiB.
    public var peak_memory_mib: Double
    /// Milliseconds from PLAYING to the first decoded frame; nil if none arrived.
    public var time_to_first_frame_ms: Double?
    /// Where each frame's time went, stage by stage along its path (`StageTimer`, pad probes).
    public var stages: [StageFigures] = []
    /// The part of the mean latency the stages do not account for.
    public var unaccounted: Unaccounted?
    /// Latency each second of the run.
    public var per_second: [Second]
    /// Every sample: seconds since start, frame number, latency in ms.
    public var samples: [[Double]]
    /// Bitrates each second (target, encoder, RTP on the link).
    public var bitrate: [BitrateSecond] = []
    /// The network conditions over time (`--netem`, `--netem-schedule`).
    public var conditions: [Condition] = []
    /// Time to first frame, the first frame's age, and what start-up does to the p99.
    public var start_up: StartUp?
    /// Loss repair seen by the receiver: requests it sent, packets retransmissions repaired in
    /// time, and its jitter buffers' latency at the end (raised when repairs needed longer).
    public var repair: Repair?
    /// Audio mouth-to-ear delay and the A/V offset, when the file sends and receives audio
    /// (one process).
    public var audio: AudioMeasurement?

    /// Mean glass-to-glass latency minus the sum of the stages' means: time no stage saw.
    /// Near zero when the stages cover the whole path; a stage that is not measured, or a
    /// hold between two probes, shows here.
    public struct Unaccounted: Sendable, Codable, Equatable {
        /// Mean glass-to-glass latency less the sum of the stages' means, ms (may be negative).
        public var mean_ms: Double
        /// A stage known to be inside it (`network` with two processes, which time their
        /// stages each on its own).
        public var includes: String?

        /// Nil without a latency mean or without stages.
        public init?(latency: LatencyFigures, stages: [StageFigures], includes: String? = nil) {
            self.init(mean: latency.mean_ms, stages: stages, includes: includes)
        }

        /// `mean` (ms) less the sum of the stages' means; nil without a mean or without stages.
        public init?(mean: Double?, stages: [StageFigures], includes: String? = nil) {
            guard let mean, !stages.isEmpty else { return nil }
            mean_ms = mean - stages.reduce(0) { $0 + $1.mean_ms }
            self.includes = includes
        }
    }

    /// Loss-repair figures of the run's WebRTC statistics (`repair`).
    public struct Repair: Sendable, Codable, Equatable {
        /// NACKs (retransmission requests) the peers sent and received.
        public var nacks: Int
        /// Picture loss indications (PLI, keyframe requests) the peers sent and received.
        public var plis: Int
        /// Full intra requests (FIR, keyframe requests) the peers sent and received.
        public var firs: Int
        /// Lost packets the receiver got back in time from an RTX retransmission.
        public var rtx_repaired: Int
        /// The receiver's jitter buffer latency at the end, ms (nil: not known).
        public var jitter_buffer_latency_ms: Int?
    }

    /// The human summary.
    public var text: String {
        func ms(_ v: Double?) -> String { v.map { String(format: "%.1f ms", $0) } ?? "-" }
        var lines = [
            "measure \(pipeline) (\(String(format: "%.1f", duration_s)) s, \(processes == 1 ? "one process" : "two processes")"
                + (netem.map { ", netem \($0)" } ?? "") + ")"
        ]
        lines.append("  video          \(width)x\(height) \(codec ?? "?")")
        lines.append(
            "  latency        p50 \(ms(latency.p50_ms))  p95 \(ms(latency.p95_ms))  p99 \(ms(latency.p99_ms))  max \(ms(latency.max_ms))  (\(latency.samples) frames"
                + (warmup_s > 0 ? String(format: ", after the first %.1f s", warmup_s) : "") + ")")
        lines.append(
            "  frames         \(frames.stamped) stamped, \(encoded_frames) encoded, \(frames.received) read back; "
                + "\(frames.lost) lost, \(frames.duplicated) duplicated, \(frames.out_of_order) out of order, \(frames.unreadable) unreadable")
        lines.append(
            "                 \(frames.not_delivered) never read back: \(frames.before_first_frame) before the first frame arrived, "
                + "\(frames.lost) lost after it, \(frames.in_flight_at_stop) in flight at stop")
        lines.append(String(format: "  delivered      %.1f fps", delivered_fps))
        lines.append(String(format: "  encoder        %.0f kbit/s", encoder_bitrate_kbps))
        if let s = start_up {
            lines.append(
                "  start-up       first frame after \(ms(s.time_to_first_frame_ms))\((s.steps ?? []).dtlsKeyWaitNote), \(ms(s.first_frame_age_ms)) old; "
                    + "p99 \(ms(s.whole_run_p99_ms)) whole run, \(ms(s.steady_p99_ms)) after the first \(String(format: "%.0f", s.settle_s)) s")
            if let steps = s.steps, !steps.isEmpty {
                lines.append("                 " + SummaryText.steps(steps))
            }
        } else {
            lines.append("  first frame    " + ms(time_to_first_frame_ms))
        }
        lines += audio?.lines ?? []
        if let r = repair, r.nacks + r.plis + r.firs + r.rtx_repaired > 0 {
            lines.append(
                "  repair         \(r.nacks) NACKs, \(r.plis) PLIs, \(r.firs) FIRs; \(r.rtx_repaired) packets repaired by retransmission"
                    + (r.jitter_buffer_latency_ms.map { "; jitter buffer \($0) ms" } ?? ""))
        }
        let targets = bitrate.compactMap(\.target_kbps), rtp = bitrate.compactMap(\.rtp_kbps)
        if !targets.isEmpty {
            lines.append(
                String(
                    format: "  adaptation     target %.0f → %.0f kbit/s (min %.0f, max %.0f); RTP %.0f → %.0f kbit/s",
                    targets.first!, targets.last!, targets.min()!, targets.max()!, rtp.first ?? 0, rtp.last ?? 0))
        }
        for c in conditions {
            lines.append(
                String(format: "  conditions     %5.1f–", c.from_s) + (c.to_s.map { String(format: "%.1f s", $0) } ?? "end")
                    + "  " + c.netem)
        }
        lines += stageLines
        lines.append(SummaryText.cpuLine(seconds: cpu_seconds, over: duration_s))
        lines.append(String(format: "  peak memory    %.0f MiB", peak_memory_mib))
        return lines.joined(separator: "\n")
    }

    /// Where the time went, stage by stage, and what the stages leave unaccounted.
    private var stageLines: [String] {
        var lines: [String] = []
        if !stages.isEmpty { lines.append("  stages (where the time went, frame by frame)") }
        lines += Self.stageLines(stages, unaccounted: unaccounted, of: "latency")
        if let audio, let audioStages = audio.stages, !audioStages.isEmpty {
            lines.append("  audio stages (packet by packet)")
            lines += Self.stageLines(audioStages, unaccounted: audio.unaccounted, of: "mouth-to-ear", unit: "packets")
        }
        return lines
    }

    /// One line per stage, and what they leave of the `of` mean unaccounted.
    static func stageLines(_ stages: [StageFigures], unaccounted: Unaccounted?, of figure: String, unit: String = "frames") -> [String] {
        var lines: [String] = []
        func name(_ text: String) -> String { "    " + text.padding(toLength: 22, withPad: " ", startingAt: 0) }
        for st in stages {
            lines.append(
                name(st.stage)
                    + String(
                        format: " p50 %5.1f ms  p95 %5.1f ms  mean %5.1f ms  (%d %@)", st.p50_ms,
                        st.p95_ms, st.mean_ms, st.samples, unit))
        }
        if let u = unaccounted {
            lines.append(
                name("unaccounted") + String(format: "                          mean %5.1f ms", u.mean_ms)
                    + "  (\(figure) mean − the stages' means" + (u.includes.map { "; includes the \($0)" } ?? "") + ")")
        }
        return lines
    }

    /// Per-second latency from samples.
    package static func perSecond(_ samples: [LatencyRecorder.Sample], duration: Double) -> [Second] {
        let seconds = max(0, Int(duration.rounded(.up)))
        var buckets = Array(repeating: [Double](), count: seconds)
        for s in samples {
            let i = Int(s.at)
            if i >= 0 && i < seconds { buckets[i].append(Double(s.latencyMicroseconds) / 1000) }
        }
        return buckets.enumerated().map { i, b in
            let sorted = b.sorted()
            return Second(
                t: i, frames: b.count,
                p50_ms: sorted.isEmpty ? nil : LatencyFigures.percentile(sorted, 50),
                p95_ms: sorted.isEmpty ? nil : LatencyFigures.percentile(sorted, 95))
        }
    }
}

/// Peak resident set size of this process, MiB (`ru_maxrss`).
package func peakResidentMiB() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_maxrss) / 1024
}
