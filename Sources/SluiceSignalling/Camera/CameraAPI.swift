import Foundation
import Synchronization

/// The camera stream API modelled on Google's Smart Device Management (Nest cameras):
/// `POST .../devices/<id>:executeCommand` with
/// - `sdm.devices.commands.CameraLiveStream.GenerateWebRtcStream {offerSdp}` →
///   `{"results": {"answerSdp", "expiresAt", "mediaSessionId"}}`,
/// - `...ExtendWebRtcStream {mediaSessionId}` → `{"results": {"expiresAt", "mediaSessionId"}}`,
/// - `...StopWebRtcStream {mediaSessionId}` → `{}`.
/// Errors use Google's JSON error shape: `{"error": {"code", "message", "status"}}`.
public enum CameraAPI {
    /// The command name that opens a stream (`params.offerSdp`).
    public static let generate = "sdm.devices.commands.CameraLiveStream.GenerateWebRtcStream"
    /// The command name that extends a stream (`params.mediaSessionId`).
    public static let extend = "sdm.devices.commands.CameraLiveStream.ExtendWebRtcStream"
    /// The command name that stops a stream (`params.mediaSessionId`).
    public static let stop = "sdm.devices.commands.CameraLiveStream.StopWebRtcStream"
    /// How long a stream lives unless extended.
    public static let lifetime: TimeInterval = 300

    /// A parsed `executeCommand` body.
    public enum Command: Equatable, Sendable {
        /// GenerateWebRtcStream with the client's offer.
        case generate(offerSdp: String)
        /// ExtendWebRtcStream of a session.
        case extend(mediaSessionId: String)
        /// StopWebRtcStream of a session.
        case stop(mediaSessionId: String)
    }

    /// An API error with its HTTP status and Google status word.
    public struct APIError: Error, Equatable, Sendable, CustomStringConvertible {
        /// The HTTP status (400, 404, …).
        public var code: Int
        /// Google's status word (`INVALID_ARGUMENT`, `NOT_FOUND`, …).
        public var status: String
        /// What went wrong.
        public var message: String
        /// An error with HTTP status `code`, status word `status` and `message`.
        public init(_ code: Int, _ status: String, _ message: String) { self.code = code; self.status = status; self.message = message }
        /// A 400 `INVALID_ARGUMENT` error.
        public static func invalid(_ m: String) -> APIError { APIError(400, "INVALID_ARGUMENT", m) }
        /// A 404 `NOT_FOUND` error.
        public static func notFound(_ m: String) -> APIError { APIError(404, "NOT_FOUND", m) }
        /// `CODE STATUS: message`.
        public var description: String { "\(code) \(status): \(message)" }
        /// `{"error": {"code", "message", "status"}}`.
        public var body: String {
            json(["error": ["code": code, "message": message, "status": status] as [String: Any]])
        }
    }

    /// Decodes an `executeCommand` body.
    public static func command(from body: Data) -> Result<Command, APIError> {
        guard body.count <= 256 * 1024 else { return .failure(.invalid("Request payload too large")) }
        guard let o = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else {
            return .failure(.invalid("Invalid JSON payload received"))
        }
        guard let name = o["command"] as? String else { return .failure(.invalid("Missing command")) }
        let params = o["params"] as? [String: Any] ?? [:]
        switch name {
        case generate:
            guard let sdp = params["offerSdp"] as? String, !sdp.isEmpty else { return .failure(.invalid("Missing offerSdp")) }
            return .success(.generate(offerSdp: sdp))
        case extend, stop:
            guard let id = params["mediaSessionId"] as? String, !id.isEmpty else {
                return .failure(.invalid("Missing mediaSessionId"))
            }
            return .success(name == extend ? .extend(mediaSessionId: id) : .stop(mediaSessionId: id))
        default:
            return .failure(APIError(400, "INVALID_ARGUMENT", "Command not supported: \(name)"))
        }
    }

