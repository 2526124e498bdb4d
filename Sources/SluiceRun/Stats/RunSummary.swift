import Foundation

/// One line of live statistics, produced about once a second.
public struct LiveStats: Sendable {
    /// Seconds since the run started.
    public var elapsed: Double
    /// Encoded video frames sent per second over the last interval.
    public var sendFps: Double
    /// Decoded video frames received per second over the last interval.
    public var receiveFps: Double
    /// Decoded audio buffers received per second over the last interval.
    public var receiveAudioPerSecond: Double
    /// Outgoing RTP bitrate in kbit/s (incoming for a receive-only run), webrtcbin's figure:
    /// the mean over the window between its last two reads (`RunOptions.webrtcStatsInterval`).
    public var bitrateKbps: Double
    /// Round-trip time in milliseconds from RTCP receiver reports, as webrtcbin's last read
    /// had it; nil until known.
    public var roundTripMs: Double?
    /// True on the lines that read webrtcbin's statistics: `bitrateKbps` and `roundTripMs`
    /// are new; on the others they repeat the last read.
    public var wireRead = true
    /// webrtcbin's ICE connection state (`new`, `checking`, `connected`, …; `none` without a sending peer).
    public var iceState: String
    /// What the video encoder produced over the last interval, in kbit/s (before RTP).
    public var encodedVideoKbps: Double = 0
    /// Level of the received audio over the last interval, in dBFS (-100 for silence).
    public var receiveAudioLevelDB: Double?
    /// With an adaptive bitrate: the encoder's target and the two estimates, kbit/s.
    public var congestion: (targetKbps: Double, delayKbps: Double, lossKbps: Double, reports: Int)?

    /// The fields of a `stats` event (`PipelineEvents`).
    public var eventFields: [String: PipelineEvent.Value] {
        var f: [String: PipelineEvent.Value] = [
            "elapsed_s": .number(elapsed), "send_fps": .number(sendFps), "receive_fps": .number(receiveFps),
            "audio_buffers_per_s": .number(receiveAudioPerSecond), "bitrate_kbps": .number(bitrateKbps),
            "encoded_video_kbps": .number(encodedVideoKbps), "ice_state": .text(iceState)
        ]
        if let roundTripMs { f["rtt_ms"] = .number(roundTripMs) }
        if let receiveAudioLevelDB { f["receive_audio_level_db"] = .number(receiveAudioLevelDB) }
        if let c = congestion {
            f["target_kbps"] = .number(c.targetKbps); f["estimate_delay_kbps"] = .number(c.delayKbps)
            f["estimate_loss_kbps"] = .number(c.lossKbps); f["twcc_reports"] = .number(Double(c.reports))
        }
        return f
    }

    /// Whether the run sends video (`send` is left out of `line` when it does not).
    public var sendsVideo = true
    /// Whether the run receives video (`recv` is left out of `line` when it does not).
    public var receivesVideo = true

    /// `  3.0s  send 30.0 fps  recv 29.9 fps  1984 kbit/s  rtt 0.4 ms  ice connected`
    public var line: String {
        var s = String(format: "%6.1fs", elapsed)
        if sendsVideo { s += String(format: "  send %5.1f fps", sendFps) }
        if receivesVideo { s += String(format: "  recv %5.1f fps", receiveFps) }
        if receiveAudioPerSecond > 0 { s += String(format: "  audio %5.1f/s", receiveAudioPerSecond) }
        s += String(format: "  %6.0f kbit/s", bitrateKbps)
        s += roundTripMs.map { String(format: "  rtt %5.1f ms", $0) } ?? "  rtt     - ms"
        if let c = congestion { s += String(format: "  target %5.0f kbit/s (%d reports)", c.targetKbps, c.reports) }
        s += "  ice \(iceState)"
        return s
    }
}

