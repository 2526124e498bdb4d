import Foundation
import SluiceRun
import SluiceSignalling

/// `kind: janus`: a room of Janus's VideoRoom plugin, or Janus's EchoTest, over Janus's
/// WebSocket API.
public struct JanusSpec: EchoingSettings, Equatable {
    /// Which of Janus's plugins the run talks to (`plugin:`).
    public enum Plugin: String, Sendable, CaseIterable {
        /// VideoRoom (the default): publish to a room, receive its publishers.
        case videoroom
        /// EchoTest: what is sent comes back on the same PeerConnection.
        case echotest
        /// AudioBridge: Janus mixes the room's audio; each participant hears everyone else.
        case audiobridge
    }
    /// `ws://HOST:PORT` of Janus's WebSocket transport.
    public var server: String
    /// The plugin: VideoRoom unless `plugin: echotest`.
    public var plugin: Plugin = .videoroom
    /// The room (VideoRoom, AudioBridge): a number, or a name where Janus uses string ids;
    /// empty for EchoTest.
    public var room: String
    /// The name others see for this participant (default: `sluice`).
    public var display: String?
    /// The room's pin, if it has one.
    public var pin: String?
    /// Janus's API secret (janus.jcfg `api_secret`), if it asks for one.
    public var secret: String?
    /// A token (Janus's token-based authentication), if it asks for one.
    public var token: String?
    /// Packets Janus's AudioBridge buffers of this participant before mixing it (`prebuffer`,
    /// 0–50); nil: the room's (6 by default, 120 ms). AudioBridge only.
    public var prebuffer: Int?
    /// The publishers (display names) to receive; nil: everyone in the room (VideoRoom only).
    public var subscribe: [String]?
    /// The simulcast layer to receive of publishers that send layers: 0 (the smallest) to 2
    /// (the largest); nil: Janus's choice, the largest (VideoRoom only).
    public var substream: Int?
    /// Settings for `room` on the Janus at `server`; the optional keys are unset.
    public init(server: String, room: String) { self.server = server; self.room = room }
    /// The Janus server.
    public var serviceURL: String? { server }
    /// Where the file says `plugin:` (for errors about what the plugin needs).
    public var pluginLocation: SourceLocation?
    /// The settings without `pluginLocation`.
    public var positionFree: any KindSettings {
        var s = self
        s.pluginLocation = nil
        return s
    }
    /// EchoTest sends back what it gets; a VideoRoom does not send a publisher its own stream.
    public var echoesWhatIsSent: Bool { plugin == .echotest }
}

