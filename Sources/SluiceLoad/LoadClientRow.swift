import SluiceRun
import SluiceMeasure
/// One client's figures in a load report, worked out from its `ClientObservation`. Times are
/// milliseconds from the client's request (`startedAt`); rates are over the client's steady
/// window, from one second after its first frame to its end.
public struct LoadClientRow: Sendable, Codable, Equatable {
    /// The client's network figures, from its WebRTC statistics at the end.
    public struct Network: Sendable, Codable, Equatable {
        /// RTP bytes received.
        public var bytes_received: Int
        /// Packets the client counts as lost.
        public var packets_lost: Int
        /// NACKs the client sent.
        public var nacks_sent: Int
        /// Picture loss indications the client sent.
        public var plis_sent: Int
        /// Full intra requests the client sent.
        public var firs_sent: Int
        /// Round-trip time, ms (nil: not known).
        public var rtt_ms: Double?
        /// Interarrival jitter, ms (nil: not known).
        public var jitter_ms: Double?
        /// The path ICE selected, `LOCAL -> REMOTE` as `PROTOCOL TYPE` each (`udp host -> udp
        /// host`); nil when not known.
        public var path: String?

        /// The figures of a `ClientNetwork`.
        public init(_ n: ClientNetwork) {
            bytes_received = n.bytesReceived
            packets_lost = n.packetsLost
            nacks_sent = n.nacksSent
            plis_sent = n.plisSent
            firs_sent = n.firsSent
            rtt_ms = n.rttMs
            jitter_ms = n.jitterMs
            path = n.path
        }
    }

    /// The client's number (unique across shards).
    public var id: Int
    /// Its group; "" when the pipeline file has none.
    public var group: String
    /// Whether it decodes (and reads framestamps).
    public var decodes: Bool
    /// When it sent its request, seconds since the run started.
    public var started_at_s: Double
    /// When it left, seconds since the run started (nil: still running).
    public var ended_at_s: Double?
    /// Request to ICE connected, ms (nil: never connected).
    public var connect_ms: Double?
    /// Request to the peer connection connected (ICE and DTLS), ms (nil: never).
    public var dtls_ms: Double?
    /// Request to the first frame, ms (nil: no frame arrived).
    public var time_to_first_frame_ms: Double?
    /// Frames received.
    public var frames: Int
    /// Keyframes among them.
    public var keyframes: Int
    /// Frames per second over the steady window (the whole time with frames when that is under
    /// a second); nil without frames, 0 for a client that connected and received none.
    public var fps: Double?
    /// Freezes (WebRTC's definition, `FreezeDetector`).
    public var freezes: Int
    /// Their total duration, ms.
    public var freeze_ms: Double
    /// The longest of them, ms (0 without one; absent from reports older than this field).
    public var longest_freeze_ms: Double?
    /// Freezes per minute of video (first frame to last), for clients with at least
    /// `LoadClientRow.minimumVideoSeconds` of it.
    public var freezes_per_minute: Double?
    /// Video bitrate from the first frame to the client's end, kbit/s (nil: no frames).
    public var bitrate_kbps: Double?
    /// Network figures (nil: none were read).
    public var network: Network?
    /// Glass-to-glass delays read (decoding clients).
    public var glass_to_glass_samples: Int
    /// Median glass-to-glass delay, ms (nil: none read).
    public var glass_to_glass_p50_ms: Double?
    /// 95th-percentile glass-to-glass delay, ms (nil: none read).
    public var glass_to_glass_p95_ms: Double?
    /// How it ended.
    public var outcome: ClientOutcome.Kind
    /// Why, for the three failures (the service's error, the connection's failure).
    public var reason: String?

    /// Least video for a freeze rate, seconds (libwebrtc's `kMinVideoDurationMs` for its
    /// `NumberFreezesPerMinute`): shorter stretches give rates that say nothing.
    public static let minimumVideoSeconds = 3.0
    /// True when it left early to be replaced (`load.churn`); nil otherwise.
    public var churned: Bool?
    /// What it heard (nil: no audio arrived).
    public var audio: Audio?
    /// The picture size of the latest keyframe it received (`640x360`; nil: none).
    public var video_size: String?

    /// The row of one observed client; `runEnd` (seconds) ends a client still running.
    public init(_ o: ClientObservation, runEnd: Double) {
        let f = o.frames
        let end = o.endedAt ?? Swift.max(runEnd, f.lastAt ?? 0)
        func ms(_ t: Double?) -> Double? { t.map { ($0 - o.startedAt) * 1000 } }
        id = o.id
        group = o.group
        decodes = o.decodes
        started_at_s = o.startedAt
        ended_at_s = o.endedAt
        connect_ms = ms(o.iceConnectedAt)
        dtls_ms = ms(o.dtlsConnectedAt)
        time_to_first_frame_ms = ms(f.firstAt)
        frames = f.count
        keyframes = f.keyframes
        fps = Self.steadyFps(f, end: end) ?? (o.iceConnectedAt == nil ? nil : 0)
        freezes = f.freezes
        freeze_ms = f.freezeSeconds * 1000
        longest_freeze_ms = f.longestFreezeSeconds * 1000
        // As libwebrtc: video lasts from the first frame to the last (a stall at the end is no freeze).
        let video = (f.lastAt ?? 0) - (f.firstAt ?? 0)
        freezes_per_minute = video >= Self.minimumVideoSeconds ? Double(f.freezes) / (video / 60) : nil
        let present = end - (f.firstAt ?? end)
        bitrate_kbps = present > 0 ? Double(f.bytes) * 8 / 1000 / present : nil
        network = o.network.map(Network.init)
        let g2g = o.decodes ? o.glassToGlassMs.filter(\.isFinite).sorted() : []
        video_size = o.videoSize
        glass_to_glass_samples = g2g.count
        glass_to_glass_p50_ms = g2g.isEmpty ? nil : LatencyFigures.percentile(g2g, 50)
        glass_to_glass_p95_ms = g2g.isEmpty ? nil : LatencyFigures.percentile(g2g, 95)
        outcome = o.outcome.kind
        reason = o.outcome.reason
        churned = o.churned
        audio = o.audio.map { Audio($0, startedAt: o.startedAt, end: end, decodes: o.decodes) }
    }

