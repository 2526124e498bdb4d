import Foundation
import Synchronization

/// AppRTC-compatible rooms: two peers at most, messages relayed between them and queued
/// for a peer that has not registered its WebSocket yet (or has not joined yet), `bye` to
/// the other when one leaves or vanishes.
///
/// A pure state machine: transports (HTTP, WebSocket) call it and deliver what it returns.
public final class RoomRegistry: Sendable {
    /// Peers per room.
    public static let capacity = 2

    /// Sends a text frame to a registered client's socket.
    public typealias Deliver = @Sendable (String) -> Void

    /// A successful join: the ids the client uses next and what waits for it.
    public struct Join: Sendable, Equatable {
        /// The room joined.
        public var room: String
        /// The client id, for `register` and `POST /leave/<room>/<client>`.
        public var client: String
        /// Whether this client came first (it sends the offer).
        public var isInitiator: Bool
        /// Messages the other peer sent before this one joined (JSON strings).
        public var messages: [String]
    }

    /// The outcome of `join(room:)`.
    public enum JoinResult: Sendable, Equatable {
        /// The client is in the room.
        case joined(Join)
        /// The room already has `capacity` peers.
        case full
    }

    /// Errors in the protocol's own words.
    public enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
        /// No such room.
        case unknownRoom(String)
        /// No such client in the room.
        case unknownClient(String)
        /// The socket sent `register` a second time.
        case alreadyRegistered
        /// The socket sent before `register`.
        case notRegistered
        /// A message over `AppRTC.maxMessageBytes` (its size in bytes).
        case tooLarge(Int)
        /// The error as the server sends it back.
        public var description: String {
            switch self {
            case .unknownRoom(let r): "unknown room '\(r)'"
            case .unknownClient(let c): "unknown client '\(c)'"
            case .alreadyRegistered: "duplicate register: this socket is already registered"
            case .notRegistered: "send before register: register with the room and client id first"
            case .tooLarge(let n): "message too large: \(n) bytes (at most \(AppRTC.maxMessageBytes))"
            }
        }
    }

    private struct Client {
        var id: String
        var deliver: Deliver?
        /// Messages for this client that arrived before it registered.
        var queue: [String] = []
    }

    private struct Room {
        var clients: [Client] = []
        /// Messages sent while the sender was alone, for whoever joins next.
        var forNextJoiner: [String] = []
    }

    private let rooms = Mutex<[String: Room]>([:])
    private let nextId = Atomic<UInt64>(0)

    /// An empty registry.
    public init() {}

    /// Joins `room` (created on first join). The first peer is the initiator.
    public func join(room: String) -> JoinResult {
        rooms.withLock { rooms in
            var r = rooms[room] ?? Room()
            guard r.clients.count < Self.capacity else { return .full }
            let id = String(format: "%08llu", nextId.add(1, ordering: .relaxed).newValue % 100_000_000)
            let initiator = r.clients.isEmpty
            let pending = r.forNextJoiner
            r.forNextJoiner = []
            r.clients.append(Client(id: id))
            rooms[room] = r
            return .joined(Join(room: room, client: id, isInitiator: initiator, messages: pending))
        }
    }

    /// Registers a client's WebSocket; it then receives what was queued for it.
    public func register(room: String, client: String, deliver: @escaping Deliver) throws(Failure) {
        let queued: [String] = try rooms.withLock { rooms throws(Failure) in
            guard var r = rooms[room] else { throw .unknownRoom(room) }
            guard let i = r.clients.firstIndex(where: { $0.id == client }) else { throw .unknownClient(client) }
            guard r.clients[i].deliver == nil else { throw .alreadyRegistered }
            r.clients[i].deliver = deliver
            let q = r.clients[i].queue
            r.clients[i].queue = []
            rooms[room] = r
            return q
        }
        for m in queued { deliver(AppRTC.relay(m)) }
    }

    /// Relays `message` (a JSON string) from `client` to the other peer: delivered if it is
    /// registered, queued for it otherwise, or kept for the next joiner if it is alone.
    /// `requireRegistered` is true for WebSocket `send` (AppRTC refuses it before `register`)
    /// and false for `POST /message`.
    public func send(room: String, from client: String, message: String, requireRegistered: Bool) throws(Failure) {
        guard message.utf8.count <= AppRTC.maxMessageBytes else { throw .tooLarge(message.utf8.count) }
        let target: Deliver? = try rooms.withLock { rooms throws(Failure) in
            guard var r = rooms[room] else { throw .unknownRoom(room) }
            guard let me = r.clients.firstIndex(where: { $0.id == client }) else { throw .unknownClient(client) }
            if requireRegistered, r.clients[me].deliver == nil { throw .notRegistered }
            guard let other = r.clients.indices.first(where: { $0 != me }) else {
                r.forNextJoiner.append(message)
                rooms[room] = r
                return nil
            }
            if let d = r.clients[other].deliver { return d }
            r.clients[other].queue.append(message)
            rooms[room] = r
            return nil
        }
        target?(AppRTC.relay(message))
    }

    /// Removes `client` (leave, or its socket closed); the other peer gets `bye`. An empty
    /// room is deleted. Unknown rooms and clients are ignored (leaving twice is harmless).
    public func leave(room: String, client: String) {
        let notify: Deliver? = rooms.withLock { rooms in
            guard var r = rooms[room], let i = r.clients.firstIndex(where: { $0.id == client }) else { return nil }
            r.clients.remove(at: i)
            if r.clients.isEmpty {
                rooms[room] = nil
                return nil
            }
            r.forNextJoiner = []
            rooms[room] = r
            return r.clients.first?.deliver
        }
        notify?(AppRTC.relay(SignalingMessage.bye.json))
    }

    /// Whether `client` is in `room`.
    public func contains(room: String, client: String) -> Bool {
        rooms.withLock { $0[room]?.clients.contains { $0.id == client } ?? false }
    }

    /// Rooms and clients that exist now (for leak checks and the status page).
    public var counts: (rooms: Int, clients: Int) {
        rooms.withLock { r in (r.count, r.values.reduce(0) { $0 + $1.clients.count }) }
    }
}
