import Foundation
import XCTest

/// What a process the tests ran did.
public struct ProcessOutput: Sendable {
    /// The exit status; -9 for a process still running after its SIGKILL wait.
    public var status: Int32
    public var stdout: String
    public var stderr: String
    /// From start to end (or to giving up on it).
    public var seconds: Double
}

/// Running a test's child processes: output collected (and stdout handed over line by line as
/// it comes), a time limit after which the process and everything it started is killed.
public enum ProcessRunner {
    /// Runs `executable arguments…` in `directory` (the package root by default) with this
    /// process's environment plus `environment`, stdin empty. After `timeout` seconds the
    /// process and all its descendants are killed and the test fails. `onStdoutLine` gets each
    /// line of stdout as it comes, with the process (so it can signal it).
    public static func run(
        _ executable: URL, _ arguments: [String], environment: [String: String] = [:],
        directory: URL = Repository.root, timeout: Double,
        onStdoutLine: (@Sendable (String, Process) -> Void)? = nil
    ) throws -> ProcessOutput {
        let p = Process()
        p.executableURL = executable
        p.arguments = arguments
        p.currentDirectoryURL = directory
        var merged = ProcessInfo.processInfo.environment
        for (k, v) in environment { merged[k] = v }
        // Every process this run starts inherits the mark, even one its parent left behind
        // (reparented to init, which the parent links of `descendants` no longer reach).
        let mark = UUID().uuidString
        merged[markVariable] = mark
        p.environment = merged
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
        // Polled through a semaphore, not waitUntilExit (which spins a run loop an async
        // test's thread does not run).
        let exited = DispatchSemaphore(value: 0)
        p.terminationHandler = { _ in exited.signal() }
        let start = Date()
        try p.run()
        if !waitForEnd(of: p, exited: exited, timeout: timeout, mark: mark) {
            // The whole tree: a shell's background servers and peers must not outlive a
            // test that timed out (they would keep ports and CPU for the rest of the suite).
            let tree = descendants(of: p.processIdentifier)
            p.interrupt(); kill(p.processIdentifier, SIGKILL)
            for pid in tree { kill(pid, SIGKILL) }
            _ = exited.wait(timeout: .now() + 5)
            XCTFail("\(executable.lastPathComponent) \(arguments.prefix(6).joined(separator: " ")) did not finish within \(timeout) s")
        }
        _ = killMarked(mark)
        collected.waitForEnd(timeout: 5)
        // Reading terminationStatus of a process still running traps (Foundation): a child
        // that outlived its SIGKILL wait is reported as killed instead of crashing the suite.
        return ProcessOutput(
            status: p.isRunning ? -9 : p.terminationStatus, stdout: collected.text(.out),
            stderr: collected.text(.err), seconds: Date().timeIntervalSince(start))
    }

    /// Runs `tool arguments…` to its end and throws, with its stderr, unless it exits 0.
    public static func check(_ tool: String, _ arguments: [String], timeout: Double = 60) throws {
        let r = try run(URL(fileURLWithPath: tool), arguments, timeout: timeout)
        guard r.status == 0 else { throw Failed(command: [tool] + arguments, output: r) }
    }

    /// A process `check` ran exited with a status other than 0.
    public struct Failed: Error, CustomStringConvertible {
        public var command: [String]
        public var output: ProcessOutput
        public var description: String {
            "\(command.joined(separator: " ")) failed (status \(output.status)): \(output.stderr.suffix(1500))"
        }
    }

    /// Waits until `p` ended (true) or `timeout` passed (false). Foundation reports the end
    /// only once every process holding a descriptor `p` inherited has closed it, so a
    /// background server or peer a script started and did not stop (it failed before its
    /// cleanup, or forgot it) would hold the end back, and keep its ports and CPU for the rest
    /// of the suite: once `p` is a zombie, what carries `mark` is killed and named on stdout.
    private static func waitForEnd(of p: Process, exited: DispatchSemaphore, timeout: Double, mark: String) -> Bool {
        let deadline = DispatchTime.now() + timeout
        while exited.wait(timeout: min(deadline, .now() + 0.1)) == .timedOut {
            if DispatchTime.now() >= deadline { return false }
            guard isZombie(p.processIdentifier) else { continue }
            let left = killMarked(mark)
            if !left.isEmpty {
                print("ProcessRunner: \(p.executableURL?.lastPathComponent ?? "?") ended and left \(left.joined(separator: ", ")) running; killed")
            }
            return exited.wait(timeout: .now() + 5) == .success
        }
        return true
    }

    /// Whether `pid` ended and waits for its parent to read its status.
    public static func isZombie(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return false }
        return stat[stat.index(after: close)...].hasPrefix(" Z")
    }

    /// The environment variable that marks the processes of one `run`.
    static let markVariable = "SLUICE_TEST_PROCESS_MARK"

    /// Kills (SIGKILL) every process whose environment carries `mark` and returns their
    /// names with their pids. A process that cleared its environment is not found.
    static func killMarked(_ mark: String) -> [String] {
        let needle = Data("\(markVariable)=\(mark)\u{0}".utf8)
        var killed: [String] = []
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = Int32(entry), pid != getpid(),
                let environ = FileManager.default.contents(atPath: "/proc/\(entry)/environ"),
                environ.range(of: needle) != nil
            else { continue }
            let name =
                (try? String(contentsOfFile: "/proc/\(entry)/comm", encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
            if kill(pid, SIGKILL) == 0 { killed.append("\(name) (\(pid))") }
        }
        return killed
    }

    /// Every process below `pid` (children, their children…), read from /proc.
    public static func descendants(of pid: Int32) -> [Int32] {
        var parent: [Int32: Int32] = [:]
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let child = Int32(entry), let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { continue }
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

/// Gathers a child's output from GLib-free reader threads.
final class OutputCollector: @unchecked Sendable { // all state behind `lock`
    enum Stream { case out, err }
    private let lock = NSCondition()
    private var data: [Stream: Data] = [.out: Data(), .err: Data()]
    private var pendingLine = ""
    private var ended: Set<Stream> = []

    /// Keeps `d`; for stdout, returns the lines it completed.
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
    /// Waits (at most `timeout` seconds) until both streams reached their end.
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
