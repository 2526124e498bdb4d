import ArgumentParser
import Sluice

/// The pipeline file a command reads, and its `--set` overrides (run, measure, graph).
struct PipelineFileOptions: ParsableArguments {
    @Argument(help: "The pipeline file (YAML).")
    var file: String

    @Option(name: .customLong("set"), help: "Override a value: dotted.path=value (repeatable).")
    var overrides: [String] = []

    /// The file, loaded and checked; prints its problems and exits 2 (or 3) when it is invalid.
    func load() throws -> PipelineSpec { try loadOrExit(file, overrides: overrides) }
}
