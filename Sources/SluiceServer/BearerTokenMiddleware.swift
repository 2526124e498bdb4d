import HTTPTypes
import Hummingbird
import SluiceSignalling

/// Authentication for a group of routes, before any handler of the group runs. A request
/// passes with `Authorization: Bearer <token>` where the token is the configured static one
/// (compared in constant time, see `BearerToken`), or a JWT that `jwt` verifies and whose
/// `sluice_permissions` grant what the request asks (`AccessRequest.forPath`). Without a
/// static token and a verifier everything passes.
///
/// Refusals: no header, another scheme or an empty token → `missing` (401, with
/// `WWW-Authenticate: Bearer`); a JWT that fails verification → `invalidToken` (401, with
/// `error="invalid_token"`); another static token → `invalid` (403); a valid JWT without the
/// permission → `notPermitted` (403). The refusal's body is the group's own: WHIP/WHEP answer
/// in plain text or problem+json, the camera API in Google's error JSON.
///
/// `SluiceHTTPServer.router()` puts every route that hands out media or session data behind
/// one of these; handlers do not check tokens themselves.
public struct BearerTokenMiddleware<Context: RequestContext>: RouterMiddleware {
    /// Why a request was refused, passed to `refuse` to build the group's response.
    public enum Refusal: Sendable, Equatable {
        /// No bearer token: answered `401`.
        case missing
        /// Not the configured token (and no JWT verifier): answered `403`.
        case invalid
        /// A JWT that did not verify, and why: answered `401`.
        case invalidToken(String)
        /// A valid JWT whose permissions do not grant this request: answered `403`.
        case notPermitted(AccessRequest)
    }

    /// nil: no static token.
    public let token: String?
    /// nil: no JWTs.
    public let jwt: JWTVerifier?
    /// The response for a refused request (its status should be 401 or 403).
    public let refuse: @Sendable (Refusal) -> Response

    /// A middleware that accepts `token` or JWTs `jwt` verifies (neither: every request), and
    /// answers refusals with `refuse`.
    public init(token: String?, jwt: JWTVerifier? = nil, refuse: @escaping @Sendable (Refusal) -> Response) {
        self.token = token
        self.jwt = jwt
        self.refuse = refuse
    }

    /// Runs the rest of the chain only for a request the static token or a JWT admits.
    public func handle(
        _ request: Request, context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard token != nil || jwt != nil else { return try await next(request, context) }
        let header = request.headers[.authorization]
        if let token, BearerToken.check(header, token: token) == .accepted { return try await next(request, context) }
        guard let bearer = BearerToken.value(header) else { return challenge(refuse(.missing), error: nil) }
        guard let jwt else { return refuse(.invalid) }
        switch await jwt.verify(bearer) {
        case .failure(let refusal):
            return challenge(refuse(.invalidToken(refusal.reason)), error: "invalid_token")
        case .success(let claims):
            let asked = AccessRequest.forPath(request.uri.path)
            guard claims.permits(asked) else { return refuse(.notPermitted(asked)) }
            return try await next(request, context)
        }
    }

    /// `response` with `WWW-Authenticate: Bearer` (RFC 6750 §3) unless it has one.
    private func challenge(_ response: Response, error: String?) -> Response {
        var response = response
        if response.headers[.wwwAuthenticate] == nil {
            response.headers[.wwwAuthenticate] = BearerToken.challenge + (error.map { ", error=\"\($0)\"" } ?? "")
        }
        return response
    }
}
