import Foundation
import GStreamer
import SluiceRun

/// `sluice measure --processes 2`: the file's send section runs in one process (served over
/// WHEP, with the stamp writer), its receive section in another (playing that stream, with
/// the stamp reader). Each half writes a `PeerReport`; `Measurement.combine` makes one
/// report of the two.
extension MeasurePlan {
    /// The sending half: the send section (writer first), served to WHEP viewers.
    public static func sendHalf(_ spec: PipelineSpec) throws(RunError) -> PipelineSpec {
        var out = try instrument(spec)
        out.receive = nil
        out.transport.kind = .server
        return out
    }

    /// The receiving half: the receive section (reader last), playing `endpoint` over WHEP
    /// with ICE on `address`.
    public static func receiveHalf(_ spec: PipelineSpec, endpoint: String, address: String) throws(RunError) -> PipelineSpec {
        var out = try instrument(spec)
        out.send = nil
        out.transport.kind = TransportKind(rawValue: "whep") // SluiceTransports' kind, registered by the program
        out.transport.settings = AnyKindSettings(EndpointSettings(endpoint: endpoint))
        out.transport.ice.addresses = [address]
        out.transport.dataChannels = []
        // What the sender does not send, the receiver does not wait for.
        if spec.send?.audio == nil { out.receive?.audio = nil }
        return out
    }
}

extension BitrateTimeline {
    /// A served stream's target and encoder bitrate each second, on this process's clock,
    /// until the returned task is cancelled (the sending half of a two-process measurement).
    public static func sampling(_ hub: StreamHub) -> (BitrateTimeline, Task<Void, Never>) {
        let timeline = BitrateTimeline()
        let task = Task.detached {
            let start = ContinuousClock.now
            var last = (bytes: hub.encodedVideoBytes, at: start)
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(1))
                let now = ContinuousClock.now, bytes = hub.encodedVideoBytes
                timeline.append(
                    .init(
                        t: ((now - start).seconds * 1000).rounded() / 1000,
                        target_kbps: hub.videoTargetBitrate.map { Double($0) / 1000 },
                        encoder_kbps: Double(bytes - last.bytes) * 8 / 1000 / max(0.001, (now - last.at).seconds)))
                last = (bytes, now)
            }
        }
        return (timeline, task)
    }
}

/// What one half of a two-process measurement reports.
public struct PeerReport: Sendable, Codable, Equatable {
    /// Which half this is: `send` or `receive`.
    public var role: String
    /// CPU seconds (user + system) this half's process used.
    public var cpu_seconds: Double
    /// Largest resident set of this half's process, MiB.
    public var peak_memory_mib: Double
    /// Sender: frames the writer stamped, and what the encoder produced.
    public var stamped: Int?
    /// Sender: video frames the encoder produced (nil on the receiver).
    public var encoded_frames: Int?
    /// Sender: bytes of encoded video (nil on the receiver).
    public var encoded_bytes: Int?
    /// Receiver: the run's summary, the stamps read back, unreadable frames.
    public var summary: RunSummary?
    /// Receiver: every stamp read back as [seconds since its zero, frame number, latency in µs,
    /// capture time on the monotonic clock in µs (-1: unknown)] (nil on the sender).
    public var samples: [[Double]]?
    /// Receiver: every audio stamp read back as [seconds since its zero, sequence, capture time
    /// on the monotonic clock in ms, mouth-to-ear in ms] (nil on the sender, or without audio).
    public var audio_samples: [[Double]]?
    /// Receiver: audio stamps heard whose digits did not check.
    public var audio_unreadable: Int?
    /// Receiver: frames whose stamp could not be read (nil on the sender).
    public var unreadable: Int?
    /// Each half's stages (`StageTimer`): the sender's up to its ICE transport, the receiver's from its own.
    public var stages: [StageFigures]?
    /// Each half's audio stages, likewise (nil without audio).
    public var audio_stages: [StageFigures]?
    /// Wall-clock time of this half's zero, and its bitrates each second on that clock
    /// (sender: target and encoder; receiver: RTP received).
    public var origin_unix: Double?
    /// This half's bitrates each second, kbit/s, on the clock that starts at `origin_unix`.
    public var bitrate: [MeasureReport.BitrateSecond]?

    /// A report for `role` with its CPU seconds and peak resident set (MiB); the other figures are nil.
    public init(role: String, cpu: Double, peakMiB: Double) {
        self.role = role; cpu_seconds = cpu; peak_memory_mib = peakMiB
    }

    /// This process's CPU seconds and peak resident set.
    public static func ownUsage() -> (cpu: Double, peakMiB: Double) { (processCPUSeconds(), peakResidentMiB()) }
}

