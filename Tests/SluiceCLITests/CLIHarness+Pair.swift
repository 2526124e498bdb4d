import Foundation
import SluiceTestSupport
import XCTest

/// Two `sluice run` processes meeting through `sluice serve`, all three in one
/// loopback-only namespace.
struct PairResult {
    var first: CLIResult
    var second: CLIResult
}

extension CLI {
    /// Starts `sluice serve serveArgs…`, waits until it answers on `port`, then runs
    /// `sluice run first…` (in the background, fed `firstInput` on stdin) and
    /// `sluice run second…` together; stops the server when both ended.
    static func runPairWithServer(
        serve serveArgs: [String], port: Int, first: [String], second: [String],
        firstInput: String = "", env: [String: String] = [:], timeout: Double = 120, secondAfterFirstJoins: Bool = false
    ) throws -> PairResult {
        let start = """
            "$SLUICE" serve --port \(port) \(Shell.quote(serveArgs)) >/dev/null 2>&1 &
            server=$!
            i=0; until curl -s -m 1 -o /dev/null http://127.0.0.1:\(port)/status.json; do i=$((i+1)); [ $i -lt 200 ] || exit 90; sleep 0.05; done
            """
        // The room's first peer offers: `secondAfterFirstJoins` starts the second once the
        // server counts the first in a room.
        let joined = """
            i=0; until curl -s -m 1 http://127.0.0.1:\(port)/status.json | grep -q '"clients":1'; do i=$((i+1)); [ $i -lt 300 ] || exit 91; sleep 0.05; done
            """
        return try runPair(
            startServer: start, stopServer: "kill -INT $server; wait $server", first: first, second: second,
            firstInput: firstInput, env: env, timeout: timeout, beforeSecond: secondAfterFirstJoins ? joined : "")
    }

    /// Like `runPairWithServer`, with any server: `startServer` is shell that starts it and
    /// waits until it is ready, `stopServer` shell that stops it.
    static func runPair(
        startServer: String, stopServer: String, first: [String], second: [String],
        firstInput: String = "", env: [String: String] = [:], timeout: Double = 120, beforeSecond: String = ""
    ) throws -> PairResult {
        let tmp = FileManager.default.temporaryDirectory
        let id = UUID().uuidString
        let reports = (tmp.appendingPathComponent("sluice-a-\(id).json").path, tmp.appendingPathComponent("sluice-b-\(id).json").path)
        let outs = (tmp.appendingPathComponent("sluice-a-\(id).out").path, tmp.appendingPathComponent("sluice-a-\(id).err").path)
        let input = tmp.appendingPathComponent("sluice-a-\(id).in").path
        try firstInput.write(toFile: input, atomically: true, encoding: .utf8)
        defer {
            for p in [reports.0, reports.1, outs.0, outs.1, input] { try? FileManager.default.removeItem(atPath: p) }
        }
        let script = """
            ip link set lo up
            \(startServer)
            "$SLUICE" run \(Shell.quote(first)) --report '\(reports.0)' < '\(input)' > '\(outs.0)' 2> '\(outs.1)' &
            first=$!
            \(beforeSecond)
            "$SLUICE" run \(Shell.quote(second)) --report '\(reports.1)'
            status=$?
            wait $first
            echo "FIRST-STATUS: $?"
            \(stopServer)
            exit $status
            """
        let second = try execute(
            inNamespace: script,
            env: env.merging(["SLUICE": binary.path]) { a, _ in a }, timeout: timeout,
            reportPath: reports.1)
        let statusLine = second.stdout.components(separatedBy: "\n").last { $0.hasPrefix("FIRST-STATUS: ") }
        let firstStatus = statusLine.flatMap { Int32($0.dropFirst("FIRST-STATUS: ".count)) } ?? -1
        let report = FileManager.default.contents(atPath: reports.0).flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
        let first = CLIResult(
            status: firstStatus,
            stdout: (try? String(contentsOfFile: outs.0, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOfFile: outs.1, encoding: .utf8)) ?? "",
            seconds: second.seconds, report: report)
        return PairResult(first: first, second: second)
    }
}
