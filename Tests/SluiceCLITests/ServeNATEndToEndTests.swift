import Foundation
import SluiceTestSupport
import XCTest

/// `sluice serve` behind a cloud NAT, an aiortc viewer behind a home NAT
/// (`Tests/Interop/nat/topology.sh`): only the cloud NAT's public address 100.64.0.1 is
/// reachable, its HTTP port (and a UDP range, when forwarded) sent on to the server's private
/// 10.0.2.2. aiortc (PyPI) is a WebRTC stack nobody here wrote.
final class ServeNATEndToEndTests: XCTestCase {
    override func setUpWithError() throws {
        try CLI.requireBrowserTools()
        let r = try CLI.execute(URL(fileURLWithPath: Repository.python), ["-c", "import aiortc"], env: [:], timeout: 30, reportPath: nil)
        if r.status != 0 { throw CLI.BrowserToolsMissing(missing: ["aiortc in .venv"]) }
        let folders = ["/usr/sbin", "/sbin", "/usr/bin"]
        for tool in ["iptables", "ip"] where !folders.contains(where: { FileManager.default.isExecutableFile(atPath: "\($0)/\(tool)") }) {
            throw CLI.BrowserToolsMissing(missing: [tool])
        }
    }

    /// Runs `sluice serve SERVE_ARGS` in the server's namespace and `body` after it answers
    /// through the NAT; the topology's UDP forward is `udp` (MIN:MAX or "").
    /// `server` starts the server in namespace `nats$ID` with the pipeline `$TMP.yaml`, up to
    /// its options (the container test gives `podman run …`).
    static func behindNAT(
        serve: String, udp: String, tcp: String = "", timeout: Double = 90,
        server: String = #"ip netns exec nats$ID "$SLUICE" serve --pipeline "$TMP.yaml""#, _ body: String
    ) throws -> (lines: [String: String], raw: String) {
        let id = String(UUID().uuidString.prefix(6)).lowercased()
        let script = """
            ip link set lo up
            ID=\(id)
            bash Tests/Interop/nat/topology.sh up \(id) 18780 '\(udp)' '\(tcp)' || exit 94
            sed 's/addresses: \\[127.0.0.1\\]/addresses: [10.0.2.2]/' Pipelines/serve-av.yaml > "$TMP.yaml"
            started=$(date +%s%N)
            \(server) --host 0.0.0.0 --port 18780 \(serve) > "$TMP.serve" 2>&1 &
            serve=$!
            i=0; until ip netns exec natv\(id) curl -s -m 1 -o /dev/null http://100.64.0.1:18780/streams.json; do i=$((i+1)); [ $i -lt 300 ] || { echo "NO-HTTP: 1"; break; }; sleep 0.1; done
            i=0; until [ "$(ip netns exec nats\(id) curl -s -o /dev/null -w '%{http_code}' http://127.0.0.1:18780/readyz)" = 200 ]; do i=$((i+1)); [ $i -lt 300 ] || break; sleep 0.05; done
            echo "READY-MS: $(( ($(date +%s%N) - started) / 1000000 ))"
            metrics() { ip netns exec nats\(id) curl -s http://127.0.0.1:18780/metrics; }
            view() { ip netns exec natv\(id) env AIORTC_HOST_ADDRESSES=192.168.1.2 "$PYTHON" Tests/Interop/aiortc/aiortc_peer.py whep-play http://100.64.0.1:18780/whep/serve-av "$@"; }
            \(body)
            kill -INT $serve; wait $serve; echo "SERVE-EXIT: $?"
            echo "SERVE-LOG: $(grep -E 'removed|error' "$TMP.serve" | tr '\\n' ' ' | cut -c1-600)"
            bash Tests/Interop/nat/topology.sh down \(id)
            rm -f "$TMP.yaml" "$TMP.serve"
            """
        let tmp = FileManager.default.temporaryDirectory.appendingPathComponent("serve-nat-\(id)").path
        // The script takes the topology down itself; this is for a script killed at its timeout.
        defer { _ = try? ProcessRunner.run(URL(fileURLWithPath: "/bin/bash"), [Repository.path("Tests/Interop/nat/topology.sh"), "down", id], timeout: 20) }
        let r = try CLI.execute(
            inNamespace: script, env: ["SLUICE": CLI.binary.path, "PYTHON": Repository.python, "TMP": tmp], timeout: timeout, reportPath: nil)
        var lines: [String: String] = [:]
        for line in r.stdout.components(separatedBy: "\n") {
            guard let colon = line.range(of: ": ") else { continue }
            lines[String(line[..<colon.lowerBound])] = String(line[colon.upperBound...])
        }
        return (lines, r.stdout + r.stderr)
    }

