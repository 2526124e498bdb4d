import Foundation

/// One STUN or TURN server as `sluice serve` announces it to viewers: in WHIP/WHEP `Link`
/// headers (RFC 9725 §4.6) and as a WebRTC `RTCIceServer` for the server's own page.
///
/// Made from the command line's forms: `stun://host:port` and
/// `turn://user:pass@host:port` (`turns://` too; `?transport=tcp` is kept).
public struct ICEServer: Equatable, Sendable {
    /// The server's URL in WebRTC's form: `stun:host:port`, `turn:host:port?transport=udp`.
    public var url: String
    /// The TURN user name; empty for STUN.
    public var username: String
    /// The TURN password; empty for STUN.
    public var credential: String

    /// A STUN server from `stun://host:port` (or `stun:host:port`).
    public init(stun: String) {
        url = stun.replacingOccurrences(of: "://", with: ":")
        username = ""
        credential = ""
    }

    /// A TURN server from `turn://user:pass@host:port`; the credentials are what comes
    /// before the last `@`, split at the first `:`.
    public init(turn: String) {
        let scheme = turn.split(separator: ":", maxSplits: 1).first.map(String.init) ?? "turn"
        var rest = String(turn.dropFirst(min(turn.count, scheme.count + 1)))
        if rest.hasPrefix("//") { rest.removeFirst(2) }
        var user = "", pass = ""
        if let at = rest.lastIndex(of: "@") {
            let parts = rest[..<at].split(separator: ":", maxSplits: 1)
            user = parts.first.map(String.init) ?? ""
            pass = parts.count > 1 ? String(parts[1]) : ""
            rest = String(rest[rest.index(after: at)...])
        }
        url = "\(scheme):\(rest)"
        username = user
        credential = pass
    }

    /// The servers of `--stun` and `--turn`, STUN first.
    public static func list(stun: [String], turn: [String]) -> [ICEServer] {
        stun.map(ICEServer.init(stun:)) + turn.map(ICEServer.init(turn:))
    }

    /// `<url>; rel="ice-server"`, with the username and credential of a TURN server.
    public var linkHeader: String {
        guard !username.isEmpty || !credential.isEmpty else { return "<\(url)>; rel=\"ice-server\"" }
        return "<\(url)>; rel=\"ice-server\"; username=\"\(username)\"; credential=\"\(credential)\"; credential-type=\"password\""
    }

    /// The `RTCIceServer` dictionary a browser's `RTCPeerConnection` takes.
    public var rtcIceServer: [String: String] {
        var out = ["urls": url]
        if !username.isEmpty || !credential.isEmpty {
            out["username"] = username
            out["credential"] = credential
        }
        return out
    }

    /// Whether this is a TURN server (`turn:` or `turns:`), which a relay-only viewer needs.
    public var isTURN: Bool { url.hasPrefix("turn:") || url.hasPrefix("turns:") }
}
