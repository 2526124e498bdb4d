import Foundation
import SluiceRun

/// Audio figures of `sluice measure`: mouth-to-ear delay from the audio stamps, and the A/V
/// offset against the video frames captured at the same instant.
public struct AudioMeasurement: Sendable, Codable, Equatable {
    /// Figures of a set of values, ms.
    public struct Figures: Sendable, Codable, Equatable {
        /// Values the figures are computed from.
        public var samples: Int
        /// Median, ms.
        public var p50_ms: Double?
        /// 95th percentile, ms.
        public var p95_ms: Double?
        /// 99th percentile, ms.
        public var p99_ms: Double?
        /// Mean, ms.
        public var mean_ms: Double?
        /// Figures of `values` (nearest-rank percentiles); nil figures when there are none.
        public init(_ values: [Double]) {
            samples = values.count
            let sorted = values.sorted()
            guard !sorted.isEmpty else { return }
            p50_ms = LatencyFigures.percentile(sorted, 50)
            p95_ms = LatencyFigures.percentile(sorted, 95)
            p99_ms = LatencyFigures.percentile(sorted, 99)
            mean_ms = sorted.reduce(0, +) / Double(sorted.count)
        }
    }

    /// One second of the run.
    public struct Second: Sendable, Codable, Equatable {
        /// Seconds since the start.
        public var t: Int
        /// Stamps read in this second.
        public var stamps: Int
        /// Median mouth-to-ear delay in this second, ms.
        public var mouth_to_ear_ms: Double?
        /// Median A/V offset in this second, ms.
        public var av_offset_ms: Double?
    }

    /// Capture (audiostamp) to decoded audio (audiostamp-read).
    public var mouth_to_ear: Figures
    /// How far apart in capture time an audio stamp and the video frame it is paired with may be, ms.
    public static let pairingWindowMs = 40.0
    /// Audio's delay minus video's for the same capture instant (the video frame captured
    /// closest to each audio stamp, within 40 ms): positive when audio is late.
    public var av_offset: Figures
    /// Stamps read back.
    public var stamps_read: Int
    /// Stamps heard whose digits did not check.
    public var stamps_unreadable: Int
    /// Per second.
    public var per_second: [Second]
    /// Every stamp read: [seconds since the start, mouth-to-ear ms].
    public var samples: [[Double]]
    /// Why there are no figures, when there are none.
    public var note: String?
    /// Where each audio packet's time went, stage by stage (`StageTimer` with `StagePath.audio`).
    public var stages: [StageFigures]?
    /// The part of the mean mouth-to-ear delay the stages do not account for.
    public var unaccounted: MeasureReport.Unaccounted?

    /// Figures from audio stamps and video samples of one run.
    public init(audio: [AudioDelayRecorder.Sample], unreadable: Int, video: [LatencyRecorder.Sample], duration: Double) {
        let offsets = Self.offsets(audio, video)
        mouth_to_ear = Figures(audio.map(\.delayMilliseconds))
        av_offset = Figures(offsets.map(\.offset))
        stamps_read = audio.count
        stamps_unreadable = unreadable
        samples = audio.map { [($0.at * 1000).rounded() / 1000, ($0.delayMilliseconds * 1000).rounded() / 1000] }
        per_second = (0..<max(0, Int(duration.rounded(.up)))).map { t in
            let inSecond = audio.filter { Int($0.at) == t }
            let offsetsInSecond = offsets.filter { Int($0.at) == t }.map(\.offset)
            return Second(
                t: t, stamps: inSecond.count, mouth_to_ear_ms: Figures(inSecond.map(\.delayMilliseconds)).p50_ms,
                av_offset_ms: Figures(offsetsInSecond).p50_ms)
        }
        if audio.isEmpty {
            note =
                unreadable > 0
                ? "no audio stamps read: \(unreadable) heard but unreadable (a codec below 16 kbit/s, or heavy loss?)"
                : "no audio stamps read: nothing arrived that sounds like one (is `audiostamp` in send.audio.filters, before anything that replaces the sound?)"
        }
    }

    /// Sets the audio path's stages, and what they leave of the mean mouth-to-ear delay.
    public mutating func account(stages: [StageFigures], includes: String? = nil) {
        self.stages = stages.isEmpty ? nil : stages
        unaccounted = MeasureReport.Unaccounted(mean: mouth_to_ear.mean_ms, stages: stages, includes: includes)
    }

    /// Each audio stamp's offset against the video frame captured closest to it.
    private static func offsets(_ audio: [AudioDelayRecorder.Sample], _ video: [LatencyRecorder.Sample]) -> [(offset: Double, at: Double)] {
        let frames = video.compactMap { v in v.capturedMicroseconds.map { (captured: Double($0) / 1000, latency: Double(v.latencyMicroseconds) / 1000) } }
            .sorted { $0.captured < $1.captured }
        guard !frames.isEmpty else { return [] }
        return audio.compactMap { a in
            var lo = 0, hi = frames.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if frames[mid].captured < a.capturedMilliseconds { lo = mid + 1 } else { hi = mid }
            }
            let near = [lo - 1, lo].filter { $0 >= 0 && $0 < frames.count }.min {
                abs(frames[$0].captured - a.capturedMilliseconds) < abs(frames[$1].captured - a.capturedMilliseconds)
            }
            guard let i = near, abs(frames[i].captured - a.capturedMilliseconds) <= pairingWindowMs else { return nil }
            return (a.delayMilliseconds - frames[i].latency, a.at)
        }
    }

    /// The summary's lines.
    public var lines: [String] {
        func ms(_ v: Double?) -> String { v.map { String(format: "%.1f ms", $0) } ?? "-" }
        if let note { return ["  audio          \(note)"] }
        return [
            "  mouth-to-ear   p50 \(ms(mouth_to_ear.p50_ms))  p95 \(ms(mouth_to_ear.p95_ms))  p99 \(ms(mouth_to_ear.p99_ms))  "
                + "(\(stamps_read) audio stamps, \(stamps_unreadable) unreadable)",
            "  A/V offset     p50 \(ms(av_offset.p50_ms))  p95 \(ms(av_offset.p95_ms))  (\(av_offset.samples) stamps; audio minus video, positive: audio late)"
        ]
    }
}
