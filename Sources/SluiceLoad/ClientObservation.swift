import SluiceRun
import SluiceMeasure
/// What one `sluice load` client saw, raw, as the engine records it. Times are seconds
/// since the load run started (`LoadClock`). `LoadReport` turns a crowd of these into
/// per-client figures, aggregates and a timeline.
public struct ClientObservation: Sendable, Codable, Equatable {
    /// The client's number in the crowd (0-based, unique across shards).
    public var id: Int
    /// The group it belongs to (`load.groups`); "" when the file has none.
    public var group: String
    /// Whether this client decodes (and so reads framestamps); `decode: none` clients do not.
    public var decodes: Bool
    /// When the client sent its request (WHEP POST, WHIP POST, room join).
    public var startedAt: Double
    /// When ICE reached connected (or completed).
    public var iceConnectedAt: Double?
    /// When the peer connection reached connected (ICE and DTLS).
    public var dtlsConnectedAt: Double?
    /// When the client left (planned end, failure or the service going away).
    public var endedAt: Double?
    /// Frames, keyframes, bytes, freezes and per-second counts, as they arrived.
    public var frames: FrameTrack
    /// Glass-to-glass delays in milliseconds, one per framestamp read (decoding clients).
    public var glassToGlassMs: [Double]
    /// The last network figures from the client's WebRTC statistics.
    public var network: ClientNetwork?
    /// How the client ended.
    public var outcome: ClientOutcome
    /// True when it left early to be replaced (`load.churn`): its outcome is then
    /// `leftAsPlanned`, churn being part of the plan. Nil in reports from before churn.
    public var churned: Bool?
    /// What it heard (nil: no audio stream arrived).
    public var audio: ClientAudio?
    /// The picture size of the latest keyframe received (`640x360`; nil before one).
    public var videoSize: String?

    /// A client that has just been started.
    public init(id: Int, group: String = "", decodes: Bool, startedAt: Double) {
        self.id = id
        self.group = group
        self.decodes = decodes
        self.startedAt = startedAt
        frames = FrameTrack()
        glassToGlassMs = []
        outcome = .running
    }
}

/// A client's network figures, from its webrtcbin's statistics.
public struct ClientNetwork: Sendable, Codable, Equatable {
    /// RTP bytes received.
    public var bytesReceived: Int = 0
    /// RTP bytes sent (a publisher's media; nil in reports from before publishers).
    public var bytesSent: Int?
    /// Packets counted as lost: by a viewer, of what it received; for a publisher, what the
    /// service reported lost of what it sent.
    public var packetsLost: Int = 0
    /// NACKs on the client's streams: sent by a viewer, received by a publisher.
    public var nacksSent: Int = 0
    /// Picture loss indications on the client's streams: sent by a viewer, received by a publisher.
    public var plisSent: Int = 0
    /// Full intra requests on the client's streams: sent by a viewer, received by a publisher.
    public var firsSent: Int = 0
    /// Round-trip time, ms (nil: not known).
    public var rttMs: Double?
    /// Interarrival jitter, ms (nil: not known).
    public var jitterMs: Double?
    /// The selected ICE pair, `udp host -> udp host` (nil: not known).
    public var path: String?

    /// Figures not yet known.
    public init() {}
}

/// How a load client ended.
public enum ClientOutcome: Sendable, Codable, Equatable {
    /// Still running (a report written while the run goes on).
    case running
    /// Stayed its planned time and left.
    case leftAsPlanned
    /// Was connected and receiving when the run was stopped (an interrupt) before its planned end.
    case stoppedEarly
    /// The service refused it; `reason` is the service's own error (HTTP status and body, Janus error).
    case refused(reason: String)
    /// It never connected (ICE or DTLS failed, or timed out); `reason` says which.
    case failedToConnect(reason: String)
    /// It was connected and the service went away (session ended, media stopped, connection failed).
    case serviceGone(reason: String)

    /// Whether this counts as a success: the client connected and stayed as planned, or
    /// until the run was stopped.
    public var succeeded: Bool { self == .leftAsPlanned || self == .stoppedEarly }
}
