import Foundation
import XCTest

/// A throwaway Janus (Debian's janus 1.1, its VideoRoom plugin and WebSocket transport)
/// inside a test's namespace: shell that writes its configuration
/// (Tests/Interop/janus/make-config.sh), gives it an interface to gather ICE candidates on
/// (Janus skips loopback: one end of a veth pair whose other end is in the same namespace,
/// so nothing outside is reachable), starts it and waits until it answers; and shell that stops it.
public struct Janus: Sendable {
    public let directory: String
    public let httpPort: Int
    public let wsPort: Int
    /// `api_secret` for Janus to ask of every request (nil: none).
    public let apiSecret: String?
    /// `token_auth_secret`: Janus asks for HMAC-signed tokens (nil: no token authentication).
    public let tokenSecret: String?

    public init(httpPort: Int, wsPort: Int, apiSecret: String? = nil, tokenSecret: String? = nil) {
        self.directory = FileManager.default.temporaryDirectory.appendingPathComponent("janus-\(UUID().uuidString.prefix(8))").path
        self.httpPort = httpPort
        self.wsPort = wsPort
        self.apiSecret = apiSecret
        self.tokenSecret = tokenSecret
    }

    /// Shell printing a token signed with `tokenSecret` for the VideoRoom plugin, valid for
    /// `seconds` from now (negative: already expired): `EXPIRY,janus,janus.plugin.videoroom:` and
    /// the base64 HMAC-SHA1 of what precedes the colon, as Janus's token_auth_secret expects.
    public func signedToken(validFor seconds: Int, secret: String? = nil) -> String {
        let key = secret ?? tokenSecret ?? ""
        return "python3 -c 'import base64,hashlib,hmac,time; d=\"%d,janus,janus.plugin.videoroom\" % (time.time() + \(seconds)); "
            + "print(d + \":\" + base64.b64encode(hmac.new(b\"\(key)\", d.encode(), hashlib.sha1).digest()).decode())'"
    }

    /// Its WebSocket API (`SLUICE_JANUS`).
    public var url: String { "ws://127.0.0.1:\(wsPort)" }

    /// Fails the test (and stops it) when Janus is not installed: a missing peer is a broken
    /// set-up, not a pass (Scripts/install.sh installs it).
    public static func requireInstalled(file: StaticString = #filePath, line: UInt = #line) throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/janus") else {
            XCTFail("janus is not installed: run Scripts/install.sh testing", file: file, line: line)
            throw XCTSkip("janus is not installed")
        }
    }

    /// Shell that configures and starts Janus in the background (its pid in `$janus`) and
    /// waits until its HTTP API answers; exits 94–96 (96 with the log's tail) if it cannot.
    public var startScript: String {
        let d = directory
        let config = Repository.path("Tests/Interop/janus/make-config.sh")
        let secret = apiSecret.map { "sed -i 's/^general: {/general: {\\n\\tapi_secret = \"\($0)\"/' \(d)/janus.jcfg" } ?? ""
        let tokens = tokenSecret.map { "sed -i 's/^general: {/general: {\\n\\ttoken_auth = true\\n\\ttoken_auth_secret = \"\($0)\"/' \(d)/janus.jcfg" } ?? ""
        return """
            ip link add sfu0 type veth peer name sfu1 && ip addr add 10.55.0.1/24 dev sfu0 && ip link set sfu1 up && ip link set sfu0 up || exit 94
            bash \(config) \(d) \(httpPort) \(wsPort) sfu0 || exit 95
            \(secret)
            \(tokens)
            janus -F \(d) -C \(d)/janus.jcfg -o > \(d)/janus.log 2>&1 &
            janus=$!
            i=0; until curl -s -m 1 -o /dev/null http://127.0.0.1:\(httpPort)/janus/info; do
              i=$((i+1)); [ $i -lt 300 ] || { tail -20 \(d)/janus.log >&2; exit 96; }; sleep 0.05; done
            """
    }

    /// Shell that stops what `startScript` started and removes its directory. SIGKILL: a child
    /// of the test process inherits its threads' blocked signals, SIGTERM among them.
    public var stopScript: String { "kill -9 $janus 2>/dev/null; wait $janus 2>/dev/null; rm -rf \(directory)" }
}
