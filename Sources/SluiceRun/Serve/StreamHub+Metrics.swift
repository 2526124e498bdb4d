/// A served stream's metrics, labelled `stream="<name>"`: viewers now, viewers removed by
/// reason, what its one encoder made, what went to its viewers over the network (summed
/// over viewers, those that left included), and its Swift filters' frames, drops and errors.
extension StreamHub: MetricsSource {
    /// Reports the stream's viewers, removals by reason, encoder and network counters, ladder rungs and filter statistics.
    public func collect(into sink: MetricsSink) {
        let stream = [("stream", name)]
        sink.gauge("sluice_stream_viewers", Double(viewerCount), labels: stream, help: "WHEP viewers connected to a served stream.")
        sink.gauge(
            "sluice_stream_viewer_lanes", Double(viewerLaneCount), labels: stream,
            help: "Threads (lanes) pushing the stream to its viewers now, each carrying several; one per medium per lane.")
        for (reason, n) in viewerRemovals {
            sink.counter(
                "sluice_stream_viewers_removed_total", total: Double(n), labels: stream + [("reason", reason)],
                help: "Viewers the server removed without their DELETE, by reason.")
        }
        sink.counter(
            "sluice_stream_encoded_video_frames_total", total: Double(encodedVideoFrames), labels: stream,
            help: "Video frames the stream's encoder produced (one encoder for all viewers).")
        sink.counter(
            "sluice_stream_encoded_video_bytes_total", total: Double(encodedVideoBytes), labels: stream,
            help: "Bytes of encoded video the stream's encoder produced.")
        collectPassthrough(labels: stream, into: sink)
        if let target = videoTargetBitrate {
            sink.gauge(
                "sluice_stream_video_target_bitrate_bps", Double(target), labels: stream,
                help: "The adaptive video encoder's target: the lowest of its viewers' bandwidth estimates, within the file's limits.")
        }
        if let k = keyframeRequestCounts {
            for (outcome, n) in [("passed", k.passed), ("coalesced", k.coalesced)] {
                sink.counter(
                    "sluice_stream_keyframe_requests_total", total: Double(n), labels: stream + [("outcome", outcome)],
                    help: Self.keyframeRequestsHelp)
            }
        }
        collectRenditions(labels: stream, into: sink)
        collectTraffic(viewerTraffic, labels: stream, into: sink)
        for s in filterStatistics {
            let labels = stream + [("filter", s.filter), ("element", s.element)]
            sink.counter(
                "sluice_filter_frames_total", total: Double(s.frames.load(ordering: .relaxed)), labels: labels,
                help: "Frames handed to a Swift filter.")
            sink.counter(
                "sluice_filter_dropped_frames_total", total: Double(s.dropped.load(ordering: .relaxed)), labels: labels,
                help: "Frames a Swift filter dropped.")
            sink.counter(
                "sluice_filter_errors_total", total: Double(s.errors.load(ordering: .relaxed)), labels: labels,
                help: "Errors a Swift filter threw.")
        }
    }

    /// Which media pass through untouched (their bitrate is the source's: congestion control
    /// cannot change it), the live sources' outages, and the cached frames sent to start viewers.
    package static let keyframeRequestsHelp =
        "Keyframe requests for the stream's video: passed to the encoder, folded into the next (at most one per 500 ms), or unanswered (a passed-through source makes keyframes only when it will)."

    private func collectPassthrough(labels stream: [(String, String)], into sink: MetricsSink) {
        for branch in spec.sendBranches where branch.encode.passthrough {
            sink.gauge(
                "sluice_stream_passthrough", 1, labels: stream + [("media", branch.media.rawValue)],
                help: "1: this medium goes to viewers as its source encoded it; its bitrate is the source's and congestion control cannot change it.")
            if branch.encode.transcodeForViewers != nil {
                sink.gauge(
                    "sluice_stream_transcoded_viewers", Double(transcodedViewerCount), labels: stream + [("media", branch.media.rawValue)],
                    help:
                        "Viewers getting the stream encoded again (passthrough: auto): they cannot decode the source as it is."
                )
                let transcoding = viewerTranscoding
                for codec in ViewerPlan.transcodeTargets {
                    let labels = stream + [("media", branch.media.rawValue), ("codec", codec.rawValue)]
                    let now = transcoding[codec] ?? (false, 0)
                    sink.gauge(
                        "sluice_stream_transcoding", now.running ? 1 : 0, labels: labels,
                        help: "1: the stream is being decoded and encoded again in this codec for such viewers now (only while one watches).")
                    sink.counter(
                        "sluice_stream_transcode_starts_total", total: Double(now.starts), labels: labels,
                        help: "Times that encoder was started: by the first such viewer after none.")
                }
            }
        }
        for source in sourceHealth {
            let labels = stream + [("source", source.source)]
            sink.gauge("sluice_source_up", source.back ? 1 : 0, labels: labels, help: "1: the live source delivers media; 0: it is away and being reconnected.")
            sink.counter(
                "sluice_source_outages_total", total: Double(source.outages), labels: labels,
                help: "Times the live source stopped (an error, the end of its stream, or 5 s without media).")
            sink.counter(
                "sluice_source_away_seconds_total", total: source.away_s, labels: labels,
                help: "Seconds the live source was away, all outages together (the current one so far).")
            if let shown = source.fallback_s {
                sink.counter(
                    "sluice_source_fallback_seconds_total", total: shown, labels: labels,
                    help: "Seconds viewers were sent the source's fallback (capture.fallback) instead of the source.")
            }
        }
        if let n = unansweredKeyframeRequests {
            sink.counter(
                "sluice_stream_keyframe_requests_total", total: Double(n), labels: stream + [("outcome", "unanswered")],
                help: Self.keyframeRequestsHelp)
        }
        if let sent = cachedFramesSent {
            sink.counter(
                "sluice_stream_cached_frames_sent_total", total: Double(sent), labels: stream,
                help: "Frames of the passthrough stream's last group of pictures sent to start viewers at once.")
        }
    }

