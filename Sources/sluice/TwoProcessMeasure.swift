import Foundation
import GStreamer
import Sluice

/// `sluice measure --processes 2`: two network namespaces joined by a veth pair (addresses
/// 10.99.0.1 and 10.99.0.2, which exist only inside them), optionally with `tc netem` on the
/// sender's side; the send half serves WHEP in the first, the receive half plays it in the
/// second. Both are this same binary (`measure-peer`). The namespaces are removed at the end.
struct TwoProcessMeasure {
    let file: String
    let overrides: [String]
    let duration: Double
    let netem: String?
    let quiet: Bool

    static let senderAddress = "10.99.0.1", receiverAddress = "10.99.0.2", port = 18999

    struct Failure: Error, CustomStringConvertible { var description: String }

    /// `netem` arguments: words of letters, digits, '.', '%' and '-' only.
    static func netemArguments(_ text: String) throws -> [String] {
        let words = text.split(whereSeparator: \.isWhitespace).map(String.init)
        guard !words.isEmpty, words.allSatisfy({ w in w.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || ".%-".contains($0)) } }) else {
            throw Failure(description: "--netem takes tc netem settings such as \"delay 40ms loss 2%\", got '\(text)'")
        }
        return words
    }

    func run(spec: PipelineSpec, stop: StopFlag) async throws -> MeasureReport {
        guard getuid() == 0 else { throw Failure(description: "--processes 2 creates network namespaces: run it as root") }
        let ip = try Self.tool("ip"), tc = try Self.tool("tc")
        let netemArgs = try netem.map(Self.netemArguments)
        let tag = "\(getpid() % 100000)"
        let nsA = "sluice-m\(tag)a", nsB = "sluice-m\(tag)b"
        let self_ = try Self.executable()
        let tmp = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-measure-\(tag)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: tmp, withIntermediateDirectories: true)
        defer {
            _ = try? Self.exec(ip, ["netns", "del", nsA])
            _ = try? Self.exec(ip, ["netns", "del", nsB])
            try? FileManager.default.removeItem(at: tmp)
        }
        // The two hosts and the wire between them.
        try Self.exec(ip, ["netns", "add", nsA])
        try Self.exec(ip, ["netns", "add", nsB])
        try Self.exec(ip, ["link", "add", "slm\(tag)a", "netns", nsA, "type", "veth", "peer", "name", "slm\(tag)b", "netns", nsB])
        for (ns, dev, addr) in [(nsA, "slm\(tag)a", Self.senderAddress), (nsB, "slm\(tag)b", Self.receiverAddress)] {
            try Self.exec(ip, ["-n", ns, "addr", "add", "\(addr)/24", "dev", dev])
            try Self.exec(ip, ["-n", ns, "link", "set", "lo", "up"])
            try Self.exec(ip, ["-n", ns, "link", "set", dev, "up"])
        }
        if let netemArgs {
            // On the sender's side: media from sender to receiver crosses it.
            try Self.exec(tc, ["-n", nsA, "qdisc", "add", "dev", "slm\(tag)a", "root", "netem"] + netemArgs)
        }

        let sendOut = tmp.appendingPathComponent("send.json").path, recvOut = tmp.appendingPathComponent("receive.json").path
        let sets = overrides.flatMap { ["--set", $0] }
        let sender = try Self.start(ip, ["netns", "exec", nsA, self_, "measure-peer", "send", file, "--address", Self.senderAddress,
                                         "--port", "\(Self.port)", "--out", sendOut] + sets, forward: false)
        defer { if sender.isRunning { sender.terminate() } }
        let endpoint = "http://\(Self.senderAddress):\(Self.port)/whep/\(spec.name)"
        let receiver = try Self.start(ip, ["netns", "exec", nsB, self_, "measure-peer", "receive", file, "--address", Self.receiverAddress,
                                           "--endpoint", endpoint, "--duration", "\(duration)", "--out", recvOut] + sets,
                                      forward: !quiet)
        defer { if receiver.isRunning { receiver.terminate() } }

        // Wait for the receiver (it stops by itself after `duration`); Ctrl-C is passed on.
        let deadline = Date().addingTimeInterval(duration + 60)
        var interrupted = false
        while receiver.isRunning {
            if stop.isSet && !interrupted { receiver.interrupt(); interrupted = true }
            if Date() > deadline { receiver.terminate(); throw Failure(description: "the receiving process did not finish in time") }
            try await Task.sleep(for: .milliseconds(100))
        }
        sender.interrupt()
        let senderDeadline = Date().addingTimeInterval(15)
        while sender.isRunning && Date() < senderDeadline { try await Task.sleep(for: .milliseconds(50)) }
        guard receiver.terminationStatus == 0 else {
            throw Failure(description: "the receiving process failed (exit \(receiver.terminationStatus)); its error is above")
        }
        guard sender.terminationStatus == 0 || !sender.isRunning else {
            throw Failure(description: "the sending process did not stop")
        }
        let decoder = JSONDecoder()
        guard let s = FileManager.default.contents(atPath: sendOut), let send = try? decoder.decode(PeerReport.self, from: s) else {
            throw Failure(description: "the sending process wrote no report (exit \(sender.terminationStatus))")
        }
        guard let r = FileManager.default.contents(atPath: recvOut), let receive = try? decoder.decode(PeerReport.self, from: r) else {
            throw Failure(description: "the receiving process wrote no report")
        }
        return try Measurement.combine(spec: spec, send: send, receive: receive, netem: netem)
    }

    // MARK: Processes

    static func tool(_ name: String) throws -> String {
        for dir in ["/usr/sbin", "/sbin", "/usr/bin", "/bin"] where FileManager.default.isExecutableFile(atPath: "\(dir)/\(name)") {
            return "\(dir)/\(name)"
        }
        throw Failure(description: "'\(name)' is not installed: apt-get install iproute2")
    }

    static func executable() throws -> String {
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") { return path }
        throw Failure(description: "cannot find this program's own path")
    }

    /// Runs a command to completion; throws with its stderr if it fails.
    @discardableResult
    static func exec(_ tool: String, _ args: [String]) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: tool)
        p.arguments = args
        let err = Pipe(), out = Pipe()
        p.standardError = err
        p.standardOutput = out
        try p.run()
        let output = out.fileHandleForReading.readDataToEndOfFile()
        let message = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else {
            throw Failure(description: "\(([tool] + args).joined(separator: " ")) failed: "
                + String(decoding: message, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Starts a child; its stdout goes to ours when `forward`, its stderr always does.
    static func start(_ tool: String, _ args: [String], forward: Bool) throws -> Process {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: tool)
        p.arguments = args
        p.standardOutput = forward ? FileHandle.standardOutput : FileHandle.nullDevice
        p.standardError = FileHandle.standardError
        try p.run()
        return p
    }
}
