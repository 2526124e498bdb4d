import Foundation

/// The HTTP rules of WHIP (RFC 9725) and WHEP, shared by the server and tests: what a request
/// must look like and the status each mistake gets.
///
/// - `POST` with `application/sdp` → `201 Created`, `Location` of the session, `ETag`, the answer.
/// - `DELETE` on the session URL ends it (`200`); an unknown session is `404`.
/// - `PATCH` with `application/trickle-ice-sdpfrag` adds candidates (`204`); it needs
///   `If-Match` with the session's ETag (`428` without, `412` if it does not match). An ICE
///   restart (`If-Match: *` with new credentials) is answered `501`: Sluice does not restart ICE.
/// - With a token configured: no `Authorization: Bearer` → `401`, a wrong token → `403`
///   (`BearerToken` decides; the server checks it once, in middleware, before any handler).
/// - Wrong content type → `415`; SDP that does not parse → `400`; an offer Sluice cannot serve
///   (no audio or video) → `422`.
public enum WHIP {
    /// The content type of an offer and an answer.
    public static let sdpType = "application/sdp"
    /// The content type of a trickle `PATCH` (RFC 8840 SDP fragment).
    public static let trickleType = "application/trickle-ice-sdpfrag"

    /// An HTTP error answer.
    public struct HTTPError: Error, Equatable, Sendable, CustomStringConvertible {
        /// The HTTP status (400, 401, 415, …).
        public var status: Int
        /// The body: what is wrong, in words.
        public var message: String
        /// Headers to send with the answer (e.g. `WWW-Authenticate`).
        public var headers: [String: String]
        /// An error answer with `status`, `message` and `headers`.
        public init(_ status: Int, _ message: String, headers: [String: String] = [:]) {
            self.status = status; self.message = message; self.headers = headers
        }
        /// `STATUS: message`.
        public var description: String { "\(status): \(message)" }
    }

    /// Checks the `Authorization` header against the configured token (nil: no auth), as
    /// WHIP/WHEP answer it: `401` with `WWW-Authenticate: Bearer` when no bearer token is
    /// sent, `403` when it is not the configured one.
    public static func checkAuthorization(_ header: String?, token: String?) -> HTTPError? {
        guard let token else { return nil }
        switch BearerToken.check(header, token: token) {
        case .accepted: return nil
        case .missing: return unauthorized
        case .invalid: return forbidden
        }
    }

    /// The answer to a request without a bearer token.
    public static let unauthorized = HTTPError(401, "a bearer token is required", headers: ["WWW-Authenticate": BearerToken.challenge])
    /// The answer to a request with the wrong bearer token.
    public static let forbidden = HTTPError(403, "the bearer token is not valid for this endpoint")

    /// The media type without parameters, lower-cased (`Application/SDP; charset=x` → `application/sdp`).
    public static func mediaType(_ header: String?) -> String? {
        header?.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
    }

    /// Checks a `POST` (offer). Returns the offer SDP.
    /// Authorization is not checked here: see `checkAuthorization`.
    public static func checkOffer(contentType: String?, body: String) -> Result<String, HTTPError> {
        guard mediaType(contentType) == sdpType else {
            return .failure(HTTPError(415, "the offer must be sent as \(sdpType)", headers: ["Accept-Post": sdpType]))
        }
        if let problem = SDPCheck.problem(in: body) { return .failure(HTTPError(400, problem)) }
        let media = SDPSummary(body).media
        guard media.contains(where: { $0.kind == "audio" || $0.kind == "video" }) else {
            return .failure(HTTPError(422, "the offer has no audio or video media line"))
        }
        return .success(body)
    }

    /// What a valid `PATCH` asks for.
    public enum Patch: Equatable, Sendable {
        /// Remote candidates (mid, candidate line without `a=`); may be empty with end-of-candidates.
        case candidates([(mid: String?, candidate: String)], endOfCandidates: Bool)

        /// Equal when both carry the same candidates in the same order and the same end flag.
        public static func == (a: Patch, b: Patch) -> Bool {
            switch (a, b) {
            case (.candidates(let x, let ex), .candidates(let y, let ey)):
                ex == ey && x.count == y.count && zip(x, y).allSatisfy { $0.mid == $1.mid && $0.candidate == $1.candidate }
            }
        }
    }

