import Foundation
import HTTPTypes
import Hummingbird
import SluiceControlAPI
import SluiceSignalling

/// Who may use the control API: an admin token may do everything; a viewer token may read
/// (GET); reads may be open to anyone (`publicRead`). With no admin token configured the API
/// is open, which `ControlAPIAccess.check` allows only on a loopback address.
public struct ControlAPIAccess: Sendable {
    /// Bearer tokens that may do everything, reads and changes (`--admin-token`). Empty: the API
    /// is open.
    public var adminTokens: [String]
    /// Bearer tokens that may only read, GET and HEAD (`--viewer-token`).
    public var viewerTokens: [String]
    /// Whether anyone may read (GET and HEAD) without a token when admin tokens are set
    /// (`--public-read`).
    public var publicRead: Bool

    /// Access with these tokens; empty tokens are dropped. Call `bound(to:)` before serving.
    public init(adminTokens: [String] = [], viewerTokens: [String] = [], publicRead: Bool = false) {
        self.adminTokens = adminTokens.filter { !$0.isEmpty }
        self.viewerTokens = viewerTokens.filter { !$0.isEmpty }
        self.publicRead = publicRead
    }

    /// JWTs (`sluice serve --jwks`): one whose `sluice_permissions` has the `api` action
    /// may do what an admin token may, on the pipelines its `path` pattern names.
    public var jwt: JWTVerifier?

    /// Whether the API is open to anyone (no admin token and no JWTs).
    public var isOpen: Bool { adminTokens.isEmpty && jwt == nil }
    /// Whether an open API lets anyone change pipelines: only on a loopback address
    /// (see `bound(to:)`); elsewhere changes need `--admin-token`.
    public var openWrites = true

    /// This access for a server bound to `host`: without an admin token, changes are allowed
    /// on a loopback address only.
    public func bound(to host: String) -> ControlAPIAccess {
        var a = self
        a.openWrites = host == "127.0.0.1" || host == "::1" || host == "localhost" || host.hasPrefix("127.")
        return a
    }

    enum Scope { case viewer, admin }

    /// The scope a token has, or nil for none.
    func scope(of header: String?) -> (verdict: BearerToken.Verdict, scope: Scope?) {
        for t in adminTokens where BearerToken.check(header, token: t) == .accepted { return (.accepted, .admin) }
        for t in viewerTokens where BearerToken.check(header, token: t) == .accepted { return (.accepted, .viewer) }
        guard let header, header.count > 7, header.prefix(7).lowercased() == "bearer " else { return (.missing, nil) }
        return (.invalid, nil)
    }
}

/// Enforces `ControlAPIAccess` on the API's routes before any handler runs: no or unknown
/// token → 401 (`WWW-Authenticate: Bearer`), a viewer token on a change → 403. Refusals are
/// problem+json.
struct APIAuthMiddleware<Context: RequestContext>: RouterMiddleware {
    let access: ControlAPIAccess

    func handle(
        _ request: Request, context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let reading = request.method == .get || request.method == .head
        if access.isOpen {
            if reading || access.openWrites { return try await next(request, context) }
            return Problem.response(.forbidden, "this server has no admin token: start it with --admin-token to change pipelines from other hosts")
        }
        if reading && access.publicRead { return try await next(request, context) }
        let (verdict, scope) = access.scope(of: request.headers[.authorization])
        switch (verdict, scope) {
        case (.accepted, .admin?): return try await next(request, context)
        case (.accepted, .viewer?) where reading: return try await next(request, context)
        case (.accepted, _):
            return Problem.response(.forbidden, "this token has the viewer scope; changing a pipeline needs an admin token")
        case (.missing, _):
            var r = Problem.response(.unauthorized, "send Authorization: Bearer <token>")
            r.headers[.wwwAuthenticate] = BearerToken.challenge
            return r
        case (.invalid, _):
            guard let jwt = access.jwt, let bearer = BearerToken.value(request.headers[.authorization]) else {
                return Self.invalidToken("the token is not one this server knows")
            }
            switch await jwt.verify(bearer) {
            case .failure(let refusal): return Self.invalidToken(refusal.reason)
            case .success(let claims):
                let asked = AccessRequest.forPath(request.uri.path)
                guard claims.permits(asked) else {
                    return Problem.response(.forbidden, "the token's sluice_permissions do not grant \(asked)")
                }
                return try await next(request, context)
            }
        }
    }

    /// A 401 for a token that is not this server's, or a JWT that did not verify.
    static func invalidToken(_ reason: String) -> Response {
        var r = Problem.response(.unauthorized, reason)
        r.headers[.wwwAuthenticate] = BearerToken.challenge + ", error=\"invalid_token\""
        return r
    }
}

/// `application/problem+json` responses (RFC 9457) built outside the generated handlers:
/// the same `Problem` schema the generated ones encode.
enum Problem {
    static func response(_ status: HTTPResponse.Status, _ detail: String, errors: [String] = []) -> Response {
        Response(
            status: status, headers: [.contentType: "application/problem+json"],
            body: .init(byteBuffer: ByteBuffer(bytes: body(status, detail, errors: errors))))
    }

    /// The JSON body for `status` (its reason phrase as the title).
    static func body(_ status: HTTPResponse.Status, _ detail: String, errors: [String] = []) -> Data {
        let problem = Components.Schemas.Problem(
            title: status.reasonPhrase, status: status.code, detail: detail,
            errors: errors.isEmpty ? nil : errors)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(problem)) ?? Data()
    }
}