    /// (a) Without the options the server offers only 10.0.2.2, which the viewer cannot
    /// reach: the viewer does not play, and within 10 s of the server taking its offer the
    /// server's log and `/metrics` say why (ICE failed or never connected; viewer removed).
    func testWithoutTheOptionsTheViewerCannotConnectAndTheServerSaysSo() throws {
        let (lines, raw) = try Self.behindNAT(
            serve: "", udp: "",
            """
            view --seconds 2 --timeout 20 > "$TMP.view" 2>&1 &
            v=$!
            i=0; until metrics | grep -q '^sluice_stream_viewers{.*} 1'; do i=$((i+1)); [ $i -lt 300 ] || break; sleep 0.05; done
            arrived=$(date +%s%N)
            i=0; until metrics | grep -qE 'viewers_removed_total\\{.*reason="(ice-failed|never-connected)"\\} 1'; do i=$((i+1)); [ $i -lt 300 ] || break; sleep 0.1; done
            echo "REMOVED-AFTER-MS: $(( ($(date +%s%N) - arrived) / 1000000 ))"
            echo "REMOVED: $(metrics | grep -E 'viewers_removed_total' | tr '\\n' ' ')"
            wait $v; echo "VIEW-STATUS: $?"
            echo "VIEW: $(tail -c 300 "$TMP.view" | tr '\\n' ' ')"; rm -f "$TMP.view"
            """)
        XCTAssertNil(lines["NO-HTTP"], raw)
        XCTAssertEqual(lines["VIEW-STATUS"], "1", "the viewer cannot play: \(raw)")
        XCTAssertTrue(lines["REMOVED"]?.range(of: #"reason="(ice-failed|never-connected)"\} 1"#, options: .regularExpression) != nil, raw)
        let after = Int(lines["REMOVED-AFTER-MS"] ?? "") ?? .max
        print("behind NAT without the options: viewer removed \(after) ms after it arrived")
        XCTAssertLessThanOrEqual(after, 10_000, "the server gave up within 10 s: \(raw)")
        XCTAssertTrue(lines["SERVE-LOG"]?.contains("removed: ICE") ?? false, "its log says why: \(raw)")
    }

    /// (b) With `--ice-public-address 100.64.0.1 --ice-port-range 40000-40099`, and the cloud
    /// NAT forwarding that range, the viewer plays the moving picture at its size and rate.
    /// The range matters: the NAT forwards nothing else.
    func testWithAPublicAddressAndAPortRangeTheViewerPlays() throws {
        let (lines, raw) = try Self.behindNAT(
            serve: "--ice-public-address 100.64.0.1 --ice-port-range 40000-40099", udp: "40000:40099",
            """
            view --seconds 3 --timeout 20 > "$TMP.view" 2> "$TMP.err"; echo "VIEW-STATUS: $?"
            echo "VIEW: $(cat "$TMP.view")"; echo "VIEW-ERR: $(tail -c 300 "$TMP.err" | tr '\\n' ' ')"; rm -f "$TMP.view" "$TMP.err"
            """)
        let j = Self.assertAiortcPlayed(lines, raw)
        print("through both NATs: first frame \(j["first_frame_ms"] ?? "?") ms, \(j["fps"] ?? "?") fps")
    }

    /// The aiortc viewer's `VIEW-STATUS` and `VIEW` lines: it exited 0 having played 640×360
    /// at 24 fps or more with a moving picture. Returns its JSON for the test's own checks.
    @discardableResult
    static func assertAiortcPlayed(_ lines: [String: String], _ raw: String, file: StaticString = #filePath, line: UInt = #line) -> [String: Any] {
        XCTAssertEqual(lines["VIEW-STATUS"], "0", raw, file: file, line: line)
        let j = (lines["VIEW"].flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) } as? [String: Any]) ?? [:]
        XCTAssertEqual(j["width"] as? Int, 640, raw, file: file, line: line)
        XCTAssertEqual(j["height"] as? Int, 360, raw, file: file, line: line)
        XCTAssertGreaterThanOrEqual(j["fps"] as? Double ?? 0, 24, raw, file: file, line: line)
        XCTAssertEqual(j["picture_moves"] as? Bool, true, raw, file: file, line: line)
        return j
    }

