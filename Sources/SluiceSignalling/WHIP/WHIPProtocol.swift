import Foundation

/// The HTTP rules of WHIP (RFC 9725) and WHEP, shared by the server and tests: what a request
/// must look like and the status each mistake gets.
///
/// - `POST` with `application/sdp` → `201 Created`, `Location` of the session, `ETag`, the answer.
/// - `DELETE` on the session URL ends it (`200`); an unknown session is `404`.
/// - `PATCH` with `application/trickle-ice-sdpfrag` adds candidates (`204`); it needs
///   `If-Match` with the session's ETag (`428` without, `412` if it does not match). An ICE
///   restart (`If-Match: *` with new credentials) is answered `501`: Sluice does not restart ICE.
/// - With a token configured: no `Authorization: Bearer` → `401`, a wrong token → `403`.
/// - Wrong content type → `415`; SDP that does not parse → `400`; an offer Sluice cannot serve
///   (no audio or video) → `422`.
public enum WHIP {
    public static let sdpType = "application/sdp"
    public static let trickleType = "application/trickle-ice-sdpfrag"

    /// An HTTP error answer.
    public struct HTTPError: Error, Equatable, Sendable, CustomStringConvertible {
        public var status: Int
        public var message: String
        public var headers: [String: String]
        public init(_ status: Int, _ message: String, headers: [String: String] = [:]) {
            self.status = status; self.message = message; self.headers = headers
        }
        public var description: String { "\(status): \(message)" }
    }

    /// Checks the `Authorization` header against the configured token (nil: no auth).
    public static func checkAuthorization(_ header: String?, token: String?) -> HTTPError? {
        guard let token else { return nil }
        guard let header, header.lowercased().hasPrefix("bearer ") else {
            return HTTPError(401, "a bearer token is required", headers: ["WWW-Authenticate": "Bearer realm=\"sluice\""])
        }
        let given = header.dropFirst("bearer ".count).trimmingCharacters(in: .whitespaces)
        return constantTimeEqual(given, token) ? nil : HTTPError(403, "the bearer token is not valid for this endpoint")
    }

    /// The media type without parameters, lower-cased (`Application/SDP; charset=x` → `application/sdp`).
    public static func mediaType(_ header: String?) -> String? {
        header?.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
    }

    /// Checks a `POST` (offer). Returns the offer SDP.
    public static func checkOffer(contentType: String?, body: String, authorization: String?, token: String?) -> Result<String, HTTPError> {
        if let e = checkAuthorization(authorization, token: token) { return .failure(e) }
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

        public static func == (a: Patch, b: Patch) -> Bool {
            switch (a, b) {
            case (.candidates(let x, let ex), .candidates(let y, let ey)):
                ex == ey && x.count == y.count && zip(x, y).allSatisfy { $0.mid == $1.mid && $0.candidate == $1.candidate }
            }
        }
    }

    /// Checks a trickle `PATCH` against the session's current ETag.
    public static func checkPatch(contentType: String?, ifMatch: String?, etag: String, body: String,
                                  authorization: String?, token: String?) -> Result<Patch, HTTPError> {
        if let e = checkAuthorization(authorization, token: token) { return .failure(e) }
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
            if line.hasPrefix("a=mid:") { mid = String(line.dropFirst(6)) }
            else if line.hasPrefix("a=candidate:") { candidates.append((mid, String(line.dropFirst(2)))) }
            else if line == "a=end-of-candidates" { end = true }
            else if line.hasPrefix("a=ice-ufrag:") || line.hasPrefix("a=ice-pwd:") || line.hasPrefix("a=ice-options:")
                        || line.hasPrefix("m=") || line.hasPrefix("a=group:") { continue }
            else if !line.isEmpty, !(line.count >= 2 && line.dropFirst().first == "=") {
                return .failure(HTTPError(400, "the fragment has a line that is not SDP: \(line.prefix(60))"))
            }
        }
        return .success(.candidates(candidates, endOfCandidates: end))
    }

    /// `Link: <stun:host:port>; rel="ice-server"` values for the server's ICE configuration
    /// (`turn` entries as `turn://user:pass@host:port`).
    public static func linkHeaders(stun: [String], turn: [String]) -> [String] {
        var out: [String] = []
        for s in stun {
            out.append("<\(stripSlashes(s))>; rel=\"ice-server\"")
        }
        for t in turn {
            // turn://user:pass@host:port → <turn:host:port>; username="user"; credential="pass"
            guard let scheme = t.split(separator: ":", maxSplits: 1).first else { continue }
            var rest = String(t.dropFirst(scheme.count + 1))
            if rest.hasPrefix("//") { rest.removeFirst(2) }
            var user = "", pass = ""
            if let at = rest.lastIndex(of: "@") {
                let creds = rest[..<at]
                rest = String(rest[rest.index(after: at)...])
                let parts = creds.split(separator: ":", maxSplits: 1)
                user = parts.first.map(String.init) ?? ""
                pass = parts.count > 1 ? String(parts[1]) : ""
            }
            out.append("<\(scheme):\(rest)>; rel=\"ice-server\"; username=\"\(user)\"; credential=\"\(pass)\"; credential-type=\"password\"")
        }
        return out
    }

    private static func stripSlashes(_ url: String) -> String { url.replacingOccurrences(of: "://", with: ":") }

    private static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        var diff = x.count ^ y.count
        for i in 0..<min(x.count, y.count) { diff |= Int(x[i] ^ y[i]) }
        return diff == 0
    }
}
