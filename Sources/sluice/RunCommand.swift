import ArgumentParser
import Foundation
import GStreamer
import Logging
import Sluice

struct Run: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run a pipeline file, printing live statistics each second.")

    @Argument(help: "The pipeline file (YAML).")
    var file: String

    @Option(help: "Stop after this many seconds (default: run until Ctrl-C).")
    var duration: Double?

    @Option(help: "Write the summary as JSON to this path.")
    var report: String?

    @Option(name: .customLong("set"), help: "Override a value: dotted.path=value (repeatable).")
    var overrides: [String] = []

    @Flag(help: "Print only the summary, no live lines.")
    var quiet = false

    @Flag(help: "Apply edits of the file's filters live; report other edits as needing a restart.")
    var watch = false

    @OptionGroup var global: GlobalOptions

    func validate() throws {
        if let d = duration, !(d > 0 && d.isFinite) { throw ValidationError("--duration must be a positive number of seconds") }
    }

    func run() async throws {
        global.bootstrapLogging()
        let spec = try loadOrExit(file, overrides: overrides)
        let stop = StopFlag()
        let signals = SignalTrap(stop: stop)
        defer { signals.cancel() }

        let runner = PipelineRun(spec: spec, logger: Logger(label: "sluice"))
        let quiet = quiet
        let watcher = watch ? Task {
            await PipelineWatcher(path: file, overrides: overrides, loader: makeLoader(), run: runner).watch { report in
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
        do {
            var options = RunOptions(duration: duration)
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

/// Loads and validates a pipeline file, or prints its problems and exits 2 (file errors)
/// or 3 (only elements missing from this machine).
func loadOrExit(_ file: String, overrides: [String]) throws -> PipelineSpec {
    do {
        return try makeLoader().load(path: file, overrides: overrides)
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