    /// Frames per second from a second after the first frame to `end`; from the first frame
    /// when that leaves under a second; nil without frames or time.
    package static func steadyFps(_ f: FrameTrack, end: Double) -> Double? {
        guard let first = f.firstAt, end > first else { return nil }
        let from = end - (first + 1) >= 1 ? first + 1 : first
        return f.framesPerSecond(from: from, to: end)
    }

    /// Whether the client succeeded: it stayed as planned, or until the run was stopped
    /// (`ClientOutcome.succeeded`).
    public var succeeded: Bool { outcome.succeeded }
}

extension ClientOutcome {
    /// How a client ended, without the reason; its raw value is the report's name for it.
    public enum Kind: String, Sendable, Codable, Equatable, CaseIterable {
        /// Whether this counts as a success (as `ClientOutcome.succeeded`).
        public var succeeded: Bool { self == .leftAsPlanned || self == .stoppedEarly }

        /// Still running.
        case running
        /// Stayed its planned time.
        case leftAsPlanned = "left_as_planned"
        /// Was connected and receiving when the run was stopped early (counts as a success).
        case stoppedEarly = "stopped_early"
        /// The service refused it.
        case refused
        /// It never connected.
        case failedToConnect = "failed_to_connect"
        /// The service went away after it connected.
        case serviceGone = "service_gone"
    }

    /// The outcome without its reason.
    public var kind: Kind {
        switch self {
        case .running: .running
        case .leftAsPlanned: .leftAsPlanned
        case .stoppedEarly: .stoppedEarly
        case .refused: .refused
        case .failedToConnect: .failedToConnect
        case .serviceGone: .serviceGone
        }
    }

    /// The reason a failure gave; nil for `running`, `leftAsPlanned` and `stoppedEarly`.
    public var reason: String? {
        switch self {
        case .running, .leftAsPlanned, .stoppedEarly: nil
        case .refused(let r), .failedToConnect(let r), .serviceGone(let r): r
        }
    }
}

extension LoadClientRow {
    /// What one client heard: its audio packets, the missing ones, and where stamps were read,
    /// mouth-to-ear and the A/V offset.
    public struct Audio: Sendable, Codable, Equatable {
        /// Audio RTP packets received.
        public var packets: Int
        /// Request to the first audio packet, ms.
        public var time_to_first_audio_ms: Double?
        /// Packets the sequence numbers say never came.
        public var missing_packets: Int
        /// Their sound, ms (what the decoder had to conceal: `ClientAudio`).
        public var missing_ms: Double
        /// Missing sound per minute of audio (first packet to the client's end), ms; nil with
        /// under `LoadClientRow.minimumVideoSeconds` of audio.
        public var missing_ms_per_minute: Double?
        /// Decoded sound that reached the stamp reader (decoding clients), ms.
        public var decoded_ms: Double?
        /// Audio stamps read (decoding clients).
        public var mouth_to_ear_samples: Int
        /// Sync tones whose stamp did not check (decoding clients).
        public var unreadable_stamps: Int?
        /// Median mouth-to-ear delay, ms.
        public var mouth_to_ear_p50_ms: Double?
        /// 95th-percentile mouth-to-ear delay, ms.
        public var mouth_to_ear_p95_ms: Double?
        /// Stamps paired with a video frame captured within 40 ms.
        public var av_offset_samples: Int
        /// Median A/V offset (audio minus video; positive: audio late), ms.
        public var av_offset_p50_ms: Double?

        /// The figures of what a client that started at `startedAt` and ended at `end`
        /// (seconds since the run started) heard.
        public init(_ a: ClientAudio, startedAt: Double, end: Double, decodes: Bool) {
            packets = a.packets
            time_to_first_audio_ms = a.firstAt.map { ($0 - startedAt) * 1000 }
            missing_packets = a.missingPackets
            missing_ms = a.missingMs
            let heard = end - (a.firstAt ?? end)
            missing_ms_per_minute = heard >= LoadClientRow.minimumVideoSeconds ? a.missingMs / (heard / 60) : nil
            decoded_ms = decodes ? a.decodedMs : nil
            unreadable_stamps = decodes ? a.unreadableStamps : nil
            let delays = decodes ? a.mouthToEarMs.filter(\.isFinite).sorted() : []
            mouth_to_ear_samples = delays.count
            mouth_to_ear_p50_ms = delays.isEmpty ? nil : LatencyFigures.percentile(delays, 50)
            mouth_to_ear_p95_ms = delays.isEmpty ? nil : LatencyFigures.percentile(delays, 95)
            let offsets = decodes ? a.pairing.offsets.filter(\.isFinite).sorted() : []
            av_offset_samples = offsets.count
            av_offset_p50_ms = offsets.isEmpty ? nil : LatencyFigures.percentile(offsets, 50)
        }
    }
}
