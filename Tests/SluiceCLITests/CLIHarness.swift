import Foundation
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
}

enum CLI {
    /// The package root (…/Tests/SluiceCLITests/CLIHarness.swift → …).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The `sluice` executable next to the test bundle.
    static var binary: URL {
        var dir = Bundle(for: Marker.self).bundleURL.deletingLastPathComponent()
        if !FileManager.default.fileExists(atPath: dir.appendingPathComponent("sluice").path) {
            dir = root.appendingPathComponent(".build/debug")
        }
        return dir.appendingPathComponent("sluice")
    }
    final class Marker {}

    /// Runs `sluice args…` inside a fresh network namespace that has only loopback, so no
    /// test can reach anything else. Waits at most `timeout` seconds, then kills it.
    static func run(_ args: [String], env: [String: String] = [:], timeout: Double = 60,
                    isolated: Bool = true, report: Bool = false,
                    onStdoutLine: (@Sendable (String, Process) -> Void)? = nil) throws -> CLIResult {
        var args = args
        let reportPath = FileManager.default.temporaryDirectory
            .appendingPathComponent("sluice-report-\(UUID().uuidString).json").path
        if report { args += ["--report", reportPath] }
        if isolated {
            return try execute(URL(fileURLWithPath: "/usr/bin/unshare"),
                               ["-n", "sh", "-c", "ip link set lo up && exec \"$0\" \"$@\"", binary.path] + args,
                               env: env, timeout: timeout, reportPath: report ? reportPath : nil, onStdoutLine: onStdoutLine)
        }
        return try execute(binary, args, env: env, timeout: timeout, reportPath: report ? reportPath : nil,
                           onStdoutLine: onStdoutLine)
    }

    /// Runs a process, collecting its output (lines as they come), killing it after `timeout`,
    /// and reading the JSON report at `reportPath` if given.
    static func execute(_ executable: URL, _ arguments: [String], env: [String: String], timeout: Double,
                        reportPath: String?, onStdoutLine: (@Sendable (String, Process) -> Void)? = nil) throws -> CLIResult {
        let p = Process()
        p.executableURL = executable
        p.arguments = arguments
        p.currentDirectoryURL = root
        var environment = ProcessInfo.processInfo.environment
        for (k, v) in env { environment[k] = v }
        p.environment = environment
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        p.standardInput = FileHandle.nullDevice

        let collected = OutputCollector()
        // Blocking reads on their own threads: reliable EOF, and lines as they come.
        Thread.detachNewThread {
            let h = out.fileHandleForReading
            while true {
                let d = h.availableData
                if d.isEmpty { break }
                for line in collected.append(d, to: .out) { onStdoutLine?(line, p) }
            }
            collected.finish(.out)
        }
        Thread.detachNewThread {
            let h = err.fileHandleForReading
            while true {
                let d = h.availableData
                if d.isEmpty { break }
                _ = collected.append(d, to: .err)
            }
            collected.finish(.err)
        }
        let exited = DispatchSemaphore(value: 0)
        p.terminationHandler = { _ in exited.signal() }
        let start = Date()
        try p.run()
        if exited.wait(timeout: .now() + timeout) == .timedOut {
            // The whole tree: a shell's background servers and peers must not outlive a
            // test that timed out (they would keep ports and CPU for the rest of the suite).
            let tree = Self.descendants(of: p.processIdentifier)
            p.interrupt(); kill(p.processIdentifier, SIGKILL)
            for pid in tree { kill(pid, SIGKILL) }
            _ = exited.wait(timeout: .now() + 5)
            XCTFail("\(executable.lastPathComponent) \(arguments.prefix(6).joined(separator: " ")) did not finish within \(timeout) s")
        }
        collected.waitForEnd(timeout: 5)
        var json: [String: Any]?
        if let reportPath, let data = FileManager.default.contents(atPath: reportPath) {
            json = try JSONSerialization.jsonObject(with: data) as? [String: Any]
            try? FileManager.default.removeItem(atPath: reportPath)
        }
        // Reading terminationStatus of a process still running traps (Foundation): a child
        // that outlived its SIGKILL wait is reported as killed instead of crashing the suite.
        return CLIResult(status: p.isRunning ? -9 : p.terminationStatus, stdout: collected.text(.out), stderr: collected.text(.err),
                         seconds: Date().timeIntervalSince(start), report: json)
    }
}

