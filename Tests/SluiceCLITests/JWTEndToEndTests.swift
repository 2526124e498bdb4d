import Foundation
import SluiceTestSupport
import XCTest

/// `sluice serve --jwks --jwt-issuer --jwt-audience` against tokens PyJWT (PyPI) made with
/// RSA, P-256 and Ed25519 keys (`Tests/Interop/jwt/tokens.py`): the good ones are admitted to
/// what their `sluice_permissions` grant, each bad one gets its 401 or 403 with a
/// problem+json body before any handler runs, the static `--token` keeps working, and an
/// aiortc viewer with a JWT plays.
final class JWTEndToEndTests: XCTestCase {
    override func setUpWithError() throws {
        let r = try CLI.execute(
            URL(fileURLWithPath: Repository.python), ["-c", "import jwt, cryptography, aiortc"], env: [:], timeout: 30, reportPath: nil)
        if r.status != 0 { throw CLI.BrowserToolsMissing(missing: ["PyJWT (pyjwt[crypto]) and aiortc in .venv"]) }
    }

    /// What a token gets at `POST /whep/serve-av` (an offer that is not SDP, so an admitted
    /// request ends at the handler's 400), `GET /streams.json`, `GET /metrics` and the control
    /// API's `GET /api/v1/pipelines`.
    struct Expected {
        var post: Int, list: Int, metrics: Int, api: Int
    }

    static let expected: [String: Expected] = {
        let good = Expected(post: 400, list: 200, metrics: 403, api: 403)
        let bad = Expected(post: 401, list: 401, metrics: 401, api: 401)
        var table: [String: Expected] = ["rs256": good, "es256": good, "eddsa": good]
        for name in [
            "alg_none", "hs256_public_key", "unknown_kid", "expired", "not_yet", "wrong_audience", "wrong_issuer", "no_expiry", "garbage", "long", "tampered"
        ] {
            table[name] = bad
        }
        table["other_stream"] = Expected(post: 403, list: 200, metrics: 403, api: 403)
        table["no_permissions"] = Expected(post: 403, list: 403, metrics: 403, api: 403)
        table["metrics_only"] = Expected(post: 403, list: 403, metrics: 200, api: 403)
        table["api"] = Expected(post: 403, list: 403, metrics: 403, api: 200)
        table["static"] = Expected(post: 400, list: 200, metrics: 200, api: 200)
        // SwiftNIO's parser refuses more than 80 KB of headers and closes the connection
        // before any of Sluice's code sees the request: curl reads no status at all.
        table["huge"] = Expected(post: 0, list: 0, metrics: 0, api: 0)
        return table
    }()

