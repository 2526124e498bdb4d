import Foundation

/// The VideoRoom plugin of Janus 1.x, as a publisher and as a multistream subscriber: the
/// requests (`join`, `publish`, `subscribe`, `unsubscribe`, `start`, `leave`) and what its
/// events say (who publishes what, who left, which stream sits at which MID).
public enum JanusVideoRoom {
    /// The plugin's name, for `attach`.
    public static let plugin = "janus.plugin.videoroom"

    /// A room id: Janus numbers rooms unless `string_ids` is set.
    public enum RoomID: Sendable, Equatable, CustomStringConvertible {
        /// A numbered room.
        case number(Int64)
        /// A named room (Janus with `string_ids = true`).
        case name(String)
        /// A room from text: a positive integer is a number, anything else a name.
        public init(_ text: String) {
            if let n = Int64(text), n > 0 { self = .number(n) } else { self = .name(text) }
        }
        var json: JSONValue {
            switch self {
            case .number(let n): .int(n)
            case .name(let s): .string(s)
            }
        }
        /// The number or the name.
        public var description: String {
            switch self {
            case .number(let n): String(n)
            case .name(let s): s
            }
        }
    }

    /// A participant that publishes, as `joined` and `event` list them.
    public struct Publisher: Sendable, Equatable {
        /// The publisher's participant id (the feed id subscribers ask for).
        public var id: Int64
        /// Its display name, if it set one.
        public var display: String?
        /// `audio` / `video` / `data` of each published stream.
        public var media: [String]
        /// The display name, or the id when it has none.
        public var name: String { display ?? String(id) }
    }

    /// One stream of a multistream subscription, by the MID it has in the subscriber's PeerConnection.
    public struct SubscribedStream: Sendable, Equatable {
        /// The stream's MID in the subscriber's PeerConnection.
        public var mid: String
        /// `audio`, `video` or `data`.
        public var type: String
        /// The publisher the stream comes from.
        public var feedID: Int64?
        /// That publisher's display name.
        public var feedDisplay: String?
        /// The stream's codec (`vp8`, `opus`, …), if Janus said.
        public var codec: String?
        /// False once the publisher stopped sending it.
        public var active: Bool
    }

    /// What `join` as a publisher returns.
    public struct Joined: Sendable {
        /// This participant's id in the room.
        public var id: Int64
        /// The private id that links a subscription to this publisher.
        public var privateID: Int64?
        /// Who already publishes in the room.
        public var publishers: [Publisher]
    }

    /// Janus's VideoRoom error codes, with what to do about them.
    public static func advice(for code: Int?) -> String? {
        switch code {
        case 426: "check 'room': it must be a room configured in janus.plugin.videoroom.jcfg or created beforehand"
        case 433: "check 'pin': the room asks for one and refused this one"
        case 432: "the room is full: it has as many publishers as its 'publishers' setting allows"
        case 436: "a participant with this id is already in the room"
        case 428: "no such publisher feed (it may just have left)"
        default: nil
        }
    }

    /// `join` as a publisher of `room`, with a display name and the room's pin if given.
    public static func join(room: RoomID, display: String?, pin: String?) -> JSONValue {
        var b: [String: JSONValue] = ["request": "join", "ptype": "publisher", "room": room.json]
        if let display { b["display"] = .string(display) }
        if let pin { b["pin"] = .string(pin) }
        return .object(b)
    }

    /// `publish`, with the offer as JSEP.
    public static func publish(display: String?) -> JSONValue {
        var b: [String: JSONValue] = ["request": "publish"]
        if let display { b["display"] = .string(display) }
        return .object(b)
    }

    /// `join` as a subscriber to every stream of `feeds`; with `substream` (0, the smallest, to
    /// 2), the simulcast layer to receive of each simulcast video among them.
    public static func subscribe(room: RoomID, feeds: [Int64], privateID: Int64?, pin: String?, substream: Int? = nil) -> JSONValue {
        var b: [String: JSONValue] = [
            "request": "join", "ptype": "subscriber", "room": room.json,
            "streams": streams(feeds, substream: substream)
        ]
        if let privateID { b["private_id"] = .int(privateID) }
        if let pin { b["pin"] = .string(pin) }
        return .object(b)
    }