extension CLI {
    /// Runs `sluice serve serveArgs…` and, once it answers on `port`, `sluice runArgs…`, both
    /// in one loopback-only namespace; the server is stopped afterwards. Returns the run's result.
    /// `after`: a server path whose body is appended to stdout after the run (e.g. `/whip.json`).
    static func runWithServer(serve serveArgs: [String], port: Int, run runArgs: [String], env: [String: String] = [:],
                              after: String? = nil, timeout: Double = 90) throws -> CLIResult {
        let reportPath = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-report-\(UUID().uuidString).json").path
        let q = { (a: [String]) in a.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ") }
        let script = """
        ip link set lo up
        # Multicast on loopback, for files that find their peer with multicast DNS (kind: lan).
        ip link set lo multicast on; ip route add 224.0.0.0/4 dev lo
        "$SLUICE" serve --port \(port) \(q(serveArgs)) >/dev/null 2>&1 &
        server=$!
        # Wait (bounded) until the server answers.
        i=0; until curl -s -m 1 -o /dev/null http://127.0.0.1:\(port)/status.json; do i=$((i+1)); [ $i -lt 200 ] || exit 90; sleep 0.05; done
        "$SLUICE" run \(q(runArgs)) --report '\(reportPath)'
        status=$?
        \(after.map { "echo; echo AFTER:; curl -s -m 5 http://127.0.0.1:\(port)\($0); echo" } ?? "")
        kill -INT $server; wait $server
        exit $status
        """
        return try execute(URL(fileURLWithPath: "/usr/bin/unshare"), ["-n", "sh", "-c", script],
                           env: env.merging(["SLUICE": binary.path]) { a, _ in a }, timeout: timeout, reportPath: reportPath)
    }
}

/// Gathers a child's output from GLib-free reader threads.
final class OutputCollector: @unchecked Sendable {  // all state behind `lock`
    enum Stream { case out, err }
    private let lock = NSCondition()
    private var data: [Stream: Data] = [.out: Data(), .err: Data()]
    private var pendingLine = ""
    private var ended: Set<Stream> = []

    func append(_ d: Data, to s: Stream) -> [String] {
        lock.lock(); defer { lock.unlock() }
        data[s, default: Data()].append(d)
        guard s == .out else { return [] }
        pendingLine += String(decoding: d, as: UTF8.self)
        var lines = pendingLine.components(separatedBy: "\n")
        pendingLine = lines.removeLast()
        return lines
    }
    func finish(_ s: Stream) { lock.lock(); ended.insert(s); lock.broadcast(); lock.unlock() }
    func waitForEnd(timeout: Double) {
        let deadline = Date().addingTimeInterval(timeout)
        lock.lock(); defer { lock.unlock() }
        while ended.count < 2 && lock.wait(until: deadline) {}
    }
    func text(_ s: Stream) -> String {
        lock.lock(); defer { lock.unlock() }
        return String(decoding: data[s] ?? Data(), as: UTF8.self)
    }
}

extension CLI {
    /// Every process below `pid` (children, their children…), read from /proc.
    static func descendants(of pid: Int32) -> [Int32] {
        var parent: [Int32: Int32] = [:]
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let child = Int32(entry), let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { continue }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 1, let pp = Int32(fields[1]) { parent[child] = pp }
        }
        var out: [Int32] = [], frontier = [pid]
        while let next = frontier.popLast() {
            let kids = parent.filter { $0.value == next }.map(\.key)
            out += kids; frontier += kids
        }
        return out
    }
}
