import ArgumentParser
import Foundation
import Sluice
import SluiceServer

/// `sluice load`: a crowd of synthetic clients from one pipeline file, and `sluice load merge`.
struct Load: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Test a WebRTC service with many synthetic clients from one pipeline file.",
        discussion: """
            Each client is what FILE describes (e.g. a WHEP viewer: transport.kind whep and a receive \
            section; a WHIP publisher: whip and a send section; a member of a call of two: apprtc and both \
            sections), with its own PeerConnection, ICE and DTLS, all in this process; publishers and \
            members share one encoder. The file's load: \
            section sets the crowd (clients, ramp, duration, decode); the options below override it. \
            Reports per client and across clients what they saw: connect time, time to first frame, \
            frames per second, freezes, network figures and glass-to-glass delay where stamps are read. \
            Exits 3 when any client failed.
            """,
        subcommands: [LoadCrowd.self, LoadMerge.self],
        defaultSubcommand: LoadCrowd.self)
}

/// `sluice load FILE`.
struct LoadCrowd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "crowd", abstract: "Run the crowd FILE describes (the default).")

    @OptionGroup var pipeline: PipelineFileOptions

    @Option(help: "Clients in the whole crowd (overrides load.clients).")
    var clients: Int?

    @Option(help: "New clients per second, e.g. 20/s (overrides load.ramp).")
    var ramp: String?

    @Option(help: "Seconds each client stays once connected (overrides load.duration).")
    var duration: Double?

    @Option(help: "Which clients decode: all, some (every 10th) or none (overrides load.decode).")
    var decode: String?

    @Option(help: "Run one part of the crowd: I/N, e.g. 1/2 (clients I-1, I-1+N, …).")
    var shard: String?

    @Option(help: "Write the report as JSON to this path.")
    var json: String?

    @Option(help: "Draw the report into this file (.svg or .html).")
    var plot: String?

    @Flag(help: "Print only the report, no progress lines.")
    var quiet = false

    @Option(help: "Serve /metrics (Prometheus) and /healthz on 127.0.0.1:PORT while the crowd runs.")
    var metrics: Int?

    @OptionGroup var global: GlobalOptions

    func validate() throws {
        if let clients, !(1...100_000).contains(clients) { throw ValidationError("--clients must be between 1 and 100000") }
        if let ramp, LoadSpec.ramp(from: ramp) == nil { throw ValidationError("--ramp must be clients per second, more than 0 and at most 1000, e.g. 20/s") }
        if let duration, !(duration > 0 && duration <= 86_400) { throw ValidationError("--duration must be more than 0 and at most 86400 seconds") }
        if let decode, LoadSpec.Decode(rawValue: decode) == nil { throw ValidationError("--decode is all, some or none") }
        if let shard, LoadRun.Shard(shard) == nil { throw ValidationError("--shard is I/N with 1 ≤ I ≤ N, e.g. 1/2") }
        if let plot, !plot.hasSuffix(".svg") && !plot.hasSuffix(".html") { throw ValidationError("--plot writes .svg or .html") }
        if let metrics, !(1...65535).contains(metrics) { throw ValidationError("--metrics must be a port between 1 and 65535") }
    }

    /// The file's load section with the options applied.
    func crowd(_ spec: PipelineSpec) -> LoadSpec {
        var load = spec.load ?? LoadSpec()
        if let clients { load.clients = clients }
        if let ramp, let rate = LoadSpec.ramp(from: ramp) { load.rampPerSecond = rate }
        if let duration { load.durationSeconds = duration }
        if let decode, let d = LoadSpec.Decode(rawValue: decode) { load.decode = d }
        return load
    }

    @Option(help: .hidden)
    var netemGroup: Int?

    /// Runs the crowd, printing the live line each second unless `quiet`. The groups with
    /// netem run in child processes behind impaired links; their reports join this one's.
    private func crowdReport(spec: PipelineSpec, load: LoadSpec, stop: StopFlag) async throws(RunError) -> LoadReport {
        let quiet = quiet
        let hasNetem = !load.netemGroups.isEmpty
        let here: LoadRun.GroupSelection = netemGroup.map { .netemGroup($0) } ?? (hasNetem ? .withoutNetem : .all)
        let run = try LoadRun(spec: spec, load: load, shard: shard.flatMap(LoadRun.Shard.init), groups: here)
        let groups =
            netemGroup == nil && hasNetem
            ? try LoadNetemGroups(spec: spec, load: load, role: run.role) { childArguments(load, group: $0) } : nil
        defer { groups?.remove() }
        let server = metricsServer(run)
        defer { server?.cancel() }
        let result = try await run.run(stop: stop) { p in if !quiet { printLine(p.line) } }
        let own = LoadReport(spec: spec, load: load, shard: shard, result: result)
        guard let groups else { return own }
        let children = try await groups.reports(stop: stop, limit: load.durationSeconds + Double(load.clients) / load.rampPerSecond + 60)
        do {
            var merged = try LoadReport.merge([own] + children)
            merged.shard = own.shard
            return merged
        } catch {
            throw RunError("cannot join the netem groups' reports: \(error)")
        }
    }

    /// What a netem group's child runs: this crowd, as resolved here, for that group only.
    private func childArguments(_ load: LoadSpec, group: Int) -> [String] {
        ["load", "crowd", pipeline.file] + pipeline.overrides.flatMap { ["--set", $0] }
            + [
                "--clients", "\(load.clients)", "--ramp", "\(load.rampPerSecond)", "--duration", "\(load.durationSeconds)",
                "--decode", load.decode.rawValue, "--netem-group", "\(group)"
            ] + (shard.map { ["--shard", $0] } ?? [])
    }

    /// `/metrics` for `run` while it goes, when `--metrics` asks for it.
    private func metricsServer(_ run: LoadRun) -> Task<Void, Never>? {
        metrics.map { port in
            let registry = SluiceMetrics()
            registry.add(ProcessMetrics())
            registry.add(run)
            printLine("sluice load: metrics at http://127.0.0.1:\(port)/metrics")
            return Task {
                do { try await MetricsServer(metrics: registry, port: port).run() } catch { printError("error: the metrics server stopped: \(error)") }
            }
        }
    }

    func run() async throws {
        DTLSWarmUp.begin()
        global.bootstrapLogging()
        let spec = try pipeline.load()
        let load = crowd(spec)
        let stop = StopFlag()
        let signals = SignalTrap(stop: stop)
        defer { signals.cancel() }
        let report: LoadReport
        do throws(RunError) {
            report = try await crowdReport(spec: spec, load: load, stop: stop)
        } catch {
            printError("error: \(error)")
            throw ExitCode(3)
        }
        printLine(report.text)
        try LoadOutput(json: json, plot: plot).write(report)
        if report.exitCode != 0 { throw ExitCode(report.exitCode) }
    }
}

