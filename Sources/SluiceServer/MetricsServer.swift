import Hummingbird
import Logging
import Sluice

/// `/metrics` (Prometheus text format) and `/healthz` on their own, for commands that have
/// figures to expose but no pipeline to control (`sluice load --metrics PORT`).
public struct MetricsServer: Sendable {
    /// The address the server listens on.
    public let host: String
    /// The TCP port the server listens on.
    public let port: Int
    let metrics: SluiceMetrics
    let logger: Logger

    /// A server of `metrics` at `host:port` (loopback by default).
    public init(metrics: SluiceMetrics, host: String = "127.0.0.1", port: Int, logger: Logger = Logger(label: "sluice.metrics")) {
        self.metrics = metrics; self.host = host; self.port = port; self.logger = logger
    }

    func router() -> Router<BasicRequestContext> {
        let router = Router()
        let metrics = metrics
        router.get("/healthz") { _, _ in Response(status: .ok, headers: [.contentType: "text/plain"], body: .init(byteBuffer: ByteBuffer(string: "ok\n"))) }
        router.get("/metrics") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: metrics.render())))
        }
        return router
    }

    /// Serves until the task is cancelled.
    public func run() async throws {
        let app = Application(router: router(), configuration: .init(address: .hostname(host, port: port), serverName: "sluice"), logger: logger)
        try await app.runService(gracefulShutdownSignals: [])
    }
}
