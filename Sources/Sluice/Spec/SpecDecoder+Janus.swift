import Foundation

/// The keys only `kind: janus` takes (`room` it shares with apprtc, `token` with whep/whip/camera,
/// `server` with xmpp).
enum JanusKeys {
    static let only = ["display", "pin", "secret", "subscribe"]
}

/// `kind: janus`: a room of Janus's VideoRoom plugin, joined over Janus's WebSocket API.
public struct JanusSpec: Sendable, Equatable {
    /// `ws://HOST:PORT` of Janus's WebSocket transport.
    public var server: String
    /// The room: a number, or a name where Janus uses string ids.
    public var room: String
    /// The name others see for this participant (default: `sluice`).
    public var display: String?
    /// The room's pin, if it has one.
    public var pin: String?
    /// Janus's API secret (janus.jcfg `api_secret`), if it asks for one.
    public var secret: String?
    /// A token (Janus's token-based authentication), if it asks for one.
    public var token: String?
    /// The publishers (display names) to receive; nil: everyone in the room.
    public var subscribe: [String]?
    public init(server: String, room: String) { self.server = server; self.room = room }
}

extension SpecDecoder {
    mutating func decodeJanus(_ map: [SpecEntry], at location: SourceLocation) -> JanusSpec? {
        guard let serverEntry = map.entry("server") else {
            fail("transport kind 'janus' needs a 'server': the URL of Janus's WebSocket transport, e.g. ws://127.0.0.1:8188", at: location)
            return nil
        }
        guard let server = nonEmptyText(serverEntry) else { return nil }
        guard let url = URL(string: server), ["ws", "wss"].contains(url.scheme ?? ""), url.host != nil else {
            fail("'server' is the ws:// or wss:// URL of Janus's WebSocket transport (janus.transport.websockets.jcfg), e.g. ws://127.0.0.1:8188; got '\(server.prefix(80))'",
                 at: serverEntry.value.location)
            return nil
        }
        guard let roomEntry = map.entry("room") else {
            fail("transport kind 'janus' needs a 'room': the VideoRoom room to join, e.g. room: 1234", at: location)
            return nil
        }
        guard let room = nonEmptyText(roomEntry) else { return nil }
        guard room.count <= 128, room.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) }) else {
            fail("a Janus room is a number (or a name of letters, digits, '-', '_', '.', where Janus uses string ids); got '\(room.prefix(80))'",
                 at: roomEntry.value.location)
            return nil
        }
        var spec = JanusSpec(server: server, room: room)
        for key in ["display", "pin", "secret", "token"] {
            guard let entry = map.entry(key), let value = nonEmptyText(entry) else { continue }
            guard value.utf8.count <= 256, !value.contains(where: { $0.isNewline }) else {
                fail("'\(key)' is at most 256 bytes on one line", at: entry.value.location)
                continue
            }
            switch key {
            case "display": spec.display = value
            case "pin": spec.pin = value
            case "secret": spec.secret = value
            default: spec.token = value
            }
        }
        if let entry = map.entry("subscribe") {
            if case .scalar(let text, isNull: false) = entry.value.content, text == "all" {
                spec.subscribe = nil
            } else if let items = list(entry) {
                var names: [String] = []
                for item in items {
                    guard let name = text(item, name: "subscribe"), !name.isEmpty else { continue }
                    names.append(name)
                }
                if names.isEmpty {
                    fail("'subscribe' lists the display names of the publishers to receive, or is 'all'", at: entry.value.location)
                }
                spec.subscribe = names
            }
        }
        return spec
    }
}