/// What a run delivered; written by `--report` as JSON.
public struct RunSummary: Sendable, Codable, Equatable, SummaryJSON {
    /// The send video branch's counters.
    public struct SendVideo: Sendable, Codable, Equatable {
        /// Frames out of the capture stage.
        public var captured: Int
        /// Frames out of the filter stage.
        public var filtered: Int
        /// Encoded frames handed to the payloader (or to the discard sink).
        public var frames: Int
        /// The codec the branch encoded with (`vp8`, …); nil if none was noted.
        public var codec: String?
        /// Bytes of encoded video handed to the payloader.
        public var bytes: Int
        /// True when the capture's own encoding went on untouched (`encode: none`): nothing
        /// was decoded or encoded, so `codec` is the source's. Nil otherwise.
        public var passthrough: Bool?
        /// With `encode.simulcast`: each layer, best first (`frames` and `bytes` above are the
        /// best layer's). Nil otherwise.
        public var simulcast: [SimulcastLayerReport]?

        package init(captured: Int, filtered: Int, frames: Int, codec: String? = nil, bytes: Int, passthrough: Bool? = nil) {
            self.captured = captured; self.filtered = filtered; self.frames = frames
            self.codec = codec; self.bytes = bytes; self.passthrough = passthrough
        }
    }
    /// What one simulcast layer sent.
    public struct SimulcastLayerReport: Sendable, Codable, Equatable {
        /// The layer's RTP stream id.
        public var rid: String
        /// Its picture size.
        public var width: Int
        /// Its picture height.
        public var height: Int
        /// Encoded frames handed to its payloader.
        public var frames: Int
        /// Of which keyframes.
        public var keyframes: Int
        /// Bytes of encoded video handed to its payloader.
        public var bytes: Int
        /// Peers' keyframe requests that named this layer's SSRC.
        public var keyframe_requests: Int
        /// With `encode.adaptive_layers`: times the sender's estimate switched the layer off
        /// (it could not carry it).
        public var switched_off: Int?
        /// With `encode.adaptive_layers`: times it was switched on again.
        public var switched_on: Int?
        /// Whether the peer's description took the layer (`a=simulcast:recv`); false: it
        /// was never sent. Nil where the peer's description is not checked (servers).
        public var taken_by_peer: Bool?
    }
    /// The send audio branch's counters.
    public struct SendAudio: Sendable, Codable, Equatable {
        /// Encoded audio buffers handed to the payloader.
        public var buffers: Int
        /// The codec the branch encoded with (`opus`); nil if none was noted.
        public var codec: String?
        /// True when the capture's own encoding went on untouched (`encode: none`). Nil otherwise.
        public var passthrough: Bool?
    }
    /// What the send side delivered, per medium.
    public struct Send: Sendable, Codable, Equatable {
        /// The video branch's counters; nil without `send.video`.
        public var video: SendVideo?
        /// The audio branch's counters; nil without `send.audio`.
        public var audio: SendAudio?
    }
    /// The receive video branch's counters.
    public struct ReceiveVideo: Sendable, Codable, Equatable {
        /// Decoded frames.
        public var frames: Int
        /// Width in pixels of the decoded video (0 if none arrived).
        public var width: Int
        /// Height in pixels of the decoded video (0 if none arrived).
        public var height: Int
        /// Decoded frames per second, averaged over the whole run.
        public var fps: Double
        /// The codec received (`vp8`, …, or `mosaic`); nil if none was negotiated.
        public var codec: String?
        /// Freezes by WebRTC's definition (an interval between decoded frames of at least
        /// max(3 × the mean of the last 30, that mean + 150 ms)), as Chrome's `freezeCount`.
        public var freezes: Int?
        /// Their total length, ms (`totalFreezesDuration`).
        public var freeze_ms: Double?
        /// The longest of them, ms.
        public var longest_freeze_ms: Double?
    }
    /// The receive audio branch's counters.
    public struct ReceiveAudio: Sendable, Codable, Equatable {
        /// Decoded audio buffers.
        public var buffers: Int
        /// The codec received (`opus`); nil if none was negotiated.
        public var codec: String?
    }
    /// One publisher's stream of a room (`kind: janus`).
    public struct RoomStream: Sendable, Codable, Equatable {
        /// The publisher's display name.
        public var publisher: String
        /// `video` or `audio`.
        public var media: String
        /// The codec the publisher sent; nil if not known.
        public var codec: String?
        /// Decoded frames (video) or buffers (audio).
        public var frames: Int
        /// Width in pixels of the decoded video; nil for audio.
        public var width: Int?
        /// Height in pixels of the decoded video; nil for audio.
        public var height: Int?
        /// The publisher stopped publishing or left while this run received it.
        public var left: Bool
        /// The simulcast layer the server last said it forwards (0, the smallest, up); nil if
        /// it said none (the publisher sends one stream).
        public var substream: Int?

