import Foundation
import SluiceRun

/// `sluice measure --processes 2`: two network namespaces joined by a veth pair (addresses
/// 10.99.0.1 and 10.99.0.2, which exist only inside them), optionally with `tc netem` on the
/// sender's side; the send half serves WHEP in the first, the receive half plays it in the
/// second. Both are this same program, run as `measure-peer` (and, for Sluice's own relay,
/// `netem-relay`): the running executable must be `sluice`. The namespaces are removed at
/// the end. Needs root.
public struct TwoProcessMeasure: Sendable {
    /// The pipeline file both halves load.
    public let file: String
    /// `--set` overrides, passed to both halves.
    public let overrides: [String]
    /// Seconds the receiver measures.
    public let duration: Double
    /// Seconds after the first frame left out of the figures.
    public let warmup: Double
    /// `--netem`: tc netem settings for the sender's side of the link.
    public let netem: String?
    /// `--netem-schedule`: conditions that change during the run (always Sluice's relay).
    public var schedule: String?
    /// Whether the receiver's progress lines are left out of standard output.
    public let quiet: Bool

    /// The port the sending half serves WHEP on.
    public static let port = 18999

    /// Why the measurement could not be made (printed as `error: ...`).
    public struct Failure: Error, CustomStringConvertible {
        /// What went wrong, in a sentence.
        public var description: String
    }

    /// A measurement of `file` (with `overrides`) over `duration` seconds, the first
    /// `warmup` seconds after the first frame left out, on a link shaped by `netem` or by
    /// `schedule` (not both).
    public init(
        file: String, overrides: [String], duration: Double, warmup: Double, netem: String?,
        schedule: String? = nil, quiet: Bool
    ) {
        self.file = file; self.overrides = overrides; self.duration = duration; self.warmup = warmup
        self.netem = netem; self.schedule = schedule; self.quiet = quiet
    }

    /// `netem` arguments: words of letters, digits, '.', '%' and '-' only.
    public static func netemArguments(_ text: String) throws -> [String] {
        let words = text.split(whereSeparator: \.isWhitespace).map(String.init)
        guard !words.isEmpty, words.allSatisfy({ w in w.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || ".%-".contains($0)) } }) else {
            throw Failure(description: "--netem takes tc netem settings such as \"delay 40ms loss 2%\", got '\(text)'")
        }
        return words
    }

    /// Builds the namespaces and the link, runs both halves until the receiver is done (a
    /// set `stop` is passed on to it as SIGINT), removes everything and combines the two
    /// halves' reports.
    public func run(spec: PipelineSpec, stop: StopFlag) async throws -> MeasureReport {
        guard getuid() == 0 else { throw Failure(description: "--processes 2 creates network namespaces: run it as root") }
        let ip = try Self.tool("ip"), tc = try Self.tool("tc")
        let netemArgs = try netem.map(Self.netemArguments)
        let tag = "\(getpid() % 100000)"
        let hosts = Hosts(send: "sluice-m\(tag)a", receive: "sluice-m\(tag)b")
        let executable = try Self.executable()
        let tmp = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-measure-\(tag)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: tmp, withIntermediateDirectories: true)
        defer {
            _ = try? Self.exec(ip, ["netns", "del", hosts.send])
            _ = try? Self.exec(ip, ["netns", "del", hosts.receive])
            try? FileManager.default.removeItem(at: tmp)
        }
        // The two hosts and the wire between them: a veth pair, with the kernel's netem on the
        // sender's end; or, on a kernel without netem, through a router namespace whose
        // sender-to-receiver traffic passes Sluice's TUN relay.
        try Self.exec(ip, ["netns", "add", hosts.send])
        try Self.exec(ip, ["netns", "add", hosts.receive])
        var link = Link()
        defer {
            if let relay = link.relay, relay.isRunning { relay.interrupt(); relay.waitUntilExit() }
            if let router = link.router { _ = try? Self.exec(ip, ["netns", "del", router]) }
        }
        try buildLink(&link, ip: ip, tc: tc, tag: tag, hosts: hosts, netemArgs: netemArgs, executable: executable)
        let (send, receive) = try await runPeers(
            spec: spec, hosts: hosts, link: link, executable: executable, ip: ip,
            folder: tmp, stop: stop)
        return try Measurement.combine(
            spec: spec, send: send, receive: receive, netem: link.note, schedule: link.conditions,
            warmup: warmup)
    }

    /// The namespaces of the two halves.
    package struct Hosts {
        package let send: String, receive: String
    }

    // MARK: Peers

    /// Starts the sending half, then the receiving one; waits for both and reads their reports.
    package func runPeers(
        spec: PipelineSpec, hosts: Hosts, link: Link, executable: String, ip: String, folder: URL,
        stop: StopFlag
    ) async throws -> (send: PeerReport, receive: PeerReport) {
        let sendOut = folder.appendingPathComponent("send.json").path, recvOut = folder.appendingPathComponent("receive.json").path
        let sets = overrides.flatMap { ["--set", $0] }
        let sender = try Self.start(
            ip,
            [
                "netns", "exec", hosts.send, executable, "measure-peer", "send", file,
                "--address", link.addresses.send, "--port", "\(Self.port)", "--out", sendOut,
                "--warmup", "\(warmup)"
            ] + sets, forward: false)
        defer { if sender.isRunning { sender.terminate() } }
        let endpoint = "http://\(link.addresses.send):\(Self.port)/whep/\(spec.name)"
        // The relay's schedule starts when the receiver's clock does.
        let signalRelay = link.relay.map { ["--signal-on-start", "\($0.processIdentifier)"] } ?? []
        let receiver = try Self.start(
            ip,
            [
                "netns", "exec", hosts.receive, executable, "measure-peer", "receive", file,
                "--address", link.addresses.receive, "--endpoint", endpoint, "--duration", "\(duration)",
                "--out", recvOut, "--warmup", "\(warmup)"
            ] + signalRelay + sets,
            forward: !quiet)
        defer { if receiver.isRunning { receiver.terminate() } }
        try await wait(sender: sender, receiver: receiver, stop: stop)
        return try Self.reports(send: sendOut, receive: recvOut, sender: sender)
    }

    /// Waits for the receiver (it stops by itself after `duration`; a set `stop` is passed
    /// on as SIGINT), then stops the sender (bounded); throws unless both ended well.
    package func wait(sender: Process, receiver: Process, stop: StopFlag) async throws {
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
    }

    /// The two halves' JSON reports.
    package static func reports(
        send sendOut: String, receive recvOut: String,
        sender: Process
    ) throws -> (send: PeerReport, receive: PeerReport) {
        let decoder = JSONDecoder()
        guard let s = FileManager.default.contents(atPath: sendOut), let send = try? decoder.decode(PeerReport.self, from: s) else {
            throw Failure(description: "the sending process wrote no report (exit \(sender.terminationStatus))")
        }
        guard let r = FileManager.default.contents(atPath: recvOut), let receive = try? decoder.decode(PeerReport.self, from: r) else {
            throw Failure(description: "the receiving process wrote no report")
        }
        return (send, receive)
    }
}
