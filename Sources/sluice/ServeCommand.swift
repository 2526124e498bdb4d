import ArgumentParser
import Foundation
import Logging
import SluiceServer

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the signalling server: AppRTC-compatible rooms over HTTP and WebSocket.",
        discussion: "Binds 127.0.0.1:8443 by default. Rooms: POST /join/<room>, WebSocket /ws, POST /message/<room>/<client>, POST /leave/<room>/<client>; GET /status.json.")

    @Option(help: "Address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "Port to listen on.")
    var port = 8443

    @OptionGroup var global: GlobalOptions

    func validate() throws {
        guard (1...65535).contains(port) else { throw ValidationError("--port must be between 1 and 65535") }
    }

    func run() async throws {
        global.bootstrapLogging()
        printLine("sluice serve: listening on http://\(host):\(port)")
        try await SignallingServer(configuration: .init(host: host, port: port)).run()
    }
}
