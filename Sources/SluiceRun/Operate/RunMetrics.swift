/// A `sluice run`'s metrics (`--metrics`), labelled `pipeline="<name>"`: what it captured,
/// encoded, sent and received, the network figures webrtcbin reports (loss, RTT, jitter,
/// NACK/PLI/FIR), and its Swift filters' frames, drops and errors.
extension PipelineRun: MetricsSource {
    /// Reports the run's gauges and counters, labelled with the pipeline's name.
    public func collect(into sink: MetricsSink) {
        let labels = [("pipeline", spec.name)]
        sink.gauge("sluice_run_playing", control != nil ? 1 : 0, labels: labels, help: "1 while the pipeline runs.")
        if let c = counters {
            let counts: [(String, Int, String)] = [
                ("sluice_run_captured_video_frames_total", c.captureVideoFrames.load(ordering: .relaxed), "Video frames out of the capture stage."),
                ("sluice_run_encoded_video_frames_total", c.sendVideoFrames.load(ordering: .relaxed), "Video frames the encoder produced."),
                ("sluice_run_encoded_video_bytes_total", c.sendVideoBytes.load(ordering: .relaxed), "Bytes of encoded video."),
                ("sluice_run_encoded_audio_buffers_total", c.sendAudioBuffers.load(ordering: .relaxed), "Encoded audio buffers."),
                ("sluice_run_received_video_frames_total", c.receiveVideoFrames.load(ordering: .relaxed), "Video frames decoded by the receive branch."),
                ("sluice_run_received_audio_buffers_total", c.receiveAudioBuffers.load(ordering: .relaxed), "Audio buffers decoded by the receive branch.")
            ]
            for (name, value, help) in counts { sink.counter(name, total: Double(value), labels: labels, help: help) }
        }
        let (sent, received) = latestStats.withLock { $0 }
        sink.counter("sluice_run_rtp_sent_bytes_total", total: Double(sent.bytesSent), labels: labels, help: "RTP bytes sent (webrtcbin).")
        sink.counter("sluice_run_rtp_sent_packets_total", total: Double(sent.packetsSent), labels: labels, help: "RTP packets sent.")
        sink.counter("sluice_run_rtp_received_packets_total", total: Double(received.packetsReceived), labels: labels, help: "RTP packets received.")
        sink.counter("sluice_run_rtp_packets_lost_total", total: Double(sent.packetsLost), labels: labels, help: "Packets the remote side reported lost.")
        sink.counter("sluice_run_nack_total", total: Double(sent.nackCount + received.nackCount), labels: labels, help: "NACKs sent and received.")
        sink.counter(
            "sluice_run_pli_total", total: Double(sent.pliCount + received.pliCount), labels: labels, help: "Picture loss indications sent and received.")
        sink.counter("sluice_run_fir_total", total: Double(sent.firCount + received.firCount), labels: labels, help: "Full intra requests sent and received.")
        sink.counter(
            "sluice_run_rtx_sent_packets_total", total: Double(sent.rtxPacketsSent), labels: labels, help: "Packets retransmitted (RTX) in answer to NACKs.")
        if let rtt = sent.roundTripMs ?? received.roundTripMs {
            sink.gauge("sluice_run_round_trip_seconds", rtt / 1000, labels: labels, help: "Round-trip time from RTCP reports.")
        }
        if let j = received.jitterMs {
            sink.gauge("sluice_run_jitter_seconds", j / 1000, labels: labels, help: "Inbound RTP jitter.")
        }
        for s in filterStatistics {
            let l = labels + [("filter", s.filter), ("element", s.element)]
            sink.counter("sluice_filter_frames_total", total: Double(s.frames.load(ordering: .relaxed)), labels: l, help: "Frames handed to a Swift filter.")
            sink.counter(
                "sluice_filter_dropped_frames_total", total: Double(s.dropped.load(ordering: .relaxed)), labels: l, help: "Frames a Swift filter dropped.")
            sink.counter("sluice_filter_errors_total", total: Double(s.errors.load(ordering: .relaxed)), labels: l, help: "Errors a Swift filter threw.")
        }
    }
}
