import Foundation
import SluiceTestSupport
import XCTest

extension CLI {
    /// Debian's Chromium and its driver (selenium is in the virtual environment, `Repository.python`).
    static let chromium = "/usr/bin/chromium", chromedriver = "/usr/bin/chromedriver"

    /// Fails the test unless Chromium, chromedriver and selenium are installed. Never skips:
    /// CI installs them, so their absence is a broken setup, not a reason to pass.
    static func requireBrowserTools() throws {
        var missing: [String] = []
        for path in [chromium, chromedriver] where !FileManager.default.isExecutableFile(atPath: path) { missing.append(path) }
        if !FileManager.default.isExecutableFile(atPath: Repository.python) {
            missing.append(Repository.python)
        } else {
            let r = try execute(URL(fileURLWithPath: Repository.python), ["-c", "import selenium"], env: [:], timeout: 30, reportPath: nil)
            if r.status != 0 { missing.append("selenium in .venv") }
        }
        if !missing.isEmpty { throw BrowserToolsMissing(missing: missing) }
    }

    /// Thrown (so the test fails, never skips) when the browser tools are not installed.
    struct BrowserToolsMissing: Error, CustomStringConvertible {
        var missing: [String]
        var description: String { "the browser tests need \(missing.joined(separator: ", ")): run Scripts/install.sh" }
    }

    /// In one loopback-only namespace: starts `sluice serve --port port serveArgs…`, waits
    /// (bounded) until it answers, runs the shell command `client` (`$URL` is the server's
    /// base URL, `$PYTHON` the selenium venv's Python), appends `AFTER:` and the server's
    /// `/whip.json` to stdout, and stops the server. The result's status is the client's.
    static func runClientWithServer(
        serve serveArgs: [String], port: Int, client: String,
        env: [String: String] = [:], timeout: Double = 150
    ) throws -> CLIResult {
        let script = """
            ip link set lo up
            URL=http://127.0.0.1:\(port); export URL
            "$SLUICE" serve --port \(port) \(Shell.quote(serveArgs)) >&2 &
            server=$!
            # Wait (bounded) until the server answers.
            i=0; until curl -s -m 1 -o /dev/null "$URL/status.json"; do
              i=$((i+1)); [ $i -lt 300 ] || { echo "sluice serve did not answer within 15 s" >&2; kill $server; exit 90; }
              kill -0 $server 2>/dev/null || { echo "sluice serve exited" >&2; exit 91; }
              sleep 0.05
            done
            \(client)
            status=$?
            echo; echo AFTER:; curl -s -m 5 "$URL/whip.json"; echo
            kill -INT $server; wait $server
            exit $status
            """
        return try execute(
            inNamespace: script,
            env: env.merging(["SLUICE": binary.path, "PYTHON": Repository.python]) { a, _ in a },
            timeout: timeout, reportPath: nil)
    }

    /// Runs `Tests/Browser/browser_check.py mode $URL name extra…` against a fresh server and
    /// returns its result, its JSON line, and the server's `/whip.json` afterwards.
    static func browserCheck(
        _ mode: String, _ name: String, serve: [String], port: Int, extra: [String] = [],
        env: [String: String] = [:], file: StaticString = #filePath, line: UInt = #line
    ) throws
        -> (result: CLIResult, json: [String: Any], whip: [String: Any])
    {
        let q = (["Tests/Browser/browser_check.py", mode] + ["\"$URL\""] + [name] + extra)
        let client = "\"$PYTHON\" " + q.map { $0 == "\"$URL\"" ? $0 : "'\($0)'" }.joined(separator: " ")
        let r = try runClientWithServer(serve: serve, port: port, client: client, env: env)
        XCTAssertEqual(r.status, 0, "browser_check.py \(mode) failed:\n\(r.stderr.suffix(6000))", file: file, line: line)
        let parts = r.stdout.components(separatedBy: "AFTER:")
        let jsonLine = parts.first?.split(separator: "\n").last { $0.hasPrefix("{") }.map(String.init) ?? ""
        let json = (try? JSONSerialization.jsonObject(with: Data(jsonLine.utf8))) as? [String: Any]
        let whip = (try? JSONSerialization.jsonObject(with: Data((parts.last ?? "").utf8))) as? [String: Any]
        return (
            r, try XCTUnwrap(json, "no JSON line from browser_check.py: \(r.stdout)\n\(r.stderr.suffix(3000))", file: file, line: line),
            whip ?? [:]
        )
    }
}
