import ArgumentParser
import Foundation
import Sluice

struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check pipeline files without running them.",
        discussion:
            "Prints FILE:LINE:COL: message for each problem. Exit 0 if all are valid, 2 if any file is invalid, 3 if files are valid but this machine lacks elements they need. An unset ${VAR} (a password from the environment) is a warning here, not an error: it must be set when the file runs."
    )

    @Argument(help: "Pipeline files.")
    var files: [String]

    @Option(name: .customLong("set"), help: "Override a value: dotted.path=value (repeatable).")
    var overrides: [String] = []

    @OptionGroup var global: GlobalOptions

    func run() throws {
        global.bootstrapLogging()
        let loader = makeLoader()
        var worst: Int32 = 0
        for file in files {
            do {
                let warnings = try loader.check(path: file, overrides: overrides)
                for w in warnings { printError(w.description) }
                print("\(file): ok")
            } catch {
                for d in error.diagnostics { printError(d.description) }
                worst = max(worst, error.onlyMissingElements ? 3 : 2)
            }
        }
        if worst != 0 { throw ExitCode(worst == 3 ? 3 : 2) }
    }
}
