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
    let warmup: Double
    let netem: String?
    /// `--netem-schedule`: conditions that change during the run (always Sluice's relay).
    var schedule: String? = nil
    let quiet: Bool

    static let port = 18999

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
        // The two hosts and the wire between them: a veth pair, with the kernel's netem on the
        // sender's end; or, on a kernel without netem, through a router namespace whose
        // sender-to-receiver traffic passes Sluice's TUN relay.
        try Self.exec(ip, ["netns", "add", nsA])
        try Self.exec(ip, ["netns", "add", nsB])
        var relay: Process?, router: String?
        var conditions: ImpairmentSchedule?
        defer {
            if let relay, relay.isRunning { relay.interrupt(); relay.waitUntilExit() }
            if let router { _ = try? Self.exec(ip, ["netns", "del", router]) }
        }
        let addresses: (send: String, receive: String)
        var netemNote = netem ?? schedule
        let relayText: String? = schedule ?? netemArgs.flatMap {
            Self.kernelHasNetem(tc: tc, ip: ip, namespace: nsA) ? nil : $0.joined(separator: " ")
        }
        if let relayText {
            do { conditions = try ImpairmentSchedule.parse(relayText) } catch {
                throw Failure(description: schedule != nil ? "--netem-schedule: \(error.description)"
                              : "--netem: this kernel has no netem, and Sluice's relay cannot do it: \(error.description)")
            }
            let nsR = "sluice-m\(tag)r"
            try Self.exec(ip, ["netns", "add", nsR])
            router = nsR
            relay = try Self.buildRelayLink(ip: ip, tag: tag, a: nsA, b: nsB, r: nsR, netem: relayText, executable: self_)
            addresses = ("10.99.1.1", "10.99.2.1")
            netemNote = relayText + (schedule != nil ? " (Sluice's TUN relay)" : " (Sluice's TUN relay: this kernel has no netem)")
        } else {
            try Self.exec(ip, ["link", "add", "slm\(tag)a", "netns", nsA, "type", "veth", "peer", "name", "slm\(tag)b", "netns", nsB])
            for (ns, dev, addr) in [(nsA, "slm\(tag)a", "10.99.0.1"), (nsB, "slm\(tag)b", "10.99.0.2")] {
                try Self.exec(ip, ["-n", ns, "addr", "add", "\(addr)/24", "dev", dev])
                try Self.exec(ip, ["-n", ns, "link", "set", "lo", "up"])
                try Self.exec(ip, ["-n", ns, "link", "set", dev, "up"])
            }
            if let netemArgs {
                try Self.exec(tc, ["-n", nsA, "qdisc", "add", "dev", "slm\(tag)a", "root", "netem"] + netemArgs)
                netemNote = (netem ?? "") + " (tc netem)"
                conditions = ImpairmentSchedule((try? Impairment.parse(netem ?? "")) ?? Impairment(), text: netem ?? "")
            }
            addresses = ("10.99.0.1", "10.99.0.2")
        }

        let sendOut = tmp.appendingPathComponent("send.json").path, recvOut = tmp.appendingPathComponent("receive.json").path
        let sets = overrides.flatMap { ["--set", $0] }
        let sender = try Self.start(ip, ["netns", "exec", nsA, self_, "measure-peer", "send", file, "--address", addresses.send,
                                         "--port", "\(Self.port)", "--out", sendOut, "--warmup", "\(warmup)"] + sets, forward: false)
        defer { if sender.isRunning { sender.terminate() } }
        let endpoint = "http://\(addresses.send):\(Self.port)/whep/\(spec.name)"
        // The relay's schedule starts when the receiver's clock does.
        let signalRelay = relay.map { ["--signal-on-start", "\($0.processIdentifier)"] } ?? []
        let receiver = try Self.start(ip, ["netns", "exec", nsB, self_, "measure-peer", "receive", file, "--address", addresses.receive,
                                           "--endpoint", endpoint, "--duration", "\(duration)", "--out", recvOut, "--warmup", "\(warmup)"] + signalRelay + sets,
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
        return try Measurement.combine(spec: spec, send: send, receive: receive, netem: netemNote, schedule: conditions,
                                       warmup: warmup)
    }

    // MARK: Links

    /// Whether this kernel has the netem qdisc (tried on a namespace's loopback).
    static func kernelHasNetem(tc: String, ip: String, namespace: String) -> Bool {
        guard (try? exec(tc, ["-n", namespace, "qdisc", "add", "dev", "lo", "root", "netem", "delay", "0ms"])) != nil else { return false }
        _ = try? exec(tc, ["-n", namespace, "qdisc", "del", "dev", "lo", "root"])
        return true
    }

    /// A (10.99.1.1) — R — B (10.99.2.1). In R, what comes from A is routed into a TUN
    /// device whose relay writes it back after the impairment; R then forwards it to B. What
    /// B sends to A takes the plain route. Returns the running relay.
    static func buildRelayLink(ip: String, tag: String, a: String, b: String, r: String, netem: String,
                               executable: String) throws -> Process {
        let ra = "slm\(tag)ra", rb = "slm\(tag)rb", tun = "slm\(tag)t"
        try exec(ip, ["link", "add", "slm\(tag)a", "netns", a, "type", "veth", "peer", "name", ra, "netns", r])
        try exec(ip, ["link", "add", "slm\(tag)b", "netns", b, "type", "veth", "peer", "name", rb, "netns", r])
        for (ns, dev, addr, gateway) in [(a, "slm\(tag)a", "10.99.1.1/24", "10.99.1.254"), (b, "slm\(tag)b", "10.99.2.1/24", "10.99.2.254")] {
            try exec(ip, ["-n", ns, "addr", "add", addr, "dev", dev])
            try exec(ip, ["-n", ns, "link", "set", "lo", "up"])
            try exec(ip, ["-n", ns, "link", "set", dev, "up"])
            try exec(ip, ["-n", ns, "route", "add", "default", "via", gateway])
        }
        try exec(ip, ["-n", r, "addr", "add", "10.99.1.254/24", "dev", ra])
        try exec(ip, ["-n", r, "addr", "add", "10.99.2.254/24", "dev", rb])
        try exec(ip, ["-n", r, "tuntap", "add", "dev", tun, "mode", "tun"])
        for dev in ["lo", ra, rb, tun] { try exec(ip, ["-n", r, "link", "set", dev, "up"]) }
        // Forwarding on; reverse-path filtering off (packets from A come back in on the TUN).
        let sysctls = ["net/ipv4/ip_forward"] + ["all", "default", ra, rb, tun].map { "net/ipv4/conf/\($0)/rp_filter" }
        let script = sysctls.map { "echo \($0 == "net/ipv4/ip_forward" ? 1 : 0) > /proc/sys/\($0)" }.joined(separator: " && ")
        try exec(ip, ["netns", "exec", r, "sh", "-c", script])
        try exec(ip, ["-n", r, "rule", "add", "iif", ra, "lookup", "100"])
        try exec(ip, ["-n", r, "route", "add", "default", "dev", tun, "table", "100"])
        // The relay, and (bounded) its word that it is attached.
        let p = Process()
        p.executableURL = URL(fileURLWithPath: ip)
        p.arguments = ["netns", "exec", r, executable, "netem-relay", "--tun", tun, "--netem", netem]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.standardError
        let seen = ReadyLine()
        out.fileHandleForReading.readabilityHandler = { h in
            let d = h.availableData
            if d.isEmpty { h.readabilityHandler = nil } else { seen.append(d) }
        }
        try p.run()
        let deadline = Date().addingTimeInterval(10)
        while !seen.contains("relay: ready") {
            guard p.isRunning, Date() < deadline else { throw Failure(description: "the netem relay did not start") }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return p
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

/// Output of a child, gathered from its pipe's handler thread.
final class ReadyLine: @unchecked Sendable {  // `text` is only touched with `lock` held
    private let lock = NSLock()
    private var text = ""
    func append(_ d: Data) { lock.lock(); text += String(decoding: d, as: UTF8.self); lock.unlock() }
    func contains(_ s: String) -> Bool { lock.lock(); defer { lock.unlock() }; return text.contains(s) }
}
