/// The CASTV2 namespaces a receiver speaks, and the Default Media Receiver's app id.
public enum CastNamespace {
    public static let connection = "urn:x-cast:com.google.cast.tp.connection"
    public static let heartbeat = "urn:x-cast:com.google.cast.tp.heartbeat"
    public static let receiver = "urn:x-cast:com.google.cast.receiver"
    public static let media = "urn:x-cast:com.google.cast.media"
    public static let deviceAuth = "urn:x-cast:com.google.cast.tp.deviceauth"
    /// The platform's own endpoint.
    public static let platform = "receiver-0"
    /// Google's Default Media Receiver: the app senders launch to play a URL.
    public static let defaultMediaReceiver = "CC1AD845"
}

/// What the receiver tells its player to do, and what the player reports back.
public enum CastPlayerCommand: Sendable, Equatable {
    case load(url: String, startTime: Double, autoplay: Bool)
    case play
    case pause
    case seek(Double)
    case stop
    case volume(level: Double, muted: Bool)
}

/// Where the player stands, as MEDIA_STATUS reports it.
public struct CastPlayerSnapshot: Sendable, Equatable {
    /// IDLE, BUFFERING, PLAYING or PAUSED.
    public var playerState: String
    public var currentTime: Double
    public var duration: Double?
    /// Why it went IDLE: FINISHED, CANCELLED, INTERRUPTED or ERROR.
    public var idleReason: String?
    public init(playerState: String = "IDLE", currentTime: Double = 0, duration: Double? = nil, idleReason: String? = nil) {
        self.playerState = playerState; self.currentTime = currentTime; self.duration = duration; self.idleReason = idleReason
    }
}
