import ArgumentParser
import Foundation
import Logging
import Sluice

struct Graph: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Draw the GStreamer graph a pipeline file builds.",
        discussion: """
            Plays the file until every medium it receives (or, sending only, what it sends) flows, \
            or --seconds pass, takes the graph from the running pipeline and stops it. Prints a text \
            tree; with -o, writes GStreamer's dot (.dot) or an SVG drawn by Graphviz (.svg). Network \
            transports connect as `sluice run` would.
            """)

    @OptionGroup var pipeline: PipelineFileOptions

    @Option(name: .shortAndLong, help: "Write the picture here: .svg (needs Graphviz's dot) or .dot.")
    var output: String?

    @Option(help: "Longest time to play the file before the graph is taken.")
    var seconds: Double = 5

    @OptionGroup var global: GlobalOptions

    func validate() throws {
        guard seconds > 0, seconds <= 600 else { throw ValidationError("--seconds must be between 0 and 600") }
        if let output, !(output.hasSuffix(".svg") || output.hasSuffix(".dot")) {
            throw ValidationError("-o takes a .svg or .dot file")
        }
    }

    func run() async throws {
        global.bootstrapLogging()
        let spec = try pipeline.load()
        let picture: PipelineGraph.Picture
        do { picture = try await PipelineGraph.capture(spec, seconds: seconds, logger: Logger(label: "sluice")) } catch {
            printError("error: \(error)")
            throw ExitCode(1)
        }
        if !picture.complete { printError("note: not every medium was flowing after \(seconds) s; the graph may lack receive branches") }
        guard let output else { return print(picture.tree, terminator: "") }
        do {
            let text = output.hasSuffix(".svg") ? try GraphPicture.svg(fromDot: picture.dot) : picture.dot
            try text.write(toFile: output, atomically: true, encoding: .utf8)
        } catch {
            printError("error: \(output): \(error)")
            throw ExitCode(1)
        }
        printLine("\(output): \(picture.tree.split(separator: "\n").count - 1) elements and bins")
    }
}
