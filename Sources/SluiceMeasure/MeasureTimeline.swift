import Foundation
import Synchronization
import SluiceRun

/// What a measurement saw besides latency: the bitrate each second, the network conditions
/// in force, and how the run started.
extension MeasureReport {
    /// One second of bitrates, kbit/s: the congestion controller's target (adaptive
    /// encoders), what the encoder produced, and the RTP on the link (what the receiver got
    /// with two processes; what the sender sent with one).
    public struct BitrateSecond: Sendable, Codable, Equatable {
        /// Seconds since the timeline's origin (`originUnix`).
        public var t: Double
        /// The congestion controller's target, kbit/s (nil: no adaptive encoder).
        public var target_kbps: Double?
        /// What the encoder produced that second, kbit/s (nil: not measured here).
        public var encoder_kbps: Double?
        /// RTP bitrate on the link, kbit/s: the mean over the window since webrtcbin's
        /// statistics were last read (every 5 s, `RunOptions.webrtcStatsInterval`); nil on the
        /// seconds between reads.
        public var rtp_kbps: Double?
        /// A row at `t` seconds with the bitrates known (kbit/s); nil for those that are not.
        public init(t: Double, target_kbps: Double? = nil, encoder_kbps: Double? = nil, rtp_kbps: Double? = nil) {
            self.t = t; self.target_kbps = target_kbps; self.encoder_kbps = encoder_kbps; self.rtp_kbps = rtp_kbps
        }
    }

    /// Network conditions from `from_s` to `to_s` (nil: the end), seconds on the report's clock.
    public struct Condition: Sendable, Codable, Equatable {
        /// When the conditions took effect, seconds.
        public var from_s: Double
        /// When they ended, seconds (nil: they held to the end of the run).
        public var to_s: Double?
        /// The conditions as netem words (`delay 40ms loss 2%`).
        public var netem: String
        /// The step's rate limit, kbit/s, if it has one (drawn with the bitrates).
        public var rate_kbps: Double?
    }

    /// How the run started, apart from the steady state.
    public struct StartUp: Sendable, Codable, Equatable {
        /// From the start of the run to the first frame decoded (`RunSummary`).
        public var time_to_first_frame_ms: Double?
        /// Glass-to-glass latency of the first frame read back: how stale the first picture was.
        public var first_frame_age_ms: Double?
        /// Latency p99 over the whole run, and over what follows the first `settle_s` seconds
        /// after the first frame; their ratio shows what start-up costs the percentiles.
        public var whole_run_p99_ms: Double?
        /// Latency p99 over the samples after the first `settle_s` seconds, ms (nil: none).
        public var steady_p99_ms: Double?
        /// How long after the first frame the steady state is taken to start, seconds (2 by default).
        public var settle_s: Double
        /// Where the time to first frame went, step by step (ms since the run started).
        public var steps: [StartUpStep]?

        /// Start-up figures from a run's samples (in arrival order).
        public init(samples: [LatencyRecorder.Sample], timeToFirstFrameMs: Double?, settle: Double = 2, steps: [StartUpStep]? = nil) {
            time_to_first_frame_ms = timeToFirstFrameMs
            self.steps = steps
            first_frame_age_ms = samples.first.map { Double($0.latencyMicroseconds) / 1000 }
            whole_run_p99_ms = LatencyFigures(samples).p99_ms
            let settled = samples.filter { $0.at >= (samples.first?.at ?? 0) + settle }
            steady_p99_ms = LatencyFigures(settled).p99_ms
            settle_s = settle
        }
    }
}

/// Bitrate samples taken once a second while a measurement runs.
public final class BitrateTimeline: Sendable {
    private let rows = Mutex<[MeasureReport.BitrateSecond]>([])
    /// Wall-clock time of the timeline's zero (so two processes' timelines line up).
    public let originUnix: Double

    /// An empty timeline whose zero is `originUnix` (wall-clock seconds since 1970; now by default).
    public init(originUnix: Double = Date().timeIntervalSince1970) { self.originUnix = originUnix }

    /// Adds one second's row.
    public func append(_ row: MeasureReport.BitrateSecond) { rows.withLock { $0.append(row) } }
    /// Every row, in the order added.
    public var all: [MeasureReport.BitrateSecond] { rows.withLock { $0 } }

    /// The sender's rows (target, encoder) and the receiver's (RTP), on the receiver's clock:
    /// each sender row goes with the receiver row nearest in time.
    public static func merge(
        sender: [MeasureReport.BitrateSecond], senderOrigin: Double,
        receiver: [MeasureReport.BitrateSecond], receiverOrigin: Double
    ) -> [MeasureReport.BitrateSecond] {
        let shift = senderOrigin - receiverOrigin
        let shifted = sender.map { row -> MeasureReport.BitrateSecond in
            var r = row; r.t = ((row.t + shift) * 1000).rounded() / 1000; return r
        }
        return receiver.map { row in
            var out = row
            if let near = shifted.min(by: { abs($0.t - row.t) < abs($1.t - row.t) }), abs(near.t - row.t) <= 0.75 {
                out.target_kbps = near.target_kbps
                out.encoder_kbps = near.encoder_kbps
            }
            return out
        }
    }
}

extension ImpairmentSchedule {
    /// The schedule's steps as report conditions (the schedule starts at the report's zero).
    public var conditions: [MeasureReport.Condition] {
        zip(spans, steps).map { span, step in
            MeasureReport.Condition(
                from_s: span.from, to_s: span.to, netem: span.text,
                rate_kbps: step.impairment.rateBitsPerSecond.map { $0 / 1000 })
        }
    }
}
