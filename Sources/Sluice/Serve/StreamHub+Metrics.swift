/// A served stream's metrics, labelled `stream="<name>"`: viewers now, viewers removed by
/// reason, what its one encoder made, and its Swift filters' frames, drops and errors.
extension StreamHub: MetricsSource {
    public func collect(into sink: MetricsSink) {
        let stream = [("stream", name)]
        sink.gauge("sluice_stream_viewers", Double(viewerCount), labels: stream, help: "WHEP viewers connected to a served stream.")
        for (reason, n) in viewerRemovals {
            sink.counter("sluice_stream_viewers_removed_total", total: Double(n), labels: stream + [("reason", reason)],
                         help: "Viewers the server removed without their DELETE, by reason.")
        }
        sink.counter("sluice_stream_encoded_video_frames_total", total: Double(encodedVideoFrames), labels: stream,
                     help: "Video frames the stream's encoder produced (one encoder for all viewers).")
        sink.counter("sluice_stream_encoded_video_bytes_total", total: Double(encodedVideoBytes), labels: stream,
                     help: "Bytes of encoded video the stream's encoder produced.")
        for s in filterStatistics {
            let labels = stream + [("filter", s.filter), ("element", s.element)]
            sink.counter("sluice_filter_frames_total", total: Double(s.frames.load(ordering: .relaxed)), labels: labels,
                         help: "Frames handed to a Swift filter.")
            sink.counter("sluice_filter_dropped_frames_total", total: Double(s.dropped.load(ordering: .relaxed)), labels: labels,
                         help: "Frames a Swift filter dropped.")
            sink.counter("sluice_filter_errors_total", total: Double(s.errors.load(ordering: .relaxed)), labels: labels,
                         help: "Errors a Swift filter threw.")
        }
    }
}