        /// One stream's figures (a room transport fills them in at the end of the run).
        package init(
            publisher: String, media: String, codec: String?, frames: Int, width: Int?, height: Int?, left: Bool, substream: Int? = nil
        ) {
            self.publisher = publisher; self.media = media; self.codec = codec; self.frames = frames
            self.width = width; self.height = height; self.left = left; self.substream = substream
        }
    }
    /// What the receive side delivered, per medium.
    public struct Receive: Sendable, Codable, Equatable {
        /// The video branch's counters; nil without `receive.video`.
        public var video: ReceiveVideo?
        /// The audio branch's counters; nil without `receive.audio`.
        public var audio: ReceiveAudio?
        /// A room's streams, one per publisher and medium, in the order they arrived.
        public var streams: [RoomStream]? = nil
    }
    /// Network figures from webrtcbin's statistics at the end of the run.
    public struct Network: Sendable, Codable, Equatable {
        /// Bytes of RTP sent (all outbound streams).
        public var bytes_sent: Int
        /// RTP packets sent (all outbound streams).
        public var packets_sent: Int
        /// Bytes of RTP received (all inbound streams).
        public var bytes_received: Int
        /// RTP packets received (all inbound streams).
        public var packets_received: Int
        /// Packets the receiving side reported lost (RTCP receiver reports).
        public var packets_lost: Int
        /// Round-trip time in milliseconds from RTCP receiver reports; nil if never known.
        public var rtt_ms: Double?
        /// Inbound jitter in milliseconds; nil if never known.
        public var jitter_ms: Double?
        /// Average bitrate over the run in kbit/s: what was sent, or what was received on a receive-only run.
        public var bitrate_kbps: Double
        /// Loss-repair requests (NACK, PLI, FIR), sent and received, both peers of a
        /// loopback run together.
        public var nack_count: Int = 0
        /// Picture loss indications (PLI), sent and received.
        public var pli_count: Int = 0
        /// Full intra requests (FIR), sent and received.
        public var fir_count: Int = 0
        /// Packets the sending peer retransmitted (RTX).
        public var rtx_packets_sent: Int = 0
        /// Lost packets the receiving peer got back from a retransmission in time, and its
        /// jitter buffers' latency at the end (the file's, or higher where repairs needed it).
        public var rtx_repaired: Int = 0
        /// The receiving jitter buffers' latency in ms at the end of the run; nil without any.
        public var jitter_buffer_latency_ms: Int?
        /// Keyframe requests (peers' PLI/FIR and Sluice's own) that reached the video encoder,
        /// and those that came within half a second of one and were folded into the next.
        public var keyframe_requests: Int?
        /// Keyframe requests folded into the next keyframe because one came within half a second.
        public var keyframe_requests_coalesced: Int?
        /// Keyframe requests from peers for a passthrough video stream, which its source
        /// cannot answer (the next keyframe is the source's own).
        public var keyframe_requests_unanswered: Int?
    }

    /// A live network source's outages (`sources`, only sources that had one).
    public struct SourceReport: Sendable, Codable, Equatable {
        /// The source as the user knows it (`rtsp capture rtsp://cam/…`, no password).
        public var source: String
        /// How many times media stopped.
        public var outages: Int
        /// Seconds without media, all outages together.
        public var away_s: Double
        /// Why media stopped the last time.
        public var last_reason: String
        /// Whether media came back after the last outage.
        public var back: Bool
        /// Times the branch's fallback went on air (nil: no fallback declared).
        public var fallback_shown: Int?
        /// Seconds the fallback was on air, all times together (nil: no fallback declared).
        public var fallback_s: Double?
    }

