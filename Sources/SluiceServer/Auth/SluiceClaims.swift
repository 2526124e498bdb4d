import JWTKit

/// The claims Sluice reads from a bearer JWT: the registered ones it checks (issuer,
/// audience, expiry, not-before) and `sluice_permissions`. Checking is `JWTVerifier`'s job,
/// with the server's policy; `verify(using:)` only insists that a token can expire.
public struct SluiceClaims: JWTPayload, Equatable {
    /// `iss`.
    public var iss: IssuerClaim?
    /// `aud`: one audience or several.
    public var aud: AudienceClaim?
    /// `exp`: required; a token that never expires is refused.
    public var exp: ExpirationClaim?
    /// `nbf`.
    public var nbf: NotBeforeClaim?
    /// `sub`, for the logs.
    public var sub: SubjectClaim?
    /// What the token may do.
    public var sluicePermissions: [Permission]?

    enum CodingKeys: String, CodingKey {
        case iss, aud, exp, nbf, sub
        case sluicePermissions = "sluice_permissions"
    }

    /// Whether one of the token's permissions grants `request`.
    public func permits(_ request: AccessRequest) -> Bool {
        (sluicePermissions ?? []).contains { $0.allows(request) }
    }

    /// Nothing beyond decoding: `JWTVerifier.check` applies the server's policy.
    public func verify(using algorithm: some JWTAlgorithm) async throws {}
}
