import Foundation
import GStreamer
import SluiceRun

/// A progress line while a measurement runs.
public struct MeasureProgress: Sendable {
    /// Seconds since the run started.
    public var elapsed: Double
    /// Video frames decoded per second, lately.
    public var receiveFps: Double
    /// Latency over the last second.
    public var p50ms: Double?
    /// 95th-percentile latency over the last second, ms (nil: no frames read back in it).
    public var p95ms: Double?
    /// Frames read back so far.
    public var framesRead: Int
    /// Audio stamps read back so far (0: none, or the file has no audio).
    public var stampsRead = 0
    /// Median mouth-to-ear delay over the last second, ms (nil: no audio stamp read in it).
    public var mouthToEarP50ms: Double?

    /// The line as printed: elapsed time, receive rate, p50 and p95 latency, frames read, and
    /// once audio stamps are being read, the last second's mouth-to-ear p50.
    public var line: String {
        func ms(_ v: Double?) -> String { v.map { String(format: "%6.1f ms", $0) } ?? "     - ms" }
        let video = String(
            format: "%6.1fs  recv %5.1f fps  latency p50 %@  p95 %@  %6d frames read", elapsed, receiveFps,
            ms(p50ms), ms(p95ms), framesRead)
        return stampsRead > 0 ? video + "  mouth-to-ear p50 \(ms(mouthToEarP50ms))" : video
    }
}

/// `sluice measure` in one process: the file runs with the stamp writer after capture and
/// the reader before the sink, and every stamp read becomes a latency sample.
public enum Measurement {
    /// Runs `spec`, instrumented with the stamp writer and reader, for `duration` seconds (or until
    /// `stop`), calling `progress` with each statistics update, and reports what it measured; latency
    /// figures leave out the first `warmup` seconds after the first frame. Throws `RunError` if the
    /// file has nothing to measure or the run fails. `roundTrip`: the far end sends back what it
    /// gets (an echo peer), so a file of any transport can be measured.
    public static func run(
        spec: PipelineSpec, duration: Double, warmup: Double = 0, roundTrip: Bool = false, stages: Bool = true,
        stop: StopFlag = StopFlag(), progress: @escaping @Sendable (MeasureProgress) -> Void = { _ in }
    ) async throws(RunError) -> MeasureReport {
        let instrumented = try MeasurePlan.instrument(spec, roundTrip: roundTrip)
        let recorder = LatencyRecorder(), audio = AudioDelayRecorder()
        let timer = stages ? StageTimer() : nil, audioTimer = stages ? StageTimer(path: .audio) : nil
        let timeline = BitrateTimeline(originUnix: recorder.originUnix)
        let cpuBefore = processCPUSeconds()
        let summary = try await instrumentedRun(
            instrumented, duration: duration, recorder: recorder, timer: timer,
            timeline: timeline, stop: stop, audio: audio, audioTimer: audioTimer, progress: progress)
        let cpu = processCPUSeconds() - cpuBefore
        let writer = summary.filters.first { $0.filter == MeasurePlan.writer }
        let stamped = (writer?.frames ?? 0) - (writer?.events["framestamp-skipped"] ?? 0)
        var result = report(
            spec: spec, summary: summary, samples: recorder.all, stamped: stamped,
            unreadable: recorder.unreadableCount, cpu: cpu, peakMiB: peakResidentMiB(), processes: 1, netem: nil, warmup: warmup)
        if let timer {
            result.stages = timer.figures(warmup: warmup)
            result.unaccounted = MeasureReport.Unaccounted(latency: result.latency, stages: result.stages)
        }
        result.bitrate = timeline.all
        if instrumented.send?.audio != nil, instrumented.receive?.audio != nil {
            var figures = AudioMeasurement(
                audio: audio.all, unreadable: audio.unreadableCount, video: recorder.all, duration: summary.duration_s)
            if let audioTimer { figures.account(stages: audioTimer.figures(warmup: warmup)) }
            result.audio = figures
        }
        return result
    }

