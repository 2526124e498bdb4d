/// The EchoTest plugin of Janus: what a PeerConnection sends to it comes back on the same
/// PeerConnection, untouched (no transcoding), after Janus's own RTP handling.
public enum JanusEchoTest {
    /// The plugin's name, for `attach`.
    public static let plugin = "janus.plugin.echotest"

    /// The request sent with the offer: echo `audio` and `video` back.
    public static func start(audio: Bool, video: Bool) -> JSONValue {
        ["audio": .bool(audio), "video": .bool(video)]
    }

    /// Whether the plugin's reply says the echo started (`"result": "ok"`).
    public static func accepted(_ data: JSONValue) -> Bool { data["result"]?.string == "ok" }

    /// The plugin's complaint in a reply, if it has one (`error`, with `error_code`).
    public static func refusal(_ data: JSONValue) -> String? {
        guard let error = data["error"]?.string else { return nil }
        return data["error_code"]?.int.map { "\(error) (error \($0))" } ?? error
    }
}
