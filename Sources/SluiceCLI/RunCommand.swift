import ArgumentParser
import Foundation
import Logging
import Sluice
import SluiceServer

struct Run: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run a pipeline file, printing live statistics each second.")

    @OptionGroup var pipeline: PipelineFileOptions

    @Option(help: "Stop after this many seconds (default: run until Ctrl-C).")
    var duration: Double?

    @Option(help: "Write the summary as JSON to this path.")
    var report: String?

    @Flag(help: "Print only the summary, no live lines.")
    var quiet = false

    @Flag(help: "Apply edits of the file's filters live; report other edits as needing a restart.")
    var watch = false

    @Option(help: "Serve the control API (and /metrics, /healthz, /openapi.yaml) at HOST:PORT while the run lasts, e.g. 127.0.0.1:8090.")
    var control: String?

    @Option(help: "Serve /metrics (Prometheus) and /healthz on 127.0.0.1:PORT while the run lasts.")
    var metrics: Int?

    @Option(
        name: .customLong("webrtc-stats-interval"),
        help: "Seconds between reads of webrtcbin's statistics (the live bitrate and RTT, /metrics' rtp_ counters): 5, or 1 with --metrics or --control.")
    var webrtcStatsInterval: Double?

    @Option(
        name: .customLong("admin-token"),
        help: "Bearer token that may change the pipeline through the control API (repeatable). Without one the API is open, on a loopback address only.")
    var adminTokens: [String] = []

    @Option(name: .customLong("viewer-token"), help: "Bearer token that may read the control API and /metrics (repeatable).")
    var viewerTokens: [String] = []

    @OptionGroup var global: GlobalOptions

    func validate() throws {
        if let d = duration, !(d > 0 && d.isFinite) { throw ValidationError("--duration must be a positive number of seconds") }
        if let control, HostPort(control) == nil { throw ValidationError("--control takes HOST:PORT, e.g. 127.0.0.1:8090") }
        if let metrics, !(1...65535).contains(metrics) { throw ValidationError("--metrics must be a port between 1 and 65535") }
        if let s = webrtcStatsInterval, !(s >= 0.2 && s <= 3600) {
            throw ValidationError("--webrtc-stats-interval takes seconds from 0.2 to 3600, e.g. 1")
        }
    }

    func run() async throws {
        DTLSWarmUp.begin() // GStreamer\'s one-time DTLS key, made while the file loads
        global.bootstrapLogging()
        let spec = try pipeline.load()
        let stop = StopFlag()
        let signals = SignalTrap(stop: stop)
        defer { signals.cancel() }

        let runner = PipelineRun(spec: spec, logger: Logger(label: "sluice"))
        let quiet = quiet
        let watcher =
            watch
            ? Task {
                await PipelineWatcher(path: pipeline.file, overrides: pipeline.overrides, loader: makeLoader(), run: runner).watch { report in
                    switch report {
                    case .applied(let parts): printLine("watch: applied \(parts.joined(separator: ", ")) without restarting")
                    case .needsRestart(let parts):
                        printLine("watch: changes to \(parts.joined(separator: ", ")) need a restart; the running pipeline is unchanged")
                    case .invalid(let diagnostics):
                        printLine("watch: the file is invalid now; keeping the running pipeline")
                        for d in diagnostics { printError(d.description) }
                    case .failed(let error): printError("watch: \(error)")
                    }
                }
            } : nil
        defer { watcher?.cancel() }
        let servers = controlServers(runner: runner, stop: stop)
        defer { servers.forEach { $0.cancel() } }
        do {
            var options = RunOptions(duration: duration)
            options.webrtcStatsInterval = webrtcStatsInterval ?? (metrics != nil || control != nil ? 1 : 5)
            options.onDataMessage = { label, text in printLine("[\(label)] \(text)") }
            if spec.transport.dataChannels.contains(where: \.stdin) { options.dataInput = standardInputLines() }
            let summary = try await runner.run(options: options, stop: stop) { live in
                if !quiet { printLine(live.line) }
            }
            printLine(summary.text)
            if let report {
                do { try summary.json().write(to: URL(fileURLWithPath: report)) } catch {
                    printError("error: cannot write report to \(report): \(error.localizedDescription)")
                    throw ExitCode(3)
                }
            }
        } catch let e as RunError {
            printError("error: \(e)")
            throw ExitCode(3)
        }
    }
}

extension Run {
    /// The control API and metrics servers the options ask for, running until cancelled.
    func controlServers(runner: PipelineRun, stop: StopFlag) -> [Task<Void, Never>] {
        let access = ControlAPIAccess(adminTokens: adminTokens, viewerTokens: viewerTokens)
        var servers: [ControlServer] = []
        let registry = SluiceMetrics()
        registry.add(ProcessMetrics())
        registry.add(runner)
        if control != nil || metrics != nil { registry.bootstrapSwiftMetrics() }
        if let control, let hp = HostPort(control) {
            servers.append(ControlServer(run: runner, stop: stop, host: hp.host, port: hp.port, access: access, metrics: registry))
            printLine("sluice run: control API at http://\(control)/api/v1 (document: /openapi.yaml)")
        }
        if let metrics {
            servers.append(
                ControlServer(
                    run: runner, stop: stop, host: "127.0.0.1", port: metrics, access: access,
                    metrics: registry, api: false))
            printLine("sluice run: metrics at http://127.0.0.1:\(metrics)/metrics")
        }
        return servers.map { server in
            Task {
                do { try await server.run() } catch { printError("error: the control server stopped: \(error)") }
            }
        }
    }
}

/// `HOST:PORT` (an IPv6 host in brackets).
struct HostPort {
    let host: String
    let port: Int
    init?(_ text: String) {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
            (1...65535).contains(port)
        else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { return nil }
        self.host = host; self.port = port
    }
}

/// Lines typed on standard input, read on a thread of their own (reading blocks); the
/// stream finishes at end of input.
func standardInputLines() -> AsyncStream<String> {
    let (lines, sink) = AsyncStream<String>.makeStream()
    Thread.detachNewThread {
        while let line = readLine(strippingNewline: true) { sink.yield(line) }
        sink.finish()
    }
    return lines
}

/// The loader with this machine's GStreamer elements and the registered Swift filters.
func makeLoader() -> PipelineLoader {
    BuiltInRegistration.ensure()
    return PipelineLoader(catalog: GStreamerCatalog(), filters: FilterRegistry.shared)
}

/// Loads and validates a pipeline file (printing its warnings), or prints its problems and
/// exits 2 (file errors) or 3 (only elements missing from this machine).
func loadOrExit(_ file: String, overrides: [String]) throws -> PipelineSpec {
    let loader = makeLoader()
    do {
        let spec = try loader.load(path: file, overrides: overrides)
        for w in loader.warnings(for: spec) { printError(w.description) }
        return spec
    } catch {
        for d in error.diagnostics { printError(d.description) }
        throw ExitCode(error.onlyMissingElements ? 3 : 2)
    }
}

/// Turns SIGINT/SIGTERM into a stop request (the run then drains and exits 0).
final class SignalTrap {
    private let sources: [DispatchSourceSignal]

    init(stop: StopFlag) {
        sources = [SIGINT, SIGTERM].map { sig in
            signal(sig, SIG_IGN)
            let s = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            s.setEventHandler { stop.set() }
            s.resume()
            return s
        }
    }

    func cancel() { sources.forEach { $0.cancel() } }
}
