import SluiceRun
import SluiceMeasure
/// A load run's figures for Prometheus (`sluice load --metrics PORT`): clients by state,
/// outcomes, frames, bytes and freezes, summed over the crowd.
extension LoadRun: MetricsSource {
    /// Reports the crowd now: connected clients, started and ended clients by outcome, and
    /// what they received.
    public func collect(into sink: MetricsSink) {
        let all = observations
        var connected = 0, frames = 0, bytes = 0, freezes = 0
        var outcomes: [String: Int] = [:]
        for o in all {
            if o.iceConnectedAt != nil, o.endedAt == nil { connected += 1 }
            frames += o.frames.count
            bytes += o.frames.bytes
            freezes += o.frames.freezes
            if o.endedAt != nil { outcomes[o.outcome.kind.rawValue, default: 0] += 1 }
        }
        sink.gauge("sluice_load_clients_connected", Double(connected), help: "Load clients connected now (ICE connected, not yet ended).")
        sink.counter("sluice_load_clients_started_total", total: Double(all.count), help: "Load clients started.")
        for (outcome, n) in outcomes.sorted(by: { $0.key < $1.key }) {
            sink.counter(
                "sluice_load_clients_ended_total", total: Double(n), labels: [("outcome", outcome)],
                help: "Load clients that ended, by how: left_as_planned, stopped_early, refused, failed_to_connect, service_gone.")
        }
        sink.counter("sluice_load_frames_total", total: Double(frames), help: "Video frames the load clients received.")
        sink.counter("sluice_load_video_bytes_total", total: Double(bytes), help: "Encoded video bytes the load clients received.")
        sink.counter("sluice_load_freezes_total", total: Double(freezes), help: "Freezes the load clients saw (libwebrtc's definition).")
    }
}