    /// A segmented recording (`sink: {kind: record}`): the files it wrote and deleted.
    public struct RecordingReport: Sendable, Codable, Equatable {
        /// The path as written in the pipeline file.
        public var path: String
        /// Each segment's file, in order.
        public var segments: [String]
        /// Old segments deleted because of `keep`.
        public var deleted: [String]
    }

    /// One Swift filter element's counters.
    public struct FilterReport: Sendable, Codable, Equatable {
        /// The summary's line: frames, drops, errors, and each event's count with the fields
        /// of its last one.
        var line: String {
            var line = "  filter \(SummaryText.column(filter, width: 8)) \(frames) frames"
            if dropped > 0 { line += ", \(dropped) dropped" }
            if errors > 0 { line += ", \(errors) errors (last: \(last_error ?? "?"))" }
            for (k, v) in events.sorted(by: { $0.key < $1.key }) {
                line += ", \(v) \(k) events"
                guard let fields = last_event_fields?[k], !fields.isEmpty else { continue }
                line += " (last: " + fields.sorted { $0.key < $1.key }.map { String(format: "%@ %.1f", $0.key, $0.value) }.joined(separator: ", ") + ")"
            }
            return line
        }

        /// The filter's name as written in the pipeline file.
        public var filter: String
        /// The name of the GStreamer element that ran the filter.
        public var element: String
        /// Frames the filter handled.
        public var frames: Int
        /// Frames the filter dropped.
        public var dropped: Int
        /// Times the filter threw.
        public var errors: Int
        /// Events the filter posted, counted by event name.
        public var events: [String: Int]
        /// The message of the filter's last error; nil if it never threw.
        public var last_error: String?
        /// The numeric fields of the last event of each name (a `level` filter's last
        /// `rms_db` and `peak_db`); nil when no event carried fields.
        public var last_event_fields: [String: [String: Double]]?
    }

    /// One data channel's counters.
    public struct DataChannelReport: Sendable, Codable, Equatable {
        /// The channel's label.
        public var label: String
        /// Whether the channel ever opened.
        public var opened: Bool
        /// Messages sent on the channel.
        public var sent: Int
        /// Messages received on the channel.
        public var received: Int
    }

    /// The network session of a signalled transport (apprtc, camera).
    public struct Session: Sendable, Codable, Equatable {
        /// `offerer` or `answerer` (apprtc), `viewer` (camera).
        public var role: String
        /// The camera's media session, or the room.
        public var id: String?
        /// How often the camera session was extended.
        public var extensions: Int = 0
        /// Why the session ended, when the other side ended it.
        public var ended_by_peer: String?
        /// The other party (a Jingle call's JID).
        public var peer: String?
        /// Requests this side refused, by error condition (a Jingle call's bad or unknown IQs).
        public var refused: [String: Int]?

        /// Every field (the kinds' sessions fill in what they know).
        package init(role: String, id: String? = nil, extensions: Int = 0, ended_by_peer: String? = nil, peer: String? = nil, refused: [String: Int]? = nil) {
            self.role = role; self.id = id; self.extensions = extensions; self.ended_by_peer = ended_by_peer
            self.peer = peer; self.refused = refused
        }
    }

    /// The pipeline file's path.
    public var pipeline: String
    /// How long the run lasted, in seconds.
    public var duration_s: Double
    /// What the send side delivered.
    public var send: Send
    /// What the receive side delivered.
    public var receive: Receive
    /// Milliseconds from PLAYING to the first decoded frame; nil if none arrived.
    public var time_to_first_frame_ms: Double?
    /// Where the time to first frame went: each start-up step, in ms since the run started.
    public var start_up_steps: [StartUpStep]?
    /// webrtcbin's ICE connection state at the end of the run.
    public var ice_state: String
    /// Network figures at the end of the run.
    public var network: Network
    /// CPU seconds (user + system) the process used during the run.
    public var cpu_seconds: Double
    /// The GStreamer version the run used.
    public var gstreamer_version: String
    /// Swift filters that ran, in creation order (hot-swapped ones included).
    public var filters: [FilterReport] = []
    /// Declared data channels.
    public var data_channels: [DataChannelReport] = []
    /// Live network sources that went away during the run, and for how long.
    public var sources: [SourceReport] = []
    /// Segmented recordings and their files.
    public var recordings: [RecordingReport] = []
    /// The signalled session, for apprtc and camera transports.
    public var session: Session?

