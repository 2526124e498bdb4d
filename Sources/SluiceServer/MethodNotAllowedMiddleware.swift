import HTTPTypes
import Hummingbird
import Synchronization

/// The routes the router serves, by path template and method, for answers about a path
/// rather than one route: which methods a path allows.
final class RouteMethods: Sendable {
    /// One route: its path template's segments (`{name}` stands for any one segment, `**` for
    /// the rest) and its method.
    struct Route: Sendable {
        var segments: [Substring]
        var method: HTTPRequest.Method
    }
    private let routes = Mutex<[Route]>([])

    /// Takes the router's routes (once they are all registered).
    func set(_ routes: [(path: String, method: HTTPRequest.Method)]) {
        let table = routes.map { Route(segments: $0.path.split(separator: "/"), method: $0.method) }
        self.routes.withLock { $0 = table }
    }

    /// The methods some route serves `path` with, in a stable order.
    func methods(for path: String) -> [HTTPRequest.Method] {
        let parts = path.split(separator: "/")
        let found = routes.withLock { table in table.filter { Self.matches($0.segments, parts) }.map(\.method) }
        return Array(Set(found.map(\.rawValue))).sorted().compactMap { HTTPRequest.Method($0) }
    }

    static func matches(_ template: [Substring], _ parts: [Substring]) -> Bool {
        for (i, segment) in template.enumerated() {
            if segment == "**" { return parts.count >= i }
            guard i < parts.count else { return false }
            let wildcard = segment == "*" || (segment.hasPrefix("{") && segment.hasSuffix("}"))
            if !wildcard && segment != parts[i] { return false }
        }
        return template.count == parts.count
    }
}

/// `405 Method Not Allowed` with `Allow` (RFC 9110 §15.5.6) for a request whose path a route
/// serves with other methods (`TRACE /api/v1/pipelines`), where the router alone would answer
/// 404 as if the path did not exist. The control API's answer is problem+json, as its other
/// errors. `HEAD` on a `GET` route keeps the router's answer.
struct MethodNotAllowedMiddleware<Context: RequestContext>: RouterMiddleware {
    let routes: RouteMethods

    func handle(
        _ request: Request, context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            let allowed = routes.methods(for: request.uri.path)
            guard !allowed.isEmpty, !allowed.contains(request.method), request.method != .head else { throw error }
            let allow = allowed.map(\.rawValue).joined(separator: ", ")
            let detail = "\(request.method.rawValue) is not allowed on \(request.uri.path.prefix(200)); this path allows \(allow)"
            let text = Response(
                status: .methodNotAllowed, headers: [.contentType: "text/plain; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: detail + "\n")))
            var response = request.uri.path.hasPrefix("/api/") ? Problem.response(.methodNotAllowed, detail) : text
            response.headers[.allow] = allow
            return response
        }
    }
}
