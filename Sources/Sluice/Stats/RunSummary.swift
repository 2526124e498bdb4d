import Foundation

/// One line of live statistics, produced about once a second.
public struct LiveStats: Sendable {
    public var elapsed: Double
    public var sendFps: Double
    public var receiveFps: Double
    public var receiveAudioPerSecond: Double
    /// Outgoing RTP bitrate in kbit/s over the last interval.
    public var bitrateKbps: Double
    public var roundTripMs: Double?
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
            "encoded_video_kbps": .number(encodedVideoKbps), "ice_state": .text(iceState)]
        if let roundTripMs { f["rtt_ms"] = .number(roundTripMs) }
        if let receiveAudioLevelDB { f["receive_audio_level_db"] = .number(receiveAudioLevelDB) }
        if let c = congestion {
            f["target_kbps"] = .number(c.targetKbps); f["estimate_delay_kbps"] = .number(c.delayKbps)
            f["estimate_loss_kbps"] = .number(c.lossKbps); f["twcc_reports"] = .number(Double(c.reports))
        }
        return f
    }

    /// `  3.0s  send 30.0 fps  recv 29.9 fps  1984 kbit/s  rtt 0.4 ms  ice connected`
    public var line: String {
        var s = String(format: "%6.1fs  send %5.1f fps  recv %5.1f fps", elapsed, sendFps, receiveFps)
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
    public struct SendVideo: Sendable, Codable, Equatable {
        /// Frames out of the capture stage.
        public var captured: Int
        /// Frames out of the filter stage.
        public var filtered: Int
        /// Encoded frames handed to the payloader (or to the discard sink).
        public var frames: Int
        public var codec: String?
        public var bytes: Int
    }
    public struct SendAudio: Sendable, Codable, Equatable {
        public var buffers: Int
        public var codec: String?
    }
    public struct Send: Sendable, Codable, Equatable {
        public var video: SendVideo?
        public var audio: SendAudio?
    }
    public struct ReceiveVideo: Sendable, Codable, Equatable {
        /// Decoded frames.
        public var frames: Int
        public var width: Int
        public var height: Int
        public var fps: Double
        public var codec: String?
    }
    public struct ReceiveAudio: Sendable, Codable, Equatable {
        /// Decoded audio buffers.
        public var buffers: Int
        public var codec: String?
    }
    /// One publisher's stream of a room (`kind: janus`).
    public struct RoomStream: Sendable, Codable, Equatable {
        public var publisher: String
        public var media: String
        public var codec: String?
        /// Decoded frames (video) or buffers (audio).
        public var frames: Int
        public var width: Int?
        public var height: Int?
        /// The publisher stopped publishing or left while this run received it.
        public var left: Bool
    }
    public struct Receive: Sendable, Codable, Equatable {
        public var video: ReceiveVideo?
        public var audio: ReceiveAudio?
        /// A room's streams, one per publisher and medium, in the order they arrived.
        public var streams: [RoomStream]? = nil
    }
    public struct Network: Sendable, Codable, Equatable {
        public var bytes_sent: Int
        public var packets_sent: Int
        public var bytes_received: Int
        public var packets_received: Int
        public var packets_lost: Int
        public var rtt_ms: Double?
        public var jitter_ms: Double?
        public var bitrate_kbps: Double
        /// Loss-repair requests (NACK, PLI, FIR), sent and received, both peers of a
        /// loopback run together.
        public var nack_count: Int = 0
        public var pli_count: Int = 0
        public var fir_count: Int = 0
        /// Packets the sending peer retransmitted (RTX).
        public var rtx_packets_sent: Int = 0
        /// Lost packets the receiving peer got back from a retransmission in time, and its
        /// jitter buffers' latency at the end (the file's, or higher where repairs needed it).
        public var rtx_repaired: Int = 0
        public var jitter_buffer_latency_ms: Int?
        /// Keyframe requests (peers' PLI/FIR and Sluice's own) that reached the video encoder,
        /// and those that came within half a second of one and were folded into the next.
        public var keyframe_requests: Int?
        public var keyframe_requests_coalesced: Int?
    }

    /// One Swift filter element's counters.
    public struct FilterReport: Sendable, Codable, Equatable {
        public var filter: String
        public var element: String
        public var frames: Int
        public var dropped: Int
        public var errors: Int
        public var events: [String: Int]
        public var last_error: String?
    }

    /// One data channel's counters.
    public struct DataChannelReport: Sendable, Codable, Equatable {
        public var label: String
        public var opened: Bool
        public var sent: Int
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
    }

    public var pipeline: String
    public var duration_s: Double
    public var send: Send
    public var receive: Receive
    /// Milliseconds from PLAYING to the first decoded frame; nil if none arrived.
    public var time_to_first_frame_ms: Double?
    /// Where the time to first frame went: each start-up step, in ms since the run started.
    public var start_up_steps: [StartUpStep]?
    public var ice_state: String
    public var network: Network
    /// CPU seconds (user + system) the process used during the run.
    public var cpu_seconds: Double
    public var gstreamer_version: String
    /// Swift filters that ran, in creation order (hot-swapped ones included).
    public var filters: [FilterReport] = []
    /// Declared data channels.
    public var data_channels: [DataChannelReport] = []
    /// The signalled session, for apprtc and camera transports.
    public var session: Session?

    /// Human summary printed at the end of `sluice run`.
    public var text: String {
        var lines = ["summary of \(pipeline) (\(String(format: "%.1f", duration_s)) s)"]
        if let v = send.video { lines.append("  send video     \(v.frames) frames \(v.codec ?? "")") }
        if let a = send.audio { lines.append("  send audio     \(a.buffers) packets \(a.codec ?? "")") }
        if let v = receive.video {
            lines.append(String(format: "  receive video  %d frames %dx%d %.1f fps %@", v.frames, v.width, v.height, v.fps, v.codec ?? ""))
        }
        if let a = receive.audio { lines.append("  receive audio  \(a.buffers) buffers \(a.codec ?? "")") }
        lines.append("  first frame    " + (time_to_first_frame_ms.map { String(format: "%.0f ms", $0) + (start_up_steps ?? []).dtlsKeyWaitNote }
                                                   ?? "never"))
        if let steps = start_up_steps, !steps.isEmpty {
            lines.append("  start-up       " + SummaryText.steps(steps))
        }
        lines.append(String(format: "  network        %.0f kbit/s, %d packets lost, rtt %@", network.bitrate_kbps,
                            network.packets_lost, network.rtt_ms.map { String(format: "%.1f ms", $0) } ?? "-"))
        lines.append("  ice            \(ice_state)")
        for f in filters {
            var line = "  filter \(f.filter.padding(toLength: 8, withPad: " ", startingAt: 0)) \(f.frames) frames"
            if f.dropped > 0 { line += ", \(f.dropped) dropped" }
            if f.errors > 0 { line += ", \(f.errors) errors (last: \(f.last_error ?? "?"))" }
            for (k, v) in f.events.sorted(by: { $0.key < $1.key }) { line += ", \(v) \(k) events" }
            lines.append(line)
        }
        for d in data_channels {
            lines.append("  data \(d.label.padding(toLength: 10, withPad: " ", startingAt: 0)) \(d.opened ? "open" : "never opened"), \(d.sent) sent, \(d.received) received")
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
func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    func s(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
    return s(usage.ru_utime) + s(usage.ru_stime)
}
