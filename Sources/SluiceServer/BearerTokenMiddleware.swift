import HTTPTypes
import Hummingbird
import SluiceSignalling

/// Authentication for a group of routes: with a configured token, a request must carry
/// `Authorization: Bearer <token>` (compared in constant time, see `BearerToken`) before any
/// handler of the group runs. No header, another scheme or an empty token → `401` with
/// `WWW-Authenticate: Bearer`; another token → `403`. Without a token everything passes.
///
/// The refusal's body is the group's own: WHIP/WHEP answer in plain text, the camera API in
/// Google's error JSON. The middleware adds `WWW-Authenticate` to a `401` when the refusal
/// has none.
///
/// `SluiceHTTPServer.router()` puts every route that hands out media or session data behind
/// one of these; handlers do not check tokens themselves.
public struct BearerTokenMiddleware<Context: RequestContext>: RouterMiddleware {
    /// Why a request was refused, passed to `refuse` to build the group's response.
    public enum Refusal: Sendable, Equatable {
        /// No bearer token: answered `401`.
        case missing
        /// Not the configured token: answered `403`.
        case invalid
    }

    /// nil: no authentication.
    public let token: String?
    /// The response for a refused request (its status should be 401 or 403).
    public let refuse: @Sendable (Refusal) -> Response

    /// A middleware that checks `token` (nil: lets every request through) and answers refusals
    /// with `refuse`.
    public init(token: String?, refuse: @escaping @Sendable (Refusal) -> Response) {
        self.token = token
        self.refuse = refuse
    }

    /// Checks the `Authorization` header and runs the rest of the chain only if the token matches
    /// (or no token is configured); otherwise returns `refuse`'s response, adding
    /// `WWW-Authenticate: Bearer` to a `missing` refusal that lacks it.
    public func handle(
        _ request: Request, context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard let token else { return try await next(request, context) }
        switch BearerToken.check(request.headers[.authorization], token: token) {
        case .accepted:
            return try await next(request, context)
        case .missing:
            var response = refuse(.missing)
            if response.headers[.wwwAuthenticate] == nil { response.headers[.wwwAuthenticate] = BearerToken.challenge }
            return response
        case .invalid:
            return refuse(.invalid)
        }
    }
}