extension SpecDecoder {
    package mutating func decodeJanus(_ map: [SpecEntry], at location: SourceLocation) -> JanusSpec? {
        guard let serverEntry = map.entry("server") else {
            fail("transport kind 'janus' needs a 'server': the URL of Janus's WebSocket transport, e.g. ws://127.0.0.1:8188", at: location)
            return nil
        }
        guard let server = nonEmptyText(serverEntry) else { return nil }
        guard let url = URL(string: server), ["ws", "wss"].contains(url.scheme ?? ""), url.host != nil else {
            fail(
                "'server' is the ws:// or wss:// URL of Janus's WebSocket transport (janus.transport.websockets.jcfg), e.g. ws://127.0.0.1:8188; got '\(server.prefix(80))'",
                at: serverEntry.value.location)
            return nil
        }
        guard let plugin = decodeJanusPlugin(map) else { return nil }
        if plugin == .echotest { return decodeEchoTest(map, server: server) }
        refuseKeysOfOtherPlugins(map, plugin: plugin)
        guard let roomEntry = map.entry("room") else {
            let which = plugin == .audiobridge ? "AudioBridge" : "VideoRoom"
            fail("transport kind 'janus' needs a 'room': the \(which) room to join, e.g. room: 1234", at: map.entry("plugin")?.keyLocation ?? location)
            return nil
        }
        guard let room = nonEmptyText(roomEntry) else { return nil }
        guard room.count <= 128, room.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) }) else {
            fail(
                "a Janus room is a number (or a name of letters, digits, '-', '_', '.', where Janus uses string ids); got '\(room.prefix(80))'",
                at: roomEntry.value.location)
            return nil
        }
        var spec = JanusSpec(server: server, room: room)
        spec.plugin = plugin
        spec.pluginLocation = map.entry("plugin")?.keyLocation
        decodeJanusCredentials(map, into: &spec)
        if plugin == .audiobridge, let entry = map.entry("prebuffer") { spec.prebuffer = integer(entry, range: 0...50) }
        if let entry = map.entry("substream") {
            if plugin == .videoroom {
                spec.substream = integer(entry, range: 0...2)
            } else {
                fail(
                    "'substream' picks a simulcast layer Janus's VideoRoom forwards: it needs the VideoRoom (remove `plugin: \(plugin.rawValue)`)",
                    at: entry.keyLocation)
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

    /// `plugin: echotest`: no room, no keys of a room.
    private mutating func decodeEchoTest(_ map: [SpecEntry], server: String) -> JanusSpec {
        for key in ["room", "display", "pin", "subscribe", "substream", "prebuffer"] {
            guard let entry = map.entry(key) else { continue }
            fail("'\(key)' is for VideoRoom; Janus's EchoTest has no rooms: remove it, or remove `plugin: echotest`", at: entry.keyLocation)
        }
        var spec = JanusSpec(server: server, room: "")
        spec.plugin = .echotest
        spec.pluginLocation = map.entry("plugin")?.keyLocation
        decodeJanusCredentials(map, into: &spec)
        return spec
    }

    /// A room's keys that belong to the other room plugin: `subscribe` (VideoRoom's),
    /// `prebuffer` (AudioBridge's).
    private mutating func refuseKeysOfOtherPlugins(_ map: [SpecEntry], plugin: JanusSpec.Plugin) {
        if plugin == .audiobridge, let entry = map.entry("subscribe") {
            fail("'subscribe' is for VideoRoom; an AudioBridge participant hears the room's mix: remove it", at: entry.keyLocation)
        }
        if plugin != .audiobridge, let entry = map.entry("prebuffer") {
            fail("'prebuffer' is Janus AudioBridge's jitter buffer: it needs `plugin: audiobridge`", at: entry.keyLocation)
        }
    }

    /// `plugin:` (videoroom unless it says echotest); nil after a failure.
    private mutating func decodeJanusPlugin(_ map: [SpecEntry]) -> JanusSpec.Plugin? {
        guard let entry = map.entry("plugin") else { return .videoroom }
        let names = JanusSpec.Plugin.allCases.map(\.rawValue)
        return word(entry.value, name: "plugin", what: "Janus plugin", choices: names).flatMap(JanusSpec.Plugin.init(rawValue:))
    }

    /// `display`, `pin`, `secret` and `token`: each at most 256 bytes on one line.
    private mutating func decodeJanusCredentials(_ map: [SpecEntry], into spec: inout JanusSpec) {
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
    }

    /// The receive branches of a room: filters only on a mosaic or a mix (otherwise each
    /// publisher's stream is a branch of its own); recordings one per publisher stream
    /// (`{publisher}` in the path, video and audio apart) unless mosaic/mix make the room one.
    package mutating func checkRoomBranches(_ branches: [ReceiveBranchSpec]) {
        for branch in branches where branch.mosaic == nil && branch.mix == nil && !branch.filters.isEmpty {
            let fix =
                branch.media == .video
                ? "add `mosaic: true` to receive.video to filter the room as one picture, or remove the filters"
                : "add `mix: true` to receive.audio to filter the room's sound as one, or remove the filters"
            fail(
                "in a room each publisher's stream is a branch of its own, without filters; \(fix)",
                at: branch.filters.first?.location ?? branch.location ?? SourceLocation(file: file, line: 1, column: 1))
        }
        var perPublisherPaths: [String: MediaKind] = [:]
        for branch in branches {
            guard let path = branch.sink.kind.settings(as: FileSink.Settings.self)?.path else { continue }
            let one = branch.mosaic != nil || branch.mix != nil
            let at = branch.sink.location ?? branch.location ?? SourceLocation(file: file, line: 1, column: 1)
            if one, path.contains("{publisher}") {
                fail("the room's \(branch.media == .video ? "mosaic" : "mix") is one recording: remove {publisher} from the path", at: at)
            } else if !one, !path.contains("{publisher}") {
                let whole = branch.media == .video ? "`mosaic: true`" : "`mix: true`"
                fail(
                    "in a room each publisher's \(branch.media) is recorded to a file of its own: put {publisher} in the path "
                        + "(e.g. room-{publisher}.\(branch.media == .video ? "mkv" : "mka")), or record the room as one with \(whole)", at: at)
            } else if !one, let other = perPublisherPaths[path] {
                fail(
                    "each publisher's \(other) and \(branch.media) are recorded separately: give them different paths "
                        + "(e.g. room-{publisher}.mkv and room-{publisher}.mka)", at: at)
            }
            if !one { perPublisherPaths[path] = branch.media }
        }
    }
}

extension JanusSpec {
    /// How long a Janus request may wait, seconds: the transport's ICE connect timeout, kept
    /// between 2 and 30.
    static func requestTimeout(_ transport: TransportSpec) -> Double { max(2, min(transport.ice.connectTimeout, 30)) }

    /// The client configuration for this Janus: its server, secret and token, each request
    /// waiting at most `timeout` seconds.
    func clientConfiguration(timeout: Double) -> JanusClient.Configuration {
        var config = JanusClient.Configuration(url: server, apiSecret: secret, token: token)
        config.timeout = timeout
        return config
    }
}
