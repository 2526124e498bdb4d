import Foundation

/// The AppRTC room protocol's JSON shapes, as the original server and clients send them.
///
/// - `POST /join/<room>` answers `{"result": "SUCCESS", "params": {...}}` or `{"result": "FULL"}`;
///   in `params`, `is_initiator` is the string "true"/"false" and `messages` is a list of JSON
///   *strings*, as the original sends them.
/// - On the WebSocket, clients send `{"cmd": "register", "roomid", "clientid"}` and
///   `{"cmd": "send", "msg": "<json string>"}`; the server sends `{"msg": "<json string>",
///   "error": ""}` or `{"msg": "", "error": "<reason>"}`.
/// - Signalling messages: `{"type": "offer"|"answer", "sdp"}`,
///   `{"type": "candidate", "label": <mline index>, "id": "<mid>", "candidate"}`, `{"type": "bye"}`.
public enum AppRTC {
    /// The largest message the server accepts (WebSocket frame or POST body).
    public static let maxMessageBytes = 64 * 1024

    /// A command a client sends on the WebSocket.
    public enum Command: Equatable, Sendable {
        /// `{"cmd": "register", "roomid", "clientid"}`: binds the socket to a joined client.
        case register(room: String, client: String)
        /// `{"cmd": "send", "msg"}`: a message (JSON text) for the other peer.
        case send(message: String)
    }

    /// Why a WebSocket frame was refused (sent back as `{"error": ...}`).
    public struct ProtocolError: Error, Equatable, Sendable, CustomStringConvertible {
        /// What was wrong with the frame.
        public var message: String
        /// An error saying `message`.
        public init(_ message: String) { self.message = message }
        /// The message.
        public var description: String { message }
    }

    /// Parses a WebSocket text frame into a command.
    public static func command(from text: String) -> Result<Command, ProtocolError> {
        guard text.utf8.count <= maxMessageBytes else {
            return .failure(ProtocolError("message too large: \(text.utf8.count) bytes (at most \(maxMessageBytes))"))
        }
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            return .failure(ProtocolError("invalid message: not a JSON object"))
        }
        guard let cmd = object["cmd"] as? String else { return .failure(ProtocolError("invalid message: no 'cmd'")) }
        switch cmd {
        case "register":
            guard let room = object["roomid"] as? String, !room.isEmpty,
                let client = object["clientid"] as? String, !client.isEmpty
            else {
                return .failure(ProtocolError("invalid register: 'roomid' and 'clientid' are required"))
            }
            return .success(.register(room: room, client: client))
        case "send":
            guard let msg = object["msg"] as? String else {
                return .failure(ProtocolError("invalid send: 'msg' must be a JSON string"))
            }
            return .success(.send(message: msg))
        default:
            return .failure(ProtocolError("unknown command '\(cmd)'"))
        }
    }

    /// `{"msg": "<message>", "error": ""}`: a relayed message.
    public static func relay(_ message: String) -> String { envelope(["msg": message, "error": ""]) }

    /// `{"msg": "", "error": "<reason>"}`: a refused frame.
    public static func error(_ reason: String) -> String { envelope(["msg": "", "error": reason]) }

    /// The JSON answer to `POST /join/<room>`.
    public static func joinResponse(
        _ result: RoomRegistry.JoinResult, wssURL: String, wssPostURL: String,
        iceServers: [[String: Any]] = []
    ) -> String {
        switch result {
        case .full:
            return envelope(["result": "FULL", "params": [String: Any]()])
        case .joined(let j):
            let pcConfig = envelope(["iceServers": iceServers, "bundlePolicy": "max-bundle", "rtcpMuxPolicy": "require"])
            return envelope([
                "result": "SUCCESS",
                "params": [
                    "room_id": j.room, "client_id": j.client, "is_initiator": j.isInitiator ? "true" : "false",
                    "messages": j.messages, "wss_url": wssURL, "wss_post_url": wssPostURL, "pc_config": pcConfig
                ] as [String: Any]
            ])
        }
    }

    /// `{"result": "<word>"}` (the answer to `/message` and `/leave`).
    public static func result(_ word: String) -> String { envelope(["result": word]) }

    /// JSON text of an object (sorted keys, so output is stable).
    static func envelope(_ object: [String: Any]) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}

/// A signalling message between the two peers of a room.
public enum SignalingMessage: Equatable, Sendable {
    /// `{"type": "offer", "sdp"}`.
    case offer(sdp: String)
    /// `{"type": "answer", "sdp"}`.
    case answer(sdp: String)
    /// `label` is the m-line index, `id` the mid.
    case candidate(label: Int, id: String?, candidate: String)
    /// `{"type": "bye"}`: the peer leaves.
    case bye

    /// The m-line indices a candidate's `label` may name: a session has at most 1,024 media
    /// sections here, so a label outside (negative, or a peer's garbage) is ignored.
    public static let candidateLabels = 0..<1024

    /// The message as its JSON text (what `msg` carries).
    public var json: String {
        switch self {
        case .offer(let sdp): AppRTC.envelope(["type": "offer", "sdp": sdp])
        case .answer(let sdp): AppRTC.envelope(["type": "answer", "sdp": sdp])
        case .candidate(let label, let id, let candidate):
            AppRTC.envelope(["type": "candidate", "label": label, "id": id ?? "", "candidate": candidate])
        case .bye: AppRTC.envelope(["type": "bye"])
        }
    }

    /// Parses a message's JSON text; nil if it is not one of the four kinds.
    public init?(json text: String) {
        guard let o = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
            let type = o["type"] as? String
        else { return nil }
        switch type {
        case "offer", "answer":
            guard let sdp = o["sdp"] as? String else { return nil }
            self = type == "offer" ? .offer(sdp: sdp) : .answer(sdp: sdp)
        case "candidate":
            guard let candidate = o["candidate"] as? String else { return nil }
            let label = (o["label"] as? Int) ?? (o["label"] as? String).flatMap(Int.init) ?? 0
            self = .candidate(label: label, id: o["id"] as? String, candidate: candidate)
        case "bye":
            self = .bye
        default:
            return nil
        }
    }
}
