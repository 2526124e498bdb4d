import Foundation
import Logging
import Synchronization

/// A client of the Janus WebSocket API: one Janus session, handles attached to plugins,
/// messages to plugins answered synchronously or by their event, trickled candidates, and
/// keepalives while the session lives. What Janus sends unasked (plugin events, `webrtcup`,
/// `hangup`, the session timing out, the connection closing) arrives in `events`.
public final class JanusClient: Sendable {
    /// What went wrong, in words a user can act on; `code` is Janus's or the plugin's error code.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// What went wrong, with what to check.
        public var description: String
        /// Janus's or the plugin's error code, when it sent one.
        public var code: Int?
        /// A failure saying `description`, with Janus's `code` if any.
        public init(_ description: String, code: Int? = nil) { self.description = description; self.code = code }
    }

    /// Where Janus is and how to authenticate.
    public struct Configuration: Sendable {
        /// `ws://HOST:PORT` (or `wss://`) of Janus's WebSocket transport.
        public var url: String
        /// janus.jcfg `api_secret`, sent with every request.
        public var apiSecret: String?
        /// A token (token-based authentication), sent with every request.
        public var token: String?
        /// How long a request may wait for its answer, seconds.
        public var timeout: Double = 10
        /// Seconds between keepalives (Janus drops sessions idle for `session_timeout`, 60 s by default).
        public var keepalive: Double = 15
        /// A configuration for `url`, with the default timeout and keepalive.
        public init(url: String, apiSecret: String? = nil, token: String? = nil) {
            self.url = url; self.apiSecret = apiSecret; self.token = token
        }
    }

    /// A session description in Janus's `jsep` member.
    public struct JSEP: Sendable, Equatable {
        /// `offer` or `answer`.
        public var type: String
        /// The SDP text.
        public var sdp: String
        /// A JSEP of `type` carrying `sdp`.
        public init(type: String, sdp: String) { self.type = type; self.sdp = sdp }
        var json: JSONValue { ["type": .string(type), "sdp": .string(sdp)] }
        init?(_ json: JSONValue?) {
            guard let type = json?["type"]?.string, let sdp = json?["sdp"]?.string else { return nil }
            self.type = type; self.sdp = sdp
        }
    }

    /// A plugin's answer to a message: its `plugindata.data`, and a JSEP if it sent one.
    public struct Reply: Sendable {
        /// The plugin's `plugindata.data`.
        public var data: JSONValue
        /// The JSEP the plugin sent with it, if any.
        public var jsep: JSEP?
    }

    /// What Janus sends unasked.
    public enum Event: Sendable {
        /// A plugin event for a handle.
        case plugin(handle: Int64, data: JSONValue, jsep: JSEP?)
        /// The handle's PeerConnection is up (DTLS done).
        case webrtcUp(handle: Int64)
        /// Janus closed the handle's PeerConnection.
        case hangup(handle: Int64, reason: String)
        /// Janus detached the handle.
        case detached(handle: Int64)
        /// The session timed out (no keepalive in time).
        case timeout
        /// The WebSocket closed (with why, when it failed).
        case closed(String?)
    }

    /// Where Janus is, as given.
    public let configuration: Configuration
    /// The Janus session id.
    public let session: Int64
    /// Everything Janus sends unasked, in order; finishes when the WebSocket closes.
    public let events: AsyncStream<Event>
    private let connection: JanusConnection
    private let keepalives = Mutex<Task<Void, Never>?>(nil)

    /// Opens the WebSocket and creates a session.
    public static func connect(_ configuration: Configuration, logger: Logger = Logger(label: "sluice.janus")) async throws(Failure) -> JanusClient {
        guard let url = URL(string: configuration.url), ["ws", "wss"].contains(url.scheme ?? ""), url.host != nil else {
            throw Failure("'\(configuration.url)' is not a ws:// or wss:// URL of Janus's WebSocket transport")
        }
        let (events, sink) = AsyncStream<Event>.makeStream(bufferingPolicy: .bufferingNewest(4096))
        let connection = JanusConnection(url: configuration.url, timeout: configuration.timeout, logger: logger) { json, closed in
            guard let json else {
                sink.yield(.closed(closed))
                sink.finish()
                return
            }
            if let e = Self.event(json) { sink.yield(e) }
        }
        var create: [String: JSONValue] = ["janus": "create"]
        Self.authenticate(&create, configuration)
        let answer: JSONValue
        do { answer = try await connection.request(create) } catch {
            await connection.close()
            throw error
        }
        guard let id = answer["data"]?["id"]?.int else {
            await connection.close()
            throw Failure("Janus answered 'create' without a session id: \(answer.text.prefix(200))")
        }
        return JanusClient(configuration: configuration, session: id, connection: connection, events: events)
    }

    private init(configuration: Configuration, session: Int64, connection: JanusConnection, events: AsyncStream<Event>) {
        self.configuration = configuration
        self.session = session
        self.connection = connection
        self.events = events
        let interval = configuration.keepalive
        keepalives.withLock {
            $0 = Task { [weak self] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: .seconds(interval))
                    guard let self, !Task.isCancelled, !self.connection.isClosed else { return }
                    _ = try? await self.connection.request(self.sessionMessage("keepalive"), ackIsAnswer: true)
                }
            }
        }
    }

    private static func authenticate(_ m: inout [String: JSONValue], _ c: Configuration) {
        if let s = c.apiSecret { m["apisecret"] = .string(s) }
        if let t = c.token { m["token"] = .string(t) }
    }

    private func sessionMessage(_ kind: String, handle: Int64? = nil) -> [String: JSONValue] {
        var m: [String: JSONValue] = ["janus": .string(kind), "session_id": .int(session)]
        if let handle { m["handle_id"] = .int(handle) }
        Self.authenticate(&m, configuration)
        return m
    }

    /// Attaches a handle to `plugin` (e.g. `janus.plugin.videoroom`).
    public func attach(_ plugin: String) async throws(Failure) -> Int64 {
        var m = sessionMessage("attach")
        m["plugin"] = .string(plugin)
        let answer = try await connection.request(m)
        guard let id = answer["data"]?["id"]?.int else {
            throw Failure("Janus answered 'attach' without a handle id: \(answer.text.prefix(200))")
        }
        return id
    }

    /// Sends `body` (and `jsep`) to the handle's plugin and waits for its answer: the
    /// synchronous `success` or, for asynchronous requests, the event that follows the `ack`.
    /// A plugin error (`error_code`) is thrown.
    public func message(_ body: JSONValue, jsep: JSEP? = nil, handle: Int64) async throws(Failure) -> Reply {
        var m = sessionMessage("message", handle: handle)
        m["body"] = body
        if let jsep { m["jsep"] = jsep.json }
        let answer = try await connection.request(m)
        let data = answer["plugindata"]?["data"] ?? .null
        if let code = data["error_code"]?.int {
            let what = body["request"]?.string ?? "request"
            throw Failure("Janus refused '\(what)': \(data["error"]?.string ?? "no reason given") (error \(code))", code: Int(code))
        }
        return Reply(data: data, jsep: JSEP(answer["jsep"]))
    }

    /// Trickles one local candidate (nil: gathering is complete).
    public func trickle(mid: String?, mlineIndex: Int, candidate: String?, handle: Int64) {
        var m = sessionMessage("trickle", handle: handle)
        if let candidate {
            var c: [String: JSONValue] = ["candidate": .string(candidate), "sdpMLineIndex": .int(Int64(mlineIndex))]
            if let mid { c["sdpMid"] = .string(mid) }
            m["candidate"] = .object(c)
        } else {
            m["candidate"] = ["completed": true]
        }
        connection.post(m)
    }

    /// Detaches a handle (best effort).
    public func detach(_ handle: Int64) async {
        _ = try? await connection.request(sessionMessage("detach", handle: handle))
    }

    /// Destroys the session and closes the connection (best effort: Janus may be gone).
    public func close() async {
        keepalives.withLock { $0?.cancel() }
        if !connection.isClosed { _ = try? await connection.request(sessionMessage("destroy")) }
        await connection.close()
    }

    /// An unasked message as an event (nil: nothing a session needs: acks, keepalive answers).
    static func event(_ json: JSONValue) -> Event? {
        let handle = json["sender"]?.int ?? 0
        switch json["janus"]?.string {
        case "event":
            return .plugin(handle: handle, data: json["plugindata"]?["data"] ?? .null, jsep: JSEP(json["jsep"]))
        case "webrtcup": return .webrtcUp(handle: handle)
        case "hangup": return .hangup(handle: handle, reason: json["reason"]?.string ?? "no reason given")
        case "detached": return .detached(handle: handle)
        case "timeout": return .timeout
        default: return nil
        }
    }
}