    /// The ladder's rungs: viewers, bitrate and encoder output per rung, and switches.
    private func collectRenditions(labels stream: [(String, String)], into sink: MetricsSink) {
        for r in renditions {
            let labels = stream + [("rendition", r.name)]
            sink.gauge(
                "sluice_stream_rendition_viewers", Double(r.viewers), labels: labels,
                help: "Viewers getting this rung of the stream's ladder.")
            sink.gauge(
                "sluice_stream_rendition_bitrate_bps", Double(r.bitsPerSecond), labels: labels,
                help: "What this rung's encoder sends, over the last 2 s.")
            sink.counter(
                "sluice_stream_rendition_encoded_frames_total", total: Double(r.encodedFrames), labels: labels,
                help: "Frames this rung's encoder produced.")
            sink.counter(
                "sluice_stream_rendition_encoded_bytes_total", total: Double(r.encodedBytes), labels: labels,
                help: "Bytes this rung's encoder produced.")
        }
        if let moves = renditionMoves {
            for (direction, n) in [("up", moves.up), ("down", moves.down)] {
                sink.counter(
                    "sluice_stream_rendition_switches_total", total: Double(n), labels: stream + [("direction", direction)],
                    help: "Viewers moved to a better (up) or lesser (down) rung, at its keyframe.")
            }
        }
    }

    /// The viewers' network figures. Per stream, not per viewer: viewer ids would make a
    /// series per session, which Prometheus advises against (unbounded label values); the
    /// spread across viewers shows as the median and the largest round trip and jitter.
    private func collectTraffic(_ t: ViewerTrafficReport, labels: [(String, String)], into sink: MetricsSink) {
        let counters: [(String, Int, String)] = [
            ("sluice_stream_rtp_sent_packets_total", t.totals.packetsSent, "RTP packets sent to the stream's viewers."),
            ("sluice_stream_rtp_sent_bytes_total", t.totals.bytesSent, "RTP bytes sent to the stream's viewers."),
            ("sluice_stream_rtp_packets_lost_total", t.totals.packetsLost, "Packets the viewers reported lost (RTCP receiver reports)."),
            ("sluice_stream_nack_received_total", t.totals.nacks, "NACKs the viewers sent (requests to retransmit)."),
            ("sluice_stream_pli_received_total", t.totals.plis, "Picture loss indications the viewers sent (keyframe requests)."),
            ("sluice_stream_fir_received_total", t.totals.firs, "Full intra requests the viewers sent."),
            ("sluice_stream_rtx_sent_packets_total", t.totals.rtxPackets, "Packets retransmitted (RTX) to the viewers."),
            (
                "sluice_stream_viewer_queue_dropped_buffers_total", t.totals.queueOverruns,
                "Buffers the viewers' leaky queues dropped because a viewer fell behind (one per overrun)."
            )
        ]
        for (name, value, help) in counters { sink.counter(name, total: Double(value), labels: labels, help: help) }
        let spreads: [(String, [Double], String)] = [
            ("round_trip", t.roundTrips, "round trip to the viewers (RTCP)"),
            ("jitter", t.jitters, "jitter the viewers report")
        ]
        for (figure, values, what) in spreads {
            let spread = ViewerTrafficReport.medianAndMax(values)
            for (stat, value) in [("median", spread?.median), ("max", spread?.max)] {
                let name = "sluice_stream_viewer_\(figure)_\(stat)_seconds", help = "\(stat == "max" ? "Largest" : "Median") \(what)."
                // Absent while no current viewer reports it, rather than its last value.
                if let value { sink.gauge(name, value, labels: labels, help: help) } else { sink.removeGauge(name, labels: labels, help: help) }
            }
        }
    }
}
