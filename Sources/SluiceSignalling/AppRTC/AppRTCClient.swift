import Foundation
import Logging
import WSClient
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The client side of an AppRTC-compatible room server: `POST /join/<room>`, then the
/// WebSocket (`register`, `send`), then `POST /leave/<room>/<client>`.
///
/// The server decides the roles: the first peer in a room is the initiator (it offers),
/// the second answers. Messages the initiator sent before the second peer arrived come in
/// the second peer's join answer; everything else arrives on the WebSocket.
public final class AppRTCClient: Sendable {
    /// What a failed step means, in words a user can act on.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// Whose doing a failure is.
        public enum Cause: Sendable, Equatable {
            /// The server could not be reached, or did not answer in time.
            case unreachable
            /// The server answered with a refusal (a full room, an HTTP error status).
            case refused
            /// The server answered with something that is not the protocol.
            case malformed
        }
        /// The reason, with what to check.
        public var description: String
        /// Whose doing it is.
        public var cause: Cause
        /// A failure saying `description`.
        public init(_ description: String, cause: Cause = .malformed) {
            self.description = description
            self.cause = cause
        }
    }

    /// The answer to `POST /join/<room>`.
    public struct Joined: Sendable {
        /// The server's base URL.
        public var server: URL
        /// The room joined.
        public var room: String
        /// The client id the server gave this peer (`params.client_id`).
        public var client: String
        /// Whether this peer came first and so sends the offer.
        public var isInitiator: Bool
        /// Messages the other peer sent before this one joined, oldest first.
        public var messages: [SignalingMessage]
        /// The WebSocket URL to register on (`params.wss_url`).
        public var wssURL: String
    }

    /// What arrives on the WebSocket.
    public enum Event: Sendable, Equatable {
        /// A message from the other peer.
        case message(SignalingMessage)
        /// The server refused something this client sent (its `error` text).
        case serverError(String)
        /// The WebSocket closed (with the reason, if the connection failed).
        case closed(String?)
    }

    /// Joins `room` on `server` (e.g. `http://127.0.0.1:8443`). Throws on `FULL` and on
    /// anything that is not the protocol's answer.
    public static func join(server: String, room: String, timeout: Double = 10) async throws(Failure) -> Joined {
        guard let base = URL(string: server), let scheme = base.scheme, ["http", "https"].contains(scheme) else {
            throw Failure("'\(server)' is not an http(s) URL")
        }
        let object = try await post(base.appendingPathComponent("join").appendingPathComponent(room), timeout: timeout)
        let result = object["result"] as? String ?? "(none)"
        guard result == "SUCCESS" else {
            if result == "FULL" { throw Failure("room '\(room)' is full: it already has two peers", cause: .refused) }
            throw Failure("joining room '\(room)' failed: result \(result)", cause: .refused)
        }
        guard let params = object["params"] as? [String: Any],
            let client = params["client_id"] as? String, let wss = params["wss_url"] as? String
        else {
            throw Failure("the join answer lacks params.client_id or params.wss_url")
        }
        // The original sends is_initiator and each message as JSON strings.
        let initiator = (params["is_initiator"] as? String) == "true" || (params["is_initiator"] as? Bool) == true
        var messages: [SignalingMessage] = []
        for text in params["messages"] as? [String] ?? [] {
            guard let m = SignalingMessage(json: text) else { throw Failure("the join answer carries a message that is not one: \(text.prefix(120))") }
            messages.append(m)
        }
        return Joined(server: base, room: room, client: client, isInitiator: initiator, messages: messages, wssURL: wss)
    }

    /// The server's answer to this client's join.
    public let joined: Joined
    /// Everything that arrives on the WebSocket, in order; finishes when it closes.
    public let events: AsyncStream<Event>
    private let outgoing: AsyncStream<String>.Continuation
    private let connection: Task<Void, Never>

    /// Opens the WebSocket and registers with the room.
    public init(joined: Joined, logger: Logger = Logger(label: "sluice.apprtc")) {
        self.joined = joined
        let (events, eventSink) = AsyncStream<Event>.makeStream()
        let (outbound, outgoing) = AsyncStream<String>.makeStream()
        self.events = events
        self.outgoing = outgoing
        let register = AppRTC.envelope(["cmd": "register", "roomid": joined.room, "clientid": joined.client])
        connection = Task {
            do {
                try await WebSocketClient.connect(
                    url: joined.wssURL, configuration: .init(maxFrameSize: 1 << 20),
                    logger: logger
                ) { inbound, writer, _ in
                    try await writer.write(.text(register))
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask {
                            for try await message in inbound.messages(maxSize: 1 << 20) {
                                guard case .text(let text) = message else { continue }
                                eventSink.yield(Self.event(from: text))
                            }
                        }
                        group.addTask {
                            for await text in outbound { try await writer.write(.text(text)) }
                        }
                        // Whichever ends first (the server closed, or `leave`) ends the connection.
                        _ = try await group.next()
                        group.cancelAll()
                    }
                }
                eventSink.yield(.closed(nil))
            } catch {
                eventSink.yield(.closed("\(error)"))
            }
            eventSink.finish()
        }
    }

    /// A frame from the server: `{"msg": "<json>", "error": ""}`.
    static func event(from text: String) -> Event {
        guard let o = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            return .serverError("the server sent a frame that is not JSON: \(text.prefix(120))")
        }
        if let e = o["error"] as? String, !e.isEmpty { return .serverError(e) }
        guard let msg = o["msg"] as? String, let m = SignalingMessage(json: msg) else {
            return .serverError("the server relayed something that is not a signalling message: \(text.prefix(120))")
        }
        return .message(m)
    }

    /// Sends a message to the other peer (queued by the server until it registers).
    public func send(_ message: SignalingMessage) {
        outgoing.yield(AppRTC.envelope(["cmd": "send", "msg": message.json]))
    }

    /// Leaves the room (the server tells the other peer `bye`) and closes the WebSocket.
    public func leave(timeout: Double = 3) async {
        let url = joined.server.appendingPathComponent("leave").appendingPathComponent(joined.room)
            .appendingPathComponent(joined.client)
        _ = try? await Self.post(url, timeout: timeout)
        outgoing.finish()
        _ = await connection.value
    }

    private static func post(_ url: URL, timeout: Double) async throws(Failure) -> [String: Any] {
        var request = URLRequest(url: url, timeoutInterval: timeout)
        request.httpMethod = "POST"
        let data: Data, status: Int
        do {
            let (d, response) = try await URLSession.shared.data(for: request)
            data = d
            status = (response as? HTTPURLResponse)?.statusCode ?? 0
        } catch {
            throw Failure("cannot reach \(url.absoluteString): \(error.localizedDescription)", cause: .unreachable)
        }
        let answered = "\(url.absoluteString) answered \(status): \(String(decoding: data.prefix(300), as: UTF8.self))"
        guard status == 200 else { throw Failure(answered, cause: .refused) }
        guard let o = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { throw Failure(answered) }
        return o
    }
}
