import ArgumentParser
import Foundation
import Logging
import Sluice

struct Measure: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure glass-to-glass latency, loss and cost of a pipeline file.",
        discussion: """
            Runs FILE (a loopback file with send.video and receive.video, or one whose far end \
            sends back what it gets: see --round-trip) with a framestamp writer \
            right after capture and a reader right before the \
            sink (inserted unless the file places them), and reports latency p50/p95/p99/max, \
            frames stamped, read back, lost, duplicated and out of order, delivered fps, encoder \
            bitrate, CPU, peak memory and time to first frame.
            """)

    @OptionGroup var pipeline: PipelineFileOptions

    @Option(help: "Seconds to measure.")
    var duration: Double = 10

    @Option(help: "Seconds after the first frame to leave out of the latency figures (start-up).")
    var warmup: Double = 0

    @Option(help: "Write the report as JSON to this path.")
    var json: String?

    @Option(help: "Draw latency over time and its histogram into this SVG file.")
    var plot: String?

    @Flag(help: "Print only the summary, no progress lines.")
    var quiet = false

    @Option(
        help:
            "1: sender and receiver in this process (loopback); 2: in two processes, each in a network namespace of its own, joined by a veth pair (needs root)."
    )
    var processes = 1

    @Option(help: "With --processes 2: tc netem settings for the sender's side of the link, e.g. \"delay 40ms loss 2%\" or \"rate 1mbit\".")
    var netem: String?

    @Option(
        help:
            "With --processes 2: conditions that change during the run, steps separated by ';', each but the last with 'for T', e.g. \"rate 3mbit for 10s; rate 800kbit for 15s; rate 3mbit\" (Sluice's relay applies them)."
    )
    var netemSchedule: String?

    @Flag(
        help:
            "The far end sends back what it receives (an echo peer: aiortc's MediaRelay, a browser page, a service's echo): measure the round trip through it, whatever the file's transport."
    )
    var roundTrip = false

    @Flag(
        name: .customLong("no-stages"),
        help: "Leave out the breakdown by stage and its pad probes (about 1% of the process's CPU): the latency, frames and start-up figures stay.")
    var noStages = false

    @OptionGroup var global: GlobalOptions

    func validate() throws {
        guard duration > 0, duration.isFinite, duration <= 86400 else { throw ValidationError("--duration must be between 0 and 86400 seconds") }
        if let plot, !plot.lowercased().hasSuffix(".svg") { throw ValidationError("--plot writes SVG: give a path ending in .svg") }
        guard warmup >= 0, warmup < duration else { throw ValidationError("--warmup must be at least 0 and less than --duration") }
        guard [1, 2].contains(processes) else { throw ValidationError("--processes is 1 or 2") }
        if roundTrip && processes != 1 { throw ValidationError("--round-trip measures through an echo peer from one process: leave out --processes 2") }
        if noStages && processes != 1 {
            throw ValidationError("--no-stages is for one process; with --processes 2 the stages are how the two halves are put together")
        }
        if netem != nil && processes != 2 { throw ValidationError("--netem needs --processes 2 (the link between the two processes is what it shapes)") }
        if let netem { do { _ = try TwoProcessMeasure.netemArguments(netem) } catch { throw ValidationError("\(error)") } }
        if let netemSchedule {
            guard processes == 2 else { throw ValidationError("--netem-schedule needs --processes 2 (the link between the two processes is what it shapes)") }
            guard netem == nil else { throw ValidationError("give --netem or --netem-schedule, not both (a schedule of one step is --netem)") }
            do { _ = try ImpairmentSchedule.parse(netemSchedule) } catch { throw ValidationError("--netem-schedule: \(error.description)") }
        }
    }

    func run() async throws {
        DTLSWarmUp.begin() // GStreamer\'s one-time DTLS key, made while the file loads
        global.bootstrapLogging()
        let spec = try pipeline.load()
        let stop = StopFlag()
        let signals = SignalTrap(stop: stop)
        defer { signals.cancel() }
        let quiet = quiet
        do {
            let report: MeasureReport
            if processes == 2 {
                _ = try MeasurePlan.instrument(spec) // the same checks, before any namespace exists
                report = try await TwoProcessMeasure(
                    file: pipeline.file, overrides: pipeline.overrides, duration: duration, warmup: warmup, netem: netem,
                    schedule: netemSchedule, quiet: quiet
                )
                .run(spec: spec, stop: stop)
            } else {
                report = try await Measurement.run(
                    spec: spec, duration: duration, warmup: warmup, roundTrip: roundTrip, stages: !noStages, stop: stop
                ) { p in
                    if !quiet { printLine(p.line) }
                }
            }
            printLine(report.text)
            try write(report)
        } catch let e as RunError {
            printError("error: \(e)")
            throw ExitCode(3)
        } catch let e as TwoProcessMeasure.Failure {
            printError("error: \(e)")
            throw ExitCode(3)
        }
    }

    private func write(_ report: MeasureReport) throws {
        if let json {
            do { try report.json().write(to: URL(fileURLWithPath: json)) } catch {
                printError("error: cannot write \(json): \(error.localizedDescription)")
                throw ExitCode(3)
            }
        }
        if let plot {
            do { try Data(LatencyPlot.svg(report).utf8).write(to: URL(fileURLWithPath: plot)) } catch {
                printError("error: cannot write \(plot): \(error.localizedDescription)")
                throw ExitCode(3)
            }
            printLine("plot: \(plot)")
        }
    }
}
