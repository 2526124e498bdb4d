import Foundation
import Hummingbird
import Logging
import OpenAPIHummingbird
import OpenAPIRuntime
import Sluice
import SluiceControlAPI

/// The control API of a single `sluice run` (`--control HOST:PORT`), with `/metrics`
/// (Prometheus, `--metrics`), `/healthz` and `/openapi.yaml`: the same API as `sluice serve`
/// has, on the one pipeline the run was started with.
public struct ControlServer: Sendable {
    /// The address the server listens on (`--control HOST:PORT`'s host; `127.0.0.1` for `--metrics`).
    public let host: String
    /// The TCP port the server listens on.
    public let port: Int
    /// Who may use the API and `/metrics`, bound to `host` (without an admin token, changes are
    /// allowed only on a loopback address).
    public let access: ControlAPIAccess
    let pipelines: SingleRunPipeline
    let metrics: SluiceMetrics?
    /// Serve the control API (false: only `/metrics` and `/healthz`).
    let api: Bool
    let logger: Logger

    /// A server for one run's control API.
    ///
    /// - Parameters:
    ///   - run: the run the API controls.
    ///   - stop: set by `DELETE` of the pipeline, to end the run.
    ///   - host: the address to listen on.
    ///   - port: the TCP port to listen on.
    ///   - access: who may read and who may change (bound to `host`: without an admin token,
    ///     changes are allowed only on a loopback address).
    ///   - metrics: serve `/metrics` from these (nil: no metrics route).
    ///   - api: serve the control API (false: only `/metrics` and `/healthz`).
    ///   - logger: where the server logs.
    public init(
        run: PipelineRun, stop: StopFlag, host: String, port: Int, access: ControlAPIAccess,
        metrics: SluiceMetrics? = nil, api: Bool = true,
        logger: Logger = Logger(label: "sluice.control")
    ) {
        self.host = host; self.port = port; self.access = access.bound(to: host); self.metrics = metrics; self.api = api; self.logger = logger
        pipelines = SingleRunPipeline(run: run, stop: stop)
    }

    func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.add(middleware: MetricsMiddleware())
        router.get("/openapi.yaml") { _, _ in Self.document() }
        router.get("/healthz") { _, _ in Response(status: .ok, headers: [.contentType: "text/plain"], body: .init(byteBuffer: ByteBuffer(string: "ok\n"))) }
        if let metrics {
            let protected = router.group().add(middleware: APIAuthMiddleware(access: access))
            protected.get("/metrics") { _, _ in
                Response(
                    status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                    body: .init(byteBuffer: ByteBuffer(string: metrics.render())))
            }
        }
        if api {
            let group = router.group().add(middleware: APIAuthMiddleware(access: access))
            Self.register(ControlAPIHandler(pipelines: pipelines), on: group, logger: logger)
        }
        return router
    }

    /// Serves until the task is cancelled.
    public func run() async throws {
        let app = Application(
            router: router(), configuration: .init(address: .hostname(host, port: port), serverName: "sluice"),
            logger: logger)
        try await app.runService(gracefulShutdownSignals: [])
    }

    /// The Hummingbird application (for tests).
    public func application() -> some ApplicationProtocol {
        Application(router: router(), configuration: .init(address: .hostname(host, port: port), serverName: "sluice"), logger: logger)
    }

    static func document() -> Response {
        Response(
            status: .ok, headers: [.contentType: "application/yaml"],
            body: .init(byteBuffer: ByteBuffer(string: controlAPIDocument)))
    }

    static func register<R: OpenAPIRuntime.ServerTransport>(_ handler: ControlAPIHandler, on transport: R, logger: Logger) {
        do {
            try handler.registerHandlers(on: transport, serverURL: URL(string: "/api/v1")!, middlewares: [ProblemMiddleware(), NullFieldsMiddleware()])
        } catch {
            logger.error("the control API could not be registered: \(error)")
        }
    }
}