    /// Checks an offer the way the camera API does: a complete SDP whose media lines are
    /// audio, video and application (a data channel), in that order, audio and video
    /// receive-only. Returns nil if acceptable.
    public static func offerProblem(_ sdp: String) -> APIError? {
        if let p = SDPCheck.problem(in: sdp) { return .invalid("Invalid offerSdp: \(p)") }
        let media = SDPSummary(sdp).media
        guard media.map(\.kind) == ["audio", "video", "application"] else {
            return .invalid(
                "Invalid offerSdp: media lines must be audio, video and application, in that order; got "
                    + (media.isEmpty ? "none" : media.map(\.kind).joined(separator: ", ")))
        }
        for m in media.prefix(2) where m.direction != "recvonly" {
            return .invalid("Invalid offerSdp: the \(m.kind) media line must be recvonly, got \(m.direction)")
        }
        return nil
    }

    /// `{"results": {"answerSdp", "expiresAt", "mediaSessionId"}}`.
    public static func generateResponse(answer: String, session: Session) -> String {
        json(["results": ["answerSdp": answer, "expiresAt": timestamp(session.expiresAt), "mediaSessionId": session.id]])
    }

    /// `{"results": {"expiresAt", "mediaSessionId"}}`.
    public static func extendResponse(session: Session) -> String {
        json(["results": ["expiresAt": timestamp(session.expiresAt), "mediaSessionId": session.id]])
    }

    /// RFC 3339 with milliseconds, UTC: `2020-01-04T18:30:00.000Z`.
    public static func timestamp(_ date: Date) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f.string(from: date)
    }

    /// Reads an RFC 3339 timestamp, with or without fractional seconds; nil if it is not one.
    public static func date(from timestamp: String) -> Date? {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f.date(from: timestamp) ?? ISO8601DateFormatter().date(from: timestamp)
    }

    static func json(_ object: [String: Any]) -> String {
        guard let d = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return "{}" }
        return String(decoding: d, as: UTF8.self)
    }

    /// A media session and when it ends.
    public struct Session: Sendable, Equatable {
        /// The media session id (URL-safe base64 of 24 random bytes).
        public var id: String
        /// The device the session belongs to.
        public var device: String
        /// When the session's media stops unless it is extended.
        public var expiresAt: Date
    }

    /// Sessions by id, with expiry. The server stops a session's media at `expiresAt`
    /// unless it was extended.
    public final class Sessions: Sendable {
        private let table = Mutex<[String: Session]>([:])
        private let lifetime: TimeInterval
        /// A table whose sessions last `lifetime` seconds from their creation or last extension.
        public init(lifetime: TimeInterval = CameraAPI.lifetime) { self.lifetime = lifetime }

        /// Starts a session for `device` with a new random id.
        public func create(device: String, now: Date = Date()) -> Session {
            var bytes = [UInt8](repeating: 0, count: 24)
            var rng = SystemRandomNumberGenerator()
            for i in bytes.indices { bytes[i] = UInt8.random(in: 0...255, using: &rng) }
            let id = Data(bytes).base64EncodedString().replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "+", with: "-")
            let s = Session(id: id, device: device, expiresAt: now.addingTimeInterval(lifetime))
            table.withLock { $0[id] = s }
            return s
        }

        /// Moves the expiry `lifetime` ahead; nil if unknown or already expired.
        public func extend(_ id: String, device: String, now: Date = Date()) -> Session? {
            table.withLock { t in
                guard var s = t[id], s.device == device, s.expiresAt > now else { return nil }
                s.expiresAt = now.addingTimeInterval(lifetime)
                t[id] = s
                return s
            }
        }

        /// Ends a session; false if unknown.
        @discardableResult
        public func stop(_ id: String, device: String) -> Bool {
            table.withLock { t in
                guard t[id]?.device == device else { return false }
                t[id] = nil
                return true
            }
        }

        /// Removes and returns the sessions whose time is up.
        public func expire(now: Date = Date()) -> [Session] {
            table.withLock { t in
                let gone = t.values.filter { $0.expiresAt <= now }
                for s in gone { t[s.id] = nil }
                return gone
            }
        }

        /// The number of live sessions.
        public var count: Int { table.withLock { $0.count } }
    }
}
