import ArgumentParser
import Foundation
#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
import Logging
import Sluice
import SluiceServer

/// One half of `sluice measure --processes 2`, started by it inside a network namespace.
/// Not meant to be run by hand (hidden from help).
struct MeasurePeer: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "measure-peer", abstract: "One half of a two-process measurement (started by `sluice measure`).",
        shouldDisplay: false)

    enum Role: String, ExpressibleByArgument { case send, receive }

    @Argument(help: "send or receive.") var role: Role
    @Argument(help: "The pipeline file.") var file: String
    @Option(help: "This process's address (ICE, and the server's bind address for send).") var address: String
    @Option(help: "send: the port to serve WHEP on.") var port: Int = 18999
    @Option(help: "receive: the sender's WHEP URL.") var endpoint: String?
    @Option(help: "receive: seconds to measure.") var duration: Double = 10
    @Option(help: "Where to write this half's JSON report.") var out: String
    @Option(help: "Seconds after the first frame left out of the stage figures.") var warmup: Double = 0
    @Option(help: "receive: send SIGUSR1 to this process when the measurement starts (the netem relay's schedule).")
    var signalOnStart: Int32?
    @Option(name: .customLong("set")) var overrides: [String] = []
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        DTLSWarmUp.begin() // GStreamer\'s one-time DTLS key, made while the file loads
        global.bootstrapLogging()
        let spec = try loadOrExit(file, overrides: overrides)
        do {
            let report = role == .send ? try await runSender(spec) : try await runReceiver(spec)
            let e = JSONEncoder()
            e.outputFormatting = [.sortedKeys]
            try e.encode(report).write(to: URL(fileURLWithPath: out))
        } catch let e as RunError {
            printError("error: \(e)")
            throw ExitCode(3)
        }
    }

    /// Serves the send half over WHEP until SIGINT/SIGTERM, then reports what it stamped
    /// and encoded.
    private func runSender(_ spec: PipelineSpec) async throws -> PeerReport {
        let half = try MeasurePlan.sendHalf(spec)
        let timer = StageTimer(), audioTimer = StageTimer(path: .audio)
        let hub = try StreamHub(spec: half, iceAddresses: [address], stageTimer: timer, audioStageTimer: audioTimer)
        let server = SluiceHTTPServer(configuration: .init(host: address, port: port), streams: [hub])
        printLine("measure-peer: serving /whep/\(half.name) on \(address):\(port)")
        let (timeline, sampler) = BitrateTimeline.sampling(hub)
        try await server.run()
        sampler.cancel()
        let writer = hub.filterStatistics.first { $0.filter == MeasurePlan.writer }
        let usage = PeerReport.ownUsage()
        var report = PeerReport(role: "send", cpu: usage.cpu, peakMiB: usage.peakMiB)
        report.stamped = (writer?.frames.load(ordering: .relaxed) ?? 0) - (writer?.events["framestamp-skipped"] ?? 0)
        report.encoded_frames = hub.encodedVideoFrames
        report.encoded_bytes = hub.encodedVideoBytes
        report.stages = timer.figures(warmup: warmup)
        if half.send?.audio != nil { report.audio_stages = audioTimer.figures(warmup: warmup) }
        report.origin_unix = timeline.originUnix
        report.bitrate = timeline.all
        return report
    }

    /// Waits (bounded) for the sender's server, then plays and measures.
    private func runReceiver(_ spec: PipelineSpec) async throws -> PeerReport {
        guard let endpoint, let url = URL(string: endpoint), let host = url.host, let port = url.port else {
            throw RunError("measure-peer receive needs --endpoint http://HOST:PORT/whep/NAME")
        }
        let status = URL(string: "http://\(host):\(port)/status.json")!
        let deadline = Date().addingTimeInterval(20)
        while true {
            if let (_, r) = try? await URLSession.shared.data(from: status), (r as? HTTPURLResponse)?.statusCode == 200 { break }
            guard Date() < deadline else { throw RunError("the sending process did not answer at \(status) within 20 s") }
            try await Task.sleep(for: .milliseconds(100))
        }
        let half = try MeasurePlan.receiveHalf(spec, endpoint: endpoint, address: address)
        let stop = StopFlag()
        let signals = SignalTrap(stop: stop)
        defer { signals.cancel() }
        let relay = signalOnStart
        return try await Measurement.runReceiver(
            spec: half, duration: duration, warmup: warmup, stop: stop,
            onStart: {
                if let relay { kill(relay, SIGUSR1) }
            }
        ) { printLine($0.line) }
    }
}
