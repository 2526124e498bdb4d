import Foundation
import SluiceTestSupport
import XCTest

/// The result of one `sluice` invocation.
struct CLIResult {
    var status: Int32
    var stdout: String
    var stderr: String
    var seconds: Double
    /// The `--report` JSON, if one was requested and written.
    var report: [String: Any]?

    func value(_ dotted: String) -> Any? {
        var cur: Any? = report
        for key in dotted.split(separator: ".") { cur = (cur as? [String: Any])?[String(key)] }
        return cur
    }
    func int(_ dotted: String) -> Int? { (value(dotted) as? NSNumber)?.intValue }
    func double(_ dotted: String) -> Double? { (value(dotted) as? NSNumber)?.doubleValue }

    /// The `--report` JSON at `path` alone (of a run a script started), for its `value`s.
    static func report(at path: String) -> CLIResult {
        let json = FileManager.default.contents(atPath: path).flatMap { try? JSONSerialization.jsonObject(with: $0) } as? [String: Any]
        return CLIResult(status: json == nil ? -1 : 0, stdout: "", stderr: "", seconds: 0, report: json)
    }

    /// The `KEY: value` lines a test script printed (the last of each key wins).
    var keyedLines: [String: String] {
        Dictionary(
            stdout.split(separator: "\n").compactMap { line -> (String, String)? in
                guard let colon = line.firstIndex(of: ":") else { return nil }
                return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
            }, uniquingKeysWith: { _, b in b })
    }
}

enum CLI {
    /// The `sluice` executable next to the test bundle.
    static var binary: URL { BuiltProducts.executable(named: "sluice") }

    /// Runs `sluice args…` inside a fresh network namespace that has only loopback, so no
    /// test can reach anything else. Waits at most `timeout` seconds, then kills it.
    static func run(
        _ args: [String], env: [String: String] = [:], timeout: Double = 60,
        isolated: Bool = true, report: Bool = false,
        onStdoutLine: (@Sendable (String, Process) -> Void)? = nil
    ) throws -> CLIResult {
        var args = args
        let reportPath = FileManager.default.temporaryDirectory
            .appendingPathComponent("sluice-report-\(UUID().uuidString).json").path
        if report { args += ["--report", reportPath] }
        let command = isolated ? NetworkNamespace.loopbackOnly(binary, args) : (executable: binary, arguments: args)
        return try execute(
            command.executable, command.arguments, env: env, timeout: timeout,
            reportPath: report ? reportPath : nil, onStdoutLine: onStdoutLine)
    }

    /// Runs the shell `script` in a fresh network namespace (`NetworkNamespace.shell`; the
    /// script brings loopback up), as `execute` runs a process.
    static func execute(
        inNamespace script: String, env: [String: String], timeout: Double,
        reportPath: String?
    ) throws -> CLIResult {
        let command = NetworkNamespace.shell(script)
        return try execute(command.executable, command.arguments, env: env, timeout: timeout, reportPath: reportPath)
    }

    /// Runs a process from the package root (`ProcessRunner.run`: output collected, lines as
    /// they come, killed after `timeout`), and reads the JSON report at `reportPath` if given.
    static func execute(
        _ executable: URL, _ arguments: [String], env: [String: String], timeout: Double,
        reportPath: String?, onStdoutLine: (@Sendable (String, Process) -> Void)? = nil
    ) throws -> CLIResult {
        let r = try ProcessRunner.run(executable, arguments, environment: env, timeout: timeout, onStdoutLine: onStdoutLine)
        var json: [String: Any]?
        if let reportPath, let data = FileManager.default.contents(atPath: reportPath) {
            json = try JSONSerialization.jsonObject(with: data) as? [String: Any]
            try? FileManager.default.removeItem(atPath: reportPath)
        }
        return CLIResult(status: r.status, stdout: r.stdout, stderr: r.stderr, seconds: r.seconds, report: json)
    }
}

extension CLI {
    /// Runs `sluice serve serveArgs…` and, once it answers on `port`, `sluice runArgs…`, both
    /// in one loopback-only namespace; the server is stopped afterwards. Returns the run's result.
    /// `after`: a server path whose body is appended to stdout after the run (e.g. `/whip.json`).
    static func runWithServer(
        serve serveArgs: [String], port: Int, run runArgs: [String], env: [String: String] = [:],
        after: String? = nil, timeout: Double = 90
    ) throws -> CLIResult {
        let reportPath = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-report-\(UUID().uuidString).json").path
        let script = """
            ip link set lo up
            # Multicast on loopback, for files that find their peer with multicast DNS (kind: lan).
            ip link set lo multicast on; ip route add 224.0.0.0/4 dev lo
            "$SLUICE" serve --port \(port) \(Shell.quote(serveArgs)) >/dev/null 2>&1 &
            server=$!
            # Wait (bounded) until the server answers.
            i=0; until curl -s -m 1 -o /dev/null http://127.0.0.1:\(port)/status.json; do i=$((i+1)); [ $i -lt 200 ] || exit 90; sleep 0.05; done
            "$SLUICE" run \(Shell.quote(runArgs)) --report '\(reportPath)'
            status=$?
            \(after.map { "echo; echo AFTER:; curl -s -m 5 http://127.0.0.1:\(port)\($0); echo" } ?? "")
            kill -INT $server; wait $server
            exit $status
            """
        return try execute(
            inNamespace: script,
            env: env.merging(["SLUICE": binary.path]) { a, _ in a }, timeout: timeout, reportPath: reportPath)
    }
}

extension CLI {
    /// Shell lines that wait (bounded: 15 s) until the `sluice serve` started as `$server`
    /// on `port` answers; exit 90 if it never does, 91 with the end of `log` if it exits.
    /// Shell lines that wait, bounded, until `/metrics` on `port` has a line matching the
    /// extended regex `metric` (anchored at the line's start): every 50 ms, at most `tries`
    /// times, and no longer than the process in shell variable `whileRunning` runs. It then
    /// goes on either way: the test's assertions say what was missing.
    static func waitForMetric(port: Int, _ metric: String, tries: Int = 300, whileRunning process: String? = nil) -> String {
        let running = process.map { " && kill -0 $\($0) 2>/dev/null" } ?? ""
        return """
            i=0; until curl -s http://127.0.0.1:\(port)/metrics | grep -qE '^\(metric)'; do
              i=$((i+1)); [ $i -lt \(tries) ]\(running) || break; sleep 0.05
            done
            """
    }

    static func waitForServe(port: Int, log: String = "$TMP.serve") -> String {
        """
        i=0; until curl -s -m 1 -o /dev/null http://127.0.0.1:\(port)/status.json; do
          i=$((i+1)); [ $i -lt 300 ] || { echo "sluice serve did not answer" >&2; exit 90; }
          kill -0 $server 2>/dev/null || { echo "sluice serve exited: $(tail -c 2000 "\(log)")" >&2; exit 91; }
          sleep 0.05
        done
        """
    }
}