    /// Human summary printed at the end of `sluice run`.
    public var text: String {
        var lines = ["summary of \(pipeline) (\(String(format: "%.1f", duration_s)) s)"]
        let untouched = " (passthrough: not transcoded, bitrate set by the source)"
        if let v = send.video { lines.append("  send video     \(v.frames) frames \(v.codec ?? "")\(v.passthrough == true ? untouched : "")") }
        if let a = send.audio { lines.append("  send audio     \(a.buffers) packets \(a.codec ?? "")\(a.passthrough == true ? untouched : "")") }
        if let v = receive.video {
            let freezes =
                (v.freezes ?? 0) > 0 ? String(format: ", %d freezes (%.0f ms, longest %.0f)", v.freezes ?? 0, v.freeze_ms ?? 0, v.longest_freeze_ms ?? 0) : ""
            lines.append(String(format: "  receive video  %d frames %dx%d %.1f fps %@", v.frames, v.width, v.height, v.fps, v.codec ?? "") + freezes)
        }
        if let a = receive.audio { lines.append("  receive audio  \(a.buffers) buffers \(a.codec ?? "")") }
        // A run that receives no video has no first frame to wait for (a send-only run).
        if receive.video != nil {
            lines.append(
                "  first frame    "
                    + (time_to_first_frame_ms.map { String(format: "%.0f ms", $0) + (start_up_steps ?? []).dtlsKeyWaitNote }
                        ?? "never"))
        }
        if let steps = start_up_steps, !steps.isEmpty {
            lines.append("  start-up       " + SummaryText.steps(steps))
        }
        lines.append(
            String(
                format: "  network        %.0f kbit/s, %d packets lost, rtt %@", network.bitrate_kbps,
                network.packets_lost, network.rtt_ms.map { String(format: "%.1f ms", $0) } ?? "-"))
        lines.append("  ice            \(ice_state)")
        lines += filters.map(\.line)
        for o in sources {
            lines.append(
                "  source         \(o.source): \(o.outages) outage\(o.outages == 1 ? "" : "s"), "
                    + String(format: "%.1f s away", o.away_s) + (o.back ? ", back" : ", still away")
                    + (o.outages > 0 ? " (last: \(o.last_reason))" : "")
                    + (o.fallback_s.map { String(format: ", fallback on air %.1f s", $0) } ?? ""))
        }
        for r in recordings {
            var line = "  recording      \(r.path): \(r.segments.count) segment\(r.segments.count == 1 ? "" : "s")"
            if let last = r.segments.last { line += ", last \(last)" }
            if !r.deleted.isEmpty { line += ", \(r.deleted.count) old deleted" }
            lines.append(line)
        }
        for d in data_channels {
            lines.append(
                "  data \(SummaryText.column(d.label, width: 10)) \(d.opened ? "open" : "never opened"), \(d.sent) sent, \(d.received) received"
            )
        }
        if let s = session {
            var line = "  session        \(s.role)" + (s.id.map { " \($0)" } ?? "")
            if s.extensions > 0 { line += ", extended \(s.extensions) times" }
            if let why = s.ended_by_peer { line += ", ended by the other side (\(why))" }
            lines.append(line)
        }
        lines.append(SummaryText.cpuLine(seconds: cpu_seconds, over: duration_s))
        return lines.joined(separator: "\n")
    }

}

/// CPU seconds used by this process so far (user + system).
package func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    func s(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
    return s(usage.ru_utime) + s(usage.ru_stime)
}

extension RunSummary.Session {
    /// A session of `role` (what the run was to the other side: "publisher", "viewer", …)
    /// with the server's `id` for it, if any.
    public init(role: String, id: String? = nil) {
        self.init(role: role, id: id, extensions: 0)
    }
}