    /// `subscribe` (more feeds) on an existing subscription, at `substream` as `subscribe` has it.
    public static func add(feeds: [Int64], substream: Int? = nil) -> JSONValue {
        ["request": "subscribe", "streams": streams(feeds, substream: substream)]
    }

    /// `configure` of a subscription: the simulcast layer (0, the smallest, to 2) to receive
    /// of the streams at `mids`.
    public static func configure(mids: [String], substream: Int) -> JSONValue {
        ["request": "configure", "streams": .array(mids.map { ["mid": .string($0), "substream": .int(Int64(substream))] })]
    }

    /// The simulcast layer an event says Janus now forwards, and of which MID
    /// (`{"videoroom": "event", "mid": …, "substream": …}`), if it says so.
    public static func substreamChange(in data: JSONValue) -> (mid: String, substream: Int)? {
        guard let mid = data["mid"]?.string, let n = data["substream"]?.int, (0...2).contains(n) else { return nil }
        return (mid, Int(n))
    }

    /// The `streams` list of a subscription to every stream of `feeds`.
    private static func streams(_ feeds: [Int64], substream: Int?) -> JSONValue {
        .array(
            feeds.map { feed in
                var stream: [String: JSONValue] = ["feed": .int(feed)]
                if let substream { stream["substream"] = .int(Int64(substream)) }
                return .object(stream)
            })
    }

    /// `start`, with the subscriber's answer as JSEP: the subscription's media flows.
    public static let start: JSONValue = ["request": "start"]
    /// `leave`: the participant leaves the room.
    public static let leave: JSONValue = ["request": "leave"]

    /// `joined`: this participant's ids and who already publishes.
    public static func joined(_ data: JSONValue) -> Joined? {
        guard data["videoroom"]?.string == "joined", let id = data["id"]?.int else { return nil }
        return Joined(id: id, privateID: data["private_id"]?.int, publishers: publishers(in: data))
    }

    /// The `publishers` list of an event (those with at least one stream).
    public static func publishers(in data: JSONValue) -> [Publisher] {
        (data["publishers"]?.array ?? []).prefix(1000).compactMap { p in
            guard let id = p["id"]?.int else { return nil }
            let streams = p["streams"]?.array ?? []
            let media = streams.compactMap { s -> String? in
                s["disabled"]?.bool == true ? nil : s["type"]?.string
            }
            let display = p["display"]?.string.map { String($0.prefix(128)) }
            return Publisher(id: id, display: display, media: media)
        }
    }

    /// The room the event says was destroyed (`{"videoroom": "destroyed", "room": …}`), if it does.
    public static func destroyedRoom(in data: JSONValue) -> String? {
        guard data["videoroom"]?.string == "destroyed" else { return nil }
        return data["room"].map { $0.int.map(String.init) ?? $0.string ?? "?" } ?? "?"
    }

    /// The feed that stopped publishing or left, if the event says so.
    public static func gone(in data: JSONValue) -> Int64? {
        data["unpublished"]?.int ?? data["leaving"]?.int
    }

    /// The streams of an `attached` or `updated` subscriber event.
    public static func streams(in data: JSONValue) -> [SubscribedStream] {
        (data["streams"]?.array ?? []).prefix(1000).compactMap { s in
            guard let mid = s["mid"]?.string, let type = s["type"]?.string else { return nil }
            return SubscribedStream(
                mid: mid, type: type, feedID: s["feed_id"]?.int,
                feedDisplay: s["feed_display"]?.string.map { String($0.prefix(128)) },
                codec: s["codec"]?.string, active: s["active"]?.bool ?? true)
        }
    }
}
