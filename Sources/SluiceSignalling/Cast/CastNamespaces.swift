/// The CASTV2 namespaces a receiver speaks, and the Default Media Receiver's app id.
public enum CastNamespace {
    /// Virtual connections: CONNECT and CLOSE.
    public static let connection = "urn:x-cast:com.google.cast.tp.connection"
    /// PING and PONG.
    public static let heartbeat = "urn:x-cast:com.google.cast.tp.heartbeat"
    /// The receiver: GET_STATUS, LAUNCH, STOP, SET_VOLUME, RECEIVER_STATUS.
    public static let receiver = "urn:x-cast:com.google.cast.receiver"
    /// The media session: LOAD, PLAY, PAUSE, SEEK, STOP, the queue, MEDIA_STATUS.
    public static let media = "urn:x-cast:com.google.cast.media"
    /// Device authentication (senders' challenge).
    public static let deviceAuth = "urn:x-cast:com.google.cast.tp.deviceauth"
    /// The platform's own endpoint.
    public static let platform = "receiver-0"
    /// Google's Default Media Receiver: the app senders launch to play a URL.
    public static let defaultMediaReceiver = "CC1AD845"
}

/// What the receiver tells its player to do, and what the player reports back.
public enum CastPlayerCommand: Sendable, Equatable {
    /// Load `url` and start at `startTime` seconds; play at once when `autoplay`.
    case load(url: String, startTime: Double, autoplay: Bool)
    /// Resume playing.
    case play
    /// Pause.
    case pause
    /// Seek to this many seconds.
    case seek(Double)
    /// Stop and unload the media.
    case stop
    /// Set the stream volume (0...1) and mute.
    case volume(level: Double, muted: Bool)
}

/// Where the player stands, as MEDIA_STATUS reports it.
public struct CastPlayerSnapshot: Sendable, Equatable {
    /// IDLE, BUFFERING, PLAYING or PAUSED.
    public var playerState: String
    /// The position in seconds.
    public var currentTime: Double
    /// The media's length in seconds, if known (nil for a live stream).
    public var duration: Double?
    /// Why it went IDLE: FINISHED, CANCELLED, INTERRUPTED or ERROR.
    public var idleReason: String?
    /// A snapshot; the defaults describe an idle player.
    public init(playerState: String = "IDLE", currentTime: Double = 0, duration: Double? = nil, idleReason: String? = nil) {
        self.playerState = playerState; self.currentTime = currentTime; self.duration = duration; self.idleReason = idleReason
    }
}