/// `sluice load merge A.json B.json …`: shard reports combined exactly.
struct LoadMerge: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "merge", abstract: "Combine the JSON reports of shards into one (histograms merged, not percentiles).")

    @Argument(help: "Shard reports written by sluice load --json.")
    var reports: [String]

    @Option(help: "Write the merged report as JSON to this path.")
    var json: String?

    @Option(help: "Draw the merged report into this file (.svg or .html).")
    var plot: String?

    func run() async throws {
        var shards: [LoadReport] = []
        for path in reports {
            do { shards.append(try LoadReport.read(from: URL(fileURLWithPath: path))) } catch {
                printError("error: \(path): \(error)")
                throw ExitCode(2)
            }
        }
        let merged: LoadReport
        do { merged = try LoadReport.merge(shards) } catch {
            printError("error: \(error)")
            throw ExitCode(2)
        }
        printLine(merged.text)
        try LoadOutput(json: json, plot: plot).write(merged)
        if merged.exitCode != 0 { throw ExitCode(merged.exitCode) }
    }
}

/// Where a load report goes besides standard output.
struct LoadOutput {
    var json: String?
    var plot: String?

    func write(_ report: LoadReport) throws {
        do {
            if let json { try report.json().write(to: URL(fileURLWithPath: json)) }
            if let plot {
                let text = plot.hasSuffix(".html") ? LoadPlot.html(report) : LoadPlot.svg(report)
                try Data(text.utf8).write(to: URL(fileURLWithPath: plot))
                printLine("plot: \(plot)")
            }
        } catch {
            printError("error: cannot write the report: \(error.localizedDescription)")
            throw ExitCode(3)
        }
    }
}