    /// Checks a trickle `PATCH` against the session's current ETag. Authorization is not
    /// checked here: see `checkAuthorization`.
    public static func checkPatch(contentType: String?, ifMatch: String?, etag: String, body: String) -> Result<Patch, HTTPError> {
        guard mediaType(contentType) == trickleType else {
            return .failure(HTTPError(415, "a PATCH carries \(trickleType)", headers: ["Accept-Patch": trickleType]))
        }
        guard let ifMatch = ifMatch?.trimmingCharacters(in: .whitespaces) else {
            return .failure(HTTPError(428, "a trickle PATCH needs If-Match with the session's ETag"))
        }
        if ifMatch == "*" {
            return .failure(HTTPError(501, "ICE restarts are not supported; end the session (DELETE) and start a new one"))
        }
        guard ifMatch == etag || ifMatch == "\"\(etag)\"" || "\"\(ifMatch)\"" == etag else {
            return .failure(HTTPError(412, "If-Match does not match the session's ETag \(etag)"))
        }
        guard body.utf8.count <= SDPCheck.maxBytes else { return .failure(HTTPError(413, "the fragment is too large")) }
        var mid: String?
        var candidates: [(mid: String?, candidate: String)] = []
        var end = false
        for raw in body.split(whereSeparator: \.isNewline) {
            let line = String(raw)
            if line.hasPrefix("a=mid:") {
                mid = String(line.dropFirst(6))
            } else if line.hasPrefix("a=candidate:") {
                candidates.append((mid, String(line.dropFirst(2))))
            } else if line == "a=end-of-candidates" {
                end = true
            } else if line.hasPrefix("a=ice-ufrag:") || line.hasPrefix("a=ice-pwd:") || line.hasPrefix("a=ice-options:")
                || line.hasPrefix("m=") || line.hasPrefix("a=group:")
            {
                continue
            } else if !line.isEmpty, !(line.count >= 2 && line.dropFirst().first == "=") {
                return .failure(HTTPError(400, "the fragment has a line that is not SDP: \(line.prefix(60))"))
            }
        }
        return .success(.candidates(candidates, endOfCandidates: end))
    }

    /// `Link: <stun:host:port>; rel="ice-server"` values for the server's ICE configuration
    /// (`turn` entries as `turn://user:pass@host:port`).
    public static func linkHeaders(stun: [String], turn: [String]) -> [String] {
        ICEServer.list(stun: stun, turn: turn).map(\.linkHeader)
    }
}

/// RFC 6750 bearer tokens (`Authorization: Bearer <token>`), as every protected Sluice endpoint
/// checks them.
public enum BearerToken {
    /// What `check` decides about a request's `Authorization` header.
    public enum Verdict: Equatable, Sendable {
        /// The configured token.
        case accepted
        /// No `Authorization` header, another scheme, or an empty token: `401`.
        case missing
        /// A bearer token that is not the configured one: `403`.
        case invalid
    }

    /// The `WWW-Authenticate` value sent with a `401`.
    public static let challenge = "Bearer realm=\"sluice\""

    /// Checks an `Authorization` header value against `token`. The scheme is case-insensitive;
    /// the token is compared in constant time (for a given length of the token sent).
    public static func check(_ header: String?, token: String) -> Verdict {
        guard let given = value(header) else { return .missing }
        return constantTimeEqual(given, token) ? .accepted : .invalid
    }

    /// The token of an `Authorization: Bearer <token>` header value (scheme case-insensitive,
    /// surrounding blanks trimmed); nil for no header, another scheme or an empty token.
    public static func value(_ header: String?) -> String? {
        guard let header, header.count > 7, header.prefix(7).lowercased() == "bearer " else { return nil }
        let given = header.dropFirst(7).trimmingCharacters(in: .whitespaces)
        return given.isEmpty ? nil : given
    }

    /// Equal bytes, in time that depends on the lengths only, not on where they differ.
    static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        var diff = UInt(bitPattern: x.count ^ y.count)
        for i in 0..<max(x.count, y.count) {
            diff |= UInt((i < x.count ? x[i] : 0) ^ (i < y.count ? y[i] : 0))
        }
        return diff == 0
    }
}