    func testEachTokenGetsItsStatusAndAGoodOnePlays() throws {
        let script = #"""
            ip link set lo up
            mkdir -p "$T"
            "$PYTHON" Tests/Interop/jwt/tokens.py "$T/jwks.json" > "$T/tokens.json" || exit 93
            "$PYTHON" -c 'import json,sys; t=json.load(open(sys.argv[1])); t["static"]="s3cret"; json.dump(t, open(sys.argv[1], "w"))' "$T/tokens.json"
            "$SLUICE" serve --port 18961 --pipeline Pipelines/serve-av.yaml --token s3cret --jwks "$T/jwks.json" \
              --jwt-issuer https://issuer.test --jwt-audience sluice > "$T/serve.log" 2>&1 & s=$!
            i=0; until curl -s -o /dev/null http://127.0.0.1:18961/healthz; do i=$((i+1)); [ $i -lt 400 ] || { cat "$T/serve.log"; exit 94; }; sleep 0.05; done
            for name in $("$PYTHON" -c 'import json,sys; print(" ".join(json.load(open(sys.argv[1]))))' "$T/tokens.json"); do
              "$PYTHON" -c 'import json,sys; sys.stdout.write("Authorization: Bearer " + json.load(open(sys.argv[1]))[sys.argv[2]] + "\n")' "$T/tokens.json" "$name" > "$T/header"
              rm -f "$T/body"
              post=$(curl -s -o "$T/body" -w '%{http_code}|%{content_type}' -H @"$T/header" -H 'Content-Type: application/sdp' \
                --data-binary 'not sdp' http://127.0.0.1:18961/whep/serve-av)
              list=$(curl -s -o /dev/null -w '%{http_code}' -H @"$T/header" http://127.0.0.1:18961/streams.json)
              metrics=$(curl -s -o /dev/null -w '%{http_code}' -H @"$T/header" http://127.0.0.1:18961/metrics)
              api=$(curl -s -o /dev/null -w '%{http_code}' -H @"$T/header" http://127.0.0.1:18961/api/v1/pipelines)
              type=$(echo "${post#*|}" | tr -d ' ')
              echo "TOKEN $name ${post%%|*} ${type:--} $list $metrics $api $(head -c 300 "$T/body" 2>/dev/null | tr '\n' ' ')"
            done
            good=$("$PYTHON" -c 'import json,sys; print(json.load(open(sys.argv[1]))["eddsa"])' "$T/tokens.json")
            echo "PLAY: $("$PYTHON" Tests/Interop/aiortc/aiortc_peer.py whep-play http://127.0.0.1:18961/whep/serve-av --token "$good" --seconds 2 2>&1 | tail -1)"
            kill -INT $s; wait $s; echo "EXIT: $?"
            echo "LOG: $(head -c 1500 "$T/serve.log" | tr '\n' ' ')"
            rm -rf "$T"
            """#
        let tmp = FileManager.default.temporaryDirectory.appendingPathComponent("jwt-\(UUID().uuidString)").path
        let r = try CLI.execute(
            inNamespace: script, env: ["SLUICE": CLI.binary.path, "PYTHON": Repository.python, "T": tmp], timeout: 150, reportPath: nil)
        let raw = String(r.stdout.suffix(8000) + r.stderr.suffix(2000))
        var seen: [String: [String]] = [:]
        for line in r.stdout.split(separator: "\n") where line.hasPrefix("TOKEN ") {
            let fields = line.split(separator: " ", maxSplits: 7).map(String.init)
            if fields.count >= 7 { seen[fields[1]] = Array(fields.dropFirst(2)) }
        }
        XCTAssertEqual(Set(seen.keys), Set(Self.expected.keys), raw)
        for (name, want) in Self.expected.sorted(by: { $0.key < $1.key }) {
            let got = seen[name] ?? []
            let statuses = got.count >= 5 ? [got[0], got[2], got[3], got[4]] : []
            let wanted = [want.post, want.list, want.metrics, want.api].map { String(format: "%03d", $0) }
            XCTAssertEqual(statuses, wanted, "\(name): POST /whep, GET /streams.json, /metrics, /api/v1/pipelines: \(got)")
            if want.post == 401 || want.post == 403 {
                XCTAssertEqual(got.count > 1 ? got[1] : nil, "application/problem+json", "\(name): \(got)")
                let body = got.count > 5 ? got[5] : ""
                XCTAssertTrue(body.contains("\"status\":\(want.post)"), "\(name)'s body is a problem with its status: \(body)")
            }
        }
        XCTAssertTrue(r.stdout.contains(#""picture_moves": true"#), "an EdDSA token plays: \(raw)")
        XCTAssertTrue(r.stdout.contains("EXIT: 0"), raw)
        XCTAssertTrue(r.stdout.contains("keys ec-1, ed-1, rsa-1"), "the server names the keys it loaded: \(raw)")
        let reasons = seen.filter { $0.value.first == "401" }.map { "\($0.key): \($0.value.dropFirst(5).joined(separator: " ").prefix(140))" }
        print("refusals:\n  \(reasons.sorted().joined(separator: "\n  "))")
    }

    /// A key set at a URL (served on loopback by Python's http.server) is reloaded: a token
    /// signed by a key the set does not have yet is refused, and admitted once the provider
    /// publishes that key, without restarting the server. A key set that cannot be read stops
    /// the server before it listens, naming the option.
    func testAKeySetAtAURLIsReloadedAndABadOneStopsTheServer() throws {
        let script = #"""
            ip link set lo up
            mkdir -p "$T/www"
            "$PYTHON" Tests/Interop/jwt/tokens.py "$T/www/jwks.json" --rotated "$T/rotated.json" > "$T/tokens.json" || exit 93
            "$PYTHON" -m http.server 18962 --bind 127.0.0.1 --directory "$T/www" > /dev/null 2>&1 & w=$!
            i=0; until curl -s -o /dev/null http://127.0.0.1:18962/jwks.json; do i=$((i+1)); [ $i -lt 200 ] || exit 95; sleep 0.05; done
            "$SLUICE" serve --port 18963 --pipeline Pipelines/serve-av.yaml --jwks http://127.0.0.1:18962/jwks.json --jwks-refresh 10 \
              > "$T/serve.log" 2>&1 & s=$!
            i=0; until curl -s -o /dev/null http://127.0.0.1:18963/healthz; do i=$((i+1)); [ $i -lt 400 ] || { cat "$T/serve.log"; exit 94; }; sleep 0.05; done
            "$PYTHON" -c 'import json,sys; sys.stdout.write("Authorization: Bearer " + json.load(open(sys.argv[1]))["unknown_kid"] + "\n")' "$T/tokens.json" > "$T/header"
            echo "BEFORE: $(curl -s -o /dev/null -w '%{http_code}' -H @"$T/header" http://127.0.0.1:18963/streams.json)"
            cp "$T/rotated.json" "$T/www/jwks.json"; rotated=$(date +%s.%N)
            i=0; until [ "$(curl -s -o /dev/null -w '%{http_code}' -H @"$T/header" http://127.0.0.1:18963/streams.json)" = 200 ]; do
              i=$((i+1)); [ $i -lt 300 ] || { echo "NEVER-ADMITTED"; break; }; sleep 0.1
            done
            echo "ADMITTED-AFTER: $(awk "BEGIN { print $(date +%s.%N) - $rotated }")"
            kill -INT $s; wait $s; echo "EXIT: $?"
            kill $w
            "$SLUICE" serve --port 18964 --jwks http://127.0.0.1:18962/jwks.json > /dev/null 2> "$T/gone.err"; echo "GONE-STATUS: $?"
            echo '{"keys": "no"}' > "$T/broken.json"
            "$SLUICE" serve --port 18964 --jwks "$T/broken.json" > /dev/null 2> "$T/broken.err"; echo "BROKEN-STATUS: $?"
            echo "GONE: $(tr '\n' ' ' < "$T/gone.err")"
            echo "BROKEN: $(tr '\n' ' ' < "$T/broken.err")"
            rm -rf "$T"
            """#
        let tmp = FileManager.default.temporaryDirectory.appendingPathComponent("jwks-\(UUID().uuidString)").path
        let r = try CLI.execute(
            inNamespace: script, env: ["SLUICE": CLI.binary.path, "PYTHON": Repository.python, "T": tmp], timeout: 150, reportPath: nil)
        let raw = String(r.stdout.suffix(6000) + r.stderr.suffix(2000))
        XCTAssertTrue(r.stdout.contains("BEFORE: 401"), "a key the set does not have yet: \(raw)")
        XCTAssertFalse(r.stdout.contains("NEVER-ADMITTED"), "the rotated set was never loaded: \(raw)")
        let after = r.stdout.components(separatedBy: "\n").first { $0.hasPrefix("ADMITTED-AFTER: ") }.flatMap { Double($0.dropFirst(16)) }
        XCTAssertLessThanOrEqual(after ?? 99, 12, "admitted within one refresh (10 s): \(raw)")
        XCTAssertTrue(r.stdout.contains("EXIT: 0"), raw)
        XCTAssertTrue(r.stdout.contains("GONE-STATUS: 2"), raw)
        XCTAssertTrue(r.stdout.contains("BROKEN-STATUS: 2"), raw)
        XCTAssertTrue(r.stdout.contains("GONE: error: --jwks http://127.0.0.1:18962/jwks.json: cannot fetch the key set"), raw)
        XCTAssertTrue(r.stdout.contains("BROKEN: error: --jwks \(tmp)/broken.json: the key set is not a JWKS document"), raw)
        print("rotated key admitted after \(after.map { String(format: "%.1f", $0) } ?? "?") s")
    }

    /// Chromium opens the server's page with an ES256 JWT in its address (`?token=`): the
    /// page takes it into its token field, drops it from the address bar, and plays the
    /// stream with it (a moving picture, as a person would see it).
    func testThePageCarriesAJWTFromItsAddress() throws {
        try CLI.requireBrowserTools()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("jwt-page-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let jwks = dir.appendingPathComponent("jwks.json").path
        let made = try ProcessRunner.run(URL(fileURLWithPath: Repository.python), [Repository.path("Tests/Interop/jwt/tokens.py"), jwks], timeout: 60)
        XCTAssertEqual(made.status, 0, made.stderr)
        let tokens = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(made.stdout.utf8)) as? [String: String])
        let token = try XCTUnwrap(tokens["es256"])
        let (_, json, _) = try CLI.browserCheck(
            "play", "serve-av",
            serve: ["--pipeline", "Pipelines/serve-av.yaml", "--jwks", jwks, "--jwt-issuer", "https://issuer.test", "--jwt-audience", "sluice"],
            port: 18965, extra: ["--token", token, "--token-in-url"])
        XCTAssertGreaterThanOrEqual(json["framesDecoded"] as? Int ?? 0, 30, "\(json)")
        let picture = try XCTUnwrap(json["picture"] as? [String: Any], "\(json)")
        XCTAssertEqual(picture["readyState"] as? Int, 4, "\(picture)")
        XCTAssertGreaterThanOrEqual(picture["trackFrames"] as? Int ?? 0, 10, "\(picture)")
        XCTAssertGreaterThan((picture["maxFrameDiff"] as? NSNumber)?.doubleValue ?? 0, 0.5, "the picture moves: \(picture)")
        print(
            "Chromium with a JWT in the page's address: \(json["framesDecoded"] ?? "?") frames, \(picture["trackWidth"] ?? "?")x\(picture["trackHeight"] ?? "?")"
        )
    }
}