    /// Runs an instrumented spec, feeding every stamp read to `recorder` (video) and `audio`,
    /// the stage probes to `timer` and `audioTimer`, and each second's bitrates to `timeline`,
    /// with a progress line each second.
    package static func instrumentedRun(
        _ spec: PipelineSpec, duration: Double, recorder: LatencyRecorder, timer: StageTimer?,
        timeline: BitrateTimeline, stop: StopFlag, audio: AudioDelayRecorder? = nil, audioTimer: StageTimer? = nil,
        progress: @escaping @Sendable (MeasureProgress) -> Void
    ) async throws(RunError) -> RunSummary {
        var options = RunOptions(duration: duration)
        options.stageTimer = timer
        options.audioStageTimer = spec.send?.audio != nil || spec.receive?.audio != nil ? audioTimer : nil
        options.onFilterEvent = { filter, event, fields in
            if filter == MeasurePlan.audioReader {
                audio?.take(event: event, fields: fields)
                if event == "audiostamp" { audioTimer?.noteFirstFrame() }
            }
            guard filter == MeasurePlan.reader else { return }
            recorder.take(event: event, fields: fields)
            timer?.noteFirstFrame()
        }
        let sends = spec.send?.video != nil
        return try await PipelineRun(spec: spec).run(options: options, stop: stop) { live in
            timeline.append(
                .init(
                    t: (recorder.elapsed * 1000).rounded() / 1000, target_kbps: live.congestion?.targetKbps,
                    encoder_kbps: sends ? live.encodedVideoKbps : nil, rtp_kbps: live.wireRead ? live.bitrateKbps : nil))
            let figures = LatencyFigures(recorder.since(max(0, live.elapsed - 1)))
            let heard = audio?.since(max(0, live.elapsed - 1)).map(\.delayMilliseconds) ?? []
            progress(
                MeasureProgress(
                    elapsed: live.elapsed, receiveFps: live.receiveFps, p50ms: figures.p50_ms,
                    p95ms: figures.p95_ms, framesRead: recorder.count, stampsRead: audio?.count ?? 0,
                    mouthToEarP50ms: AudioMeasurement.Figures(heard).p50_ms))
        }
    }

    /// Builds the report from a run's summary and its samples.
    package static func report(
        spec: PipelineSpec, summary: RunSummary, samples: [LatencyRecorder.Sample], stamped: Int,
        unreadable: Int, cpu: Double, peakMiB: Double, processes: Int, netem: String?,
        warmup: Double = 0
    ) -> MeasureReport {
        // Latency figures leave out the first `warmup` seconds after the first frame.
        let steady = samples.filter { $0.at >= (samples.first?.at ?? 0) + warmup }
        let accounting = FrameAccounting(samples: samples, stamped: stamped, unreadable: unreadable)
        let distinct = Set(samples.map(\.number)).count
        let firstAt = samples.first?.at ?? summary.duration_s
        let window = summary.duration_s - firstAt
        let bytes = summary.send.video?.bytes ?? 0
        var report = MeasureReport(
            pipeline: spec.file, duration_s: summary.duration_s, processes: processes, netem: netem,
            codec: summary.receive.video?.codec ?? summary.send.video?.codec,
            width: summary.receive.video?.width ?? 0, height: summary.receive.video?.height ?? 0,
            latency: LatencyFigures(steady), warmup_s: warmup, frames: accounting,
            encoded_frames: summary.send.video?.frames ?? 0,
            delivered_fps: window > 0.5 ? Double(distinct) / window : 0,
            encoder_bitrate_kbps: summary.duration_s > 0 ? Double(bytes) * 8 / 1000 / summary.duration_s : 0,
            cpu_seconds: cpu, peak_memory_mib: peakMiB, time_to_first_frame_ms: summary.time_to_first_frame_ms,
            per_second: MeasureReport.perSecond(samples, duration: summary.duration_s),
            samples: samples.map { [($0.at * 1000).rounded() / 1000, Double($0.number), Double($0.latencyMicroseconds) / 1000] },
            start_up: MeasureReport.StartUp(
                samples: samples, timeToFirstFrameMs: summary.time_to_first_frame_ms,
                steps: summary.start_up_steps))
        let n = summary.network
        report.repair = .init(
            nacks: n.nack_count, plis: n.pli_count, firs: n.fir_count, rtx_repaired: n.rtx_repaired,
            jitter_buffer_latency_ms: n.jitter_buffer_latency_ms)
        return report
    }
}
