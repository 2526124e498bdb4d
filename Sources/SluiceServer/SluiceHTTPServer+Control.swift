import Foundation
import Hummingbird
import HummingbirdWebSocket
import OpenAPIHummingbird
import OpenAPIRuntime
import Sluice
import SluiceControlAPI

extension SluiceHTTPServer {
    /// The control API under `/api/v1` (`ControlAPIAccess` decides who may do what) and its
    /// OpenAPI document at `/openapi.yaml` (public: it describes, it holds no data).
    func addControlRoutes(to router: Router<BasicWebSocketRequestContext>) {
        router.get("/openapi.yaml") { _, _ in ControlServer.document() }
        let api = router.group().add(middleware: APIAuthMiddleware(access: configuration.control))
            .add(middleware: APIDrainMiddleware(drain: drain))
        let handler = ControlAPIHandler(pipelines: ServedPipelines(directory: streams, folder: configuration.pipelinesFolder))
        ControlServer.register(handler, on: api, logger: logger)
    }
}

/// While the server drains, creating a pipeline is refused like any new session (`503`).
struct APIDrainMiddleware<Context: RequestContext>: RouterMiddleware {
    let drain: DrainState
    func handle(
        _ request: Request, context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard drain.isDraining, request.method == .post, request.uri.path.hasSuffix("/pipelines") else {
            return try await next(request, context)
        }
        var r = Problem.response(.serviceUnavailable, "the server is draining (shutting down): no new pipelines; retry against another instance")
        r.headers[.retryAfter] = "\(DrainState.retryAfterSeconds)"
        return r
    }
}
