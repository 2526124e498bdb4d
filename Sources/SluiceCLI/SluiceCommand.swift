import ArgumentParser
import Foundation
import Logging
import Sluice

/// `sluice`: run, validate and inspect declarative WebRTC pipelines.
@main
struct SluiceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sluice",
        abstract: "Run declarative GStreamer/WebRTC pipeline files.",
        discussion: """
            Examples:
              sluice run Pipelines/loopback.yaml --duration 10
              sluice validate Pipelines/*.yaml
              sluice measure Pipelines/loopback.yaml --duration 20 --json report.json
              sluice serve --pipeline Pipelines/serve-testsrc.yaml --port 8443

            Exit codes: 0 ok; 2 invalid pipeline file or arguments; 3 runtime failure \
            (missing element, negotiation failure, ICE not connected in time, a port in use).
            """,
        subcommands: [Run.self, Measure.self, Load.self, Validate.self, Inspect.self, Graph.self, Serve.self, Discover.self, MeasurePeer.self, NetemRelay.self])

    @Flag(name: .long, help: "Print the version, the git commit it was built from, and the GStreamer and Swift versions.")
    var version = false

    /// `sluice --version`; `sluice` alone prints the help.
    func run() async throws {
        guard version else { throw CleanExit.helpRequest(self) }
        for line in SluiceVersion.current(commit: buildCommit).lines { print(line) }
    }

    /// Registers the transport kinds Sluice ships (SluiceTransports), then parses and runs,
    /// mapping argument errors to exit code 2 as documented.
    static func main() async {
        SluiceTransports.registerBuiltIns()
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            fflush(nil)
            // A leak check (Scripts/memcheck.sh's live-objects report) needs exit's destructors.
            if ProcessInfo.processInfo.environment["SLUICE_EXIT_WITH_DESTRUCTORS"] == "1" { Foundation.exit(0) }
            _exit(0) // as below: no exit-time destructors racing threads that still run
        } catch {
            let code = exitCode(for: error)
            var message = fullMessage(for: error)
            if let hint = unknownSubcommandHint(CommandLine.arguments.dropFirst()) { message = hint }
            if !message.isEmpty {
                (code == .success ? FileHandle.standardOutput : FileHandle.standardError).write(Data((message + "\n").utf8))
            }
            fflush(nil) // every C stream (print's buffered stdout)
            // _exit, not exit: a command ends while GStreamer's, NIO's and Swift concurrency's
            // threads still run, and exit's destructors raced them (SIGSEGV in a destroyed
            // rwlock: 1 refused login in 10–25, and once a `sluice serve` after its drain).
            _exit(code == .validationFailure ? 2 : code.rawValue)
        }
    }
}

extension SluiceCommand {
    /// The commands a user can type (hidden ones included: a typo of one still deserves a hint).
    static var subcommandNames: [String] {
        configuration.subcommands.map { $0._commandName }
    }

    /// For `sluice runn x`: says the command is unknown and suggests the nearest, instead of
    /// ArgumentParser's "2 unexpected arguments". Nil when the first argument is an option or
    /// a known command.
    static func unknownSubcommandHint<C: Collection>(_ arguments: C) -> String? where C.Element == String {
        guard let first = arguments.first, !first.hasPrefix("-"), !subcommandNames.contains(first) else { return nil }
        let nearest = Suggestions.closest(to: first, in: subcommandNames)
        return "Error: '\(first)' is not a sluice command"
            + (nearest.map { "; did you mean 'sluice \($0)'?" } ?? "")
            + "\nThe commands: \(configuration.subcommands.filter { $0.configuration.shouldDisplay }.map { $0._commandName }.joined(separator: ", ")). See 'sluice --help'."
    }
}

/// Options every subcommand shares.
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: "Log level: trace, debug, info, notice, warning, error.")
    var logLevel: Logger.Level = .warning

    enum LogFormat: String, ExpressibleByArgument { case text, json }

    @Option(name: .long, help: "Log format on standard error: text, or json (one object per line, for log collectors).")
    var logFormat: LogFormat = .text

    func bootstrapLogging() {
        let level = logLevel, format = logFormat
        LoggingSystem.bootstrap { label in
            switch format {
            case .text:
                var h = StreamLogHandler.standardError(label: label)
                h.logLevel = level
                return h
            case .json:
                var h = JSONLogHandler(label: label)
                h.logLevel = level
                return h
            }
        }
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}

/// Writes a line to standard output unbuffered (live lines must show up at once in a pipe).
func printLine(_ s: String) {
    FileHandle.standardOutput.write(Data((s + "\n").utf8))
}

/// Writes a line to standard error.
func printError(_ s: String) {
    FileHandle.standardError.write(Data((s + "\n").utf8))
}