extension Measurement {
    /// Runs the receiving half for `duration`, recording every stamp read. `onStart` is
    /// called at the measurement's zero (the network schedule starts then).
    public static func runReceiver(
        spec: PipelineSpec, duration: Double, warmup: Double = 0, stop: StopFlag,
        onStart: @Sendable () -> Void = {},
        progress: @escaping @Sendable (MeasureProgress) -> Void
    ) async throws(RunError) -> PeerReport {
        let recorder = LatencyRecorder(), timer = StageTimer(), audio = AudioDelayRecorder()
        let audioTimer = StageTimer(path: .audio)
        let timeline = BitrateTimeline(originUnix: recorder.originUnix)
        onStart()
        let summary = try await instrumentedRun(
            spec, duration: duration, recorder: recorder, timer: timer,
            timeline: timeline, stop: stop, audio: audio, audioTimer: audioTimer, progress: progress)
        let usage = PeerReport.ownUsage()
        var report = PeerReport(role: "receive", cpu: usage.cpu, peakMiB: usage.peakMiB)
        report.summary = summary
        // `{ Double($0) }`, not `Double.init`: on a UInt64 that picks init(bitPattern:).
        report.samples = recorder.all.map {
            [$0.at, Double($0.number), Double($0.latencyMicroseconds), $0.capturedMicroseconds.map { Double($0) } ?? -1]
        }
        report.unreadable = recorder.unreadableCount
        if spec.receive?.audio != nil {
            report.audio_samples = audio.all.map { [$0.at, Double($0.sequence), $0.capturedMilliseconds, $0.delayMilliseconds] }
            report.audio_unreadable = audio.unreadableCount
            report.audio_stages = audioTimer.figures(warmup: warmup)
        }
        report.stages = timer.figures(warmup: warmup)
        report.origin_unix = recorder.originUnix
        report.bitrate = timeline.all
        return report
    }

    /// One report from the two halves. `schedule` (started at the receiver's zero) gives the
    /// conditions.
    public static func combine(
        spec: PipelineSpec, send: PeerReport, receive: PeerReport, netem: String?,
        schedule: ImpairmentSchedule? = nil,
        warmup: Double = 0
    ) throws(RunError) -> MeasureReport {
        guard var summary = receive.summary else { throw RunError("the receiving process reported no run") }
        let samples = (receive.samples ?? []).compactMap { s -> LatencyRecorder.Sample? in
            guard s.count >= 3, s[1] >= 0, s[1] <= Double(UInt32.max) else { return nil }
            let captured = s.count >= 4 && s[3] >= 0 && s[3] < Double(UInt64.max) ? UInt64(s[3]) : nil
            return LatencyRecorder.Sample(number: UInt32(s[1]), latencyMicroseconds: Int(s[2]), at: s[0], capturedMicroseconds: captured)
        }
        // The encoder ran in the sender: its counts stand in for the receiver's (empty) send side.
        summary.send.video = .init(
            captured: send.stamped ?? 0, filtered: send.stamped ?? 0, frames: send.encoded_frames ?? 0,
            codec: spec.send?.video?.encode.codec.rawValue, bytes: send.encoded_bytes ?? 0)
        var result = report(
            spec: spec, summary: summary, samples: samples, stamped: send.stamped ?? 0,
            unreadable: receive.unreadable ?? 0, cpu: send.cpu_seconds + receive.cpu_seconds,
            peakMiB: max(send.peak_memory_mib, receive.peak_memory_mib), processes: 2, netem: netem, warmup: warmup)
        // The encoder ran in the sender; jitter buffer and decoder in the receiver. Each
        // process times its own stages: the network between them is in what is unaccounted.
        result.stages = (send.stages ?? []) + (receive.stages ?? [])
        result.unaccounted = MeasureReport.Unaccounted(latency: result.latency, stages: result.stages, includes: StageTimer.network)
        if let so = send.origin_unix, let ro = receive.origin_unix {
            result.bitrate = BitrateTimeline.merge(
                sender: send.bitrate ?? [], senderOrigin: so,
                receiver: receive.bitrate ?? [], receiverOrigin: ro)
        } else {
            result.bitrate = receive.bitrate ?? []
        }
        result.conditions = schedule?.conditions ?? []
        if spec.send?.audio != nil, let audio = receive.audio_samples {
            let heard = audio.compactMap { s -> AudioDelayRecorder.Sample? in
                guard s.count >= 4, s.allSatisfy(\.isFinite) else { return nil }
                return AudioDelayRecorder.Sample(sequence: Int(s[1]), capturedMilliseconds: s[2], delayMilliseconds: s[3], at: s[0])
            }
            var figures = AudioMeasurement(
                audio: heard, unreadable: receive.audio_unreadable ?? 0, video: samples, duration: summary.duration_s)
            figures.account(stages: (send.audio_stages ?? []) + (receive.audio_stages ?? []), includes: StageTimer.network)
            result.audio = figures
        }
        return result
    }
}
