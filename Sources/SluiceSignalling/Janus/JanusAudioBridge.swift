/// The AudioBridge plugin of Janus 1.x: a room where Janus decodes every participant's
/// audio, mixes it, and sends each participant the mix of everyone else, encoded for it alone.
/// A participant `join`s (answered by `joined`), then `configure`s with its offer (answered by
/// `"result": "ok"` and Janus's answer), and `leave`s.
public enum JanusAudioBridge {
    /// The plugin's name, for `attach`.
    public static let plugin = "janus.plugin.audiobridge"

    /// `join` `room` unmuted, with a display name, the room's pin and the packets Janus
    /// buffers before mixing this participant (`prebuffer`) if given.
    public static func join(room: JanusVideoRoom.RoomID, display: String?, pin: String?, prebuffer: Int? = nil) -> JSONValue {
        var b: [String: JSONValue] = ["request": "join", "room": room.json, "muted": false]
        if let display { b["display"] = .string(display) }
        if let pin { b["pin"] = .string(pin) }
        if let prebuffer { b["prebuffer"] = .int(Int64(prebuffer)) }
        return .object(b)
    }

    /// `configure`, sent with the participant's offer: its audio goes into the mix unmuted.
    public static let configure: JSONValue = ["request": "configure", "muted": false]

    /// `leave`: the participant leaves the room.
    public static let leave: JSONValue = ["request": "leave"]

    /// This participant's id, if `data` is the `joined` event that answers its `join`.
    public static func joinedID(_ data: JSONValue) -> Int64? {
        data["audiobridge"]?.string == "joined" ? data["id"]?.int : nil
    }

    /// The participants already in the room, as `joined` lists them (display names, or ids).
    public static func participants(in data: JSONValue) -> [String] {
        (data["participants"]?.array ?? []).prefix(1000).compactMap { p in
            p["display"]?.string.map { String($0.prefix(128)) } ?? p["id"]?.int.map { String($0) }
        }
    }

    /// Whether the plugin's reply says the request succeeded (`"result": "ok"`).
    public static func accepted(_ data: JSONValue) -> Bool { data["result"]?.string == "ok" }
}
