import ArgumentParser
import Foundation
import Sluice

struct Inspect: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show which encoders, decoders, sources and sinks this machine's GStreamer has.")

    @Flag(help: "Print JSON instead of text.")
    var json = false

    @OptionGroup var global: GlobalOptions

    func run() throws {
        global.bootstrapLogging()
        BuiltInRegistration.ensure()
        let report = MachineInspection.current()
        if json {
            let e = JSONEncoder()
            e.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try e.encode(report), as: UTF8.self))
        } else {
            print(report.text)
        }
    }
}