    /// (c) Only TCP forwarded (a network that blocks UDP): with `--ice-tcp` the server also
    /// offers passive ICE-TCP candidates in its port range, and Chromium plays over them.
    func testWithOnlyTCPForwardedChromiumPlaysOverICETCP() throws {
        let (lines, raw) = try Self.behindNAT(
            serve: "--ice-public-address 100.64.0.1 --ice-port-range 40000-40099 --ice-tcp", udp: "", tcp: "40000:40099",
            timeout: 150, Self.chromium)
        assertChromiumPlayed(lines, raw, "over ICE-TCP")
    }

    /// Chromium in the viewer's namespace plays `serve-av` from the server's page.
    static let chromium = """
        ip netns exec natv$ID "$PYTHON" Tests/Browser/browser_check.py play http://100.64.0.1:18780 serve-av \\
          --min-frames 30 --measure 1 --timeout 40 > "$TMP.view" 2> "$TMP.err"; echo "VIEW-STATUS: $?"
        echo "VIEW: $(grep '^{' "$TMP.view" | tail -1)"; echo "VIEW-ERR: $(tail -c 600 "$TMP.err" | tr '\\n' ' ')"
        rm -f "$TMP.view" "$TMP.err"
        """

    private func assertChromiumPlayed(_ lines: [String: String], _ raw: String, _ how: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(lines["VIEW-STATUS"], "0", raw, file: file, line: line)
        let j = (lines["VIEW"].flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) } as? [String: Any]) ?? [:]
        XCTAssertEqual(j["width"] as? Int, 640, raw, file: file, line: line)
        XCTAssertEqual(j["height"] as? Int, 360, raw, file: file, line: line)
        let picture = j["picture"] as? [String: Any]
        XCTAssertGreaterThan(picture?["maxFrameDiff"] as? Double ?? 0, 0.5, "the picture moves: \(raw)", file: file, line: line)
        print("Chromium through both NATs \(how): first frame \(j["firstFrameMs"] ?? "?") ms, \(j["fps"] ?? "?") fps")
    }

    /// (b) with Chromium as the viewer, behind the home NAT: the server's page played over
    /// WHEP through the public address; the picture in the page's `<video>` moves.
    func testChromiumBehindAHomeNATPlaysThroughThePublicAddress() throws {
        let (lines, raw) = try Self.behindNAT(
            serve: "--ice-public-address 100.64.0.1 --ice-port-range 40000-40099", udp: "40000:40099", timeout: 150, Self.chromium)
        assertChromiumPlayed(lines, raw, "over UDP")
    }

    /// coturn on the cloud NAT's public address (as a TURN service in the cluster), started in
    /// the router's namespace with the `turnserver.conf` of `deploy/k8s/coturn.yaml`; only its
    /// addresses and user come from the command line, as the manifest's Deployment does.
    /// `relay` then gives the viewer relayed candidates and nothing else. The server forwards
    /// no UDP and announces no public address: the relay is the only way.
    static func coturn() throws -> String {
        let manifest = try String(contentsOfFile: Repository.path("deploy/k8s/coturn.yaml"), encoding: .utf8)
        let lines = manifest.components(separatedBy: "\n")
        let start = try XCTUnwrap(lines.firstIndex { $0.trimmingCharacters(in: .whitespaces) == "turnserver.conf: |" })
        let conf = lines[(start + 1)...].prefix { $0.hasPrefix("    ") }.map { String($0.dropFirst(4)) }
        XCTAssertTrue(conf.contains("lt-cred-mech"), "\(conf)")
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("turnserver-\(UUID().uuidString).conf").path
        try (conf.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return """
            ip netns exec natc$ID turnserver -c \(path) --listening-ip=100.64.0.1 --relay-ip=100.64.0.1 --user=viewer:secret \\
              --pidfile="$TMP.turn.pid" -v > "$TMP.turn" 2>&1 &
            turn=$!
            i=0; until grep -q 'Total General servers' "$TMP.turn"; do i=$((i+1)); [ $i -lt 200 ] || { echo "NO-TURN: 1"; break; }; sleep 0.05; done
            rm -f \(path)

            """
    }
    static let coturnDown = """


        echo "TURN-PEERS: $(grep -oE 'peer [0-9.]+' "$TMP.turn" | sort -u | tr '\\n' ' ')"
        echo "TURN-CLIENTS: $(grep -oE 'remote 100\\.64\\.0\\.[0-9]+' "$TMP.turn" | sort -u | tr '\\n' ' ')"
        kill $turn; wait $turn 2>/dev/null; rm -f "$TMP.turn" "$TMP.turn.pid"
        """

    /// (d) No UDP forwarded and no public address, but coturn on the router and
    /// `--turn turn://viewer:secret@100.64.0.1:3478`: a relay-only aiortc viewer plays through
    /// the relay, and coturn's own log shows the viewer's home NAT as its client and the
    /// server's private address as the peer it relayed to.
    func testARelayOnlyViewerPlaysThroughCoturnOnTheRouter() throws {
        try requireCoturn()
        let (lines, raw) = try Self.behindNAT(
            serve: "--turn turn://viewer:secret@100.64.0.1:3478", udp: "",
            try Self.coturn() + """
                view --seconds 3 --timeout 25 --turn turn://viewer:secret@100.64.0.1:3478 --relay-only \\
                  > "$TMP.view" 2> "$TMP.err"; echo "VIEW-STATUS: $?"
                echo "VIEW: $(cat "$TMP.view")"; echo "VIEW-ERR: $(tail -c 300 "$TMP.err" | tr '\\n' ' ')"; rm -f "$TMP.view" "$TMP.err"
                """ + Self.coturnDown)
        XCTAssertNil(lines["NO-TURN"], raw)
        let j = Self.assertAiortcPlayed(lines, raw)
        XCTAssertTrue((j["path"] as? String)?.hasPrefix("relay ->") ?? false, "the viewer sent through its relay: \(raw)")
        XCTAssertTrue(lines["TURN-CLIENTS"]?.contains("remote 100.64.0.2") ?? false, "the home NAT was coturn's client: \(raw)")
        XCTAssertTrue(lines["TURN-PEERS"]?.contains("peer 10.0.2.2") ?? false, "coturn relayed to the server: \(raw)")
        print("relay-only aiortc through coturn: first frame \(j["first_frame_ms"] ?? "?") ms, \(j["fps"] ?? "?") fps")
    }

    /// (d) with Chromium: the server's page with its relay-only switch (`?relay=1`) takes the
    /// TURN server from `/ice-servers.json` and plays through it.
    func testChromiumRelayOnlyPlaysThroughCoturnOnTheRouter() throws {
        try requireCoturn()
        let chromium = Self.chromium.replacingOccurrences(
            of: "play http://100.64.0.1:18780 serve-av", with: "play --relay-only http://100.64.0.1:18780 serve-av")
        let (lines, raw) = try Self.behindNAT(
            serve: "--turn turn://viewer:secret@100.64.0.1:3478", udp: "", timeout: 150, try Self.coturn() + chromium + Self.coturnDown)
        XCTAssertNil(lines["NO-TURN"], raw)
        assertChromiumPlayed(lines, raw, "through coturn")
        let j = (lines["VIEW"].flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) } as? [String: Any]) ?? [:]
        XCTAssertTrue((j["path"] as? String)?.hasPrefix("udp relay ->") ?? false, "the page sent through its relay: \(raw)")
        XCTAssertTrue(lines["TURN-PEERS"]?.contains("peer 10.0.2.2") ?? false, "coturn relayed to the server: \(raw)")
    }

    private func requireCoturn() throws {
        if !FileManager.default.isExecutableFile(atPath: "/usr/bin/turnserver") { throw CLI.BrowserToolsMissing(missing: ["coturn"]) }
    }
}
