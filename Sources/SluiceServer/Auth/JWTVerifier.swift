import Foundation
import JWTKit

/// Verifies bearer JWTs against a JSON Web Key Set (`sluice serve --jwks`): the signature
/// with RS256, ES256 or EdDSA and a key the set names by `kid`, then the issuer, audience,
/// expiry and not-before with a small clock skew allowance. Everything else is refused
/// before any cryptography runs: tokens over 8 KB, `alg: none` and HMAC algorithms (an
/// HS256 token "signed" with a public key), a `kid` the set does not have, and anything that
/// is not three base64url parts.
public actor JWTVerifier {
    /// What a token must say besides its signature.
    public struct Policy: Sendable, Equatable {
        /// `iss` must be this, when set.
        public var issuer: String?
        /// `aud` must include this, when set.
        public var audience: String?
        /// Seconds of clock difference allowed for `exp` and `nbf`.
        public var leeway: Double = 30

        /// A policy checking `issuer` and `audience` when given.
        public init(issuer: String? = nil, audience: String? = nil, leeway: Double = 30) {
            self.issuer = issuer
            self.audience = audience
            self.leeway = leeway
        }
    }

    /// The signature algorithms accepted, by their JOSE names.
    public static let algorithms: Set<String> = ["RS256", "ES256", "EdDSA"]
    /// The longest token looked at, in bytes.
    public static let maxTokenBytes = 8192

    private var keys = JWTKeyCollection()
    private var kids: [String: String?] = [:]
    /// The policy tokens are checked against.
    public let policy: Policy

    /// A verifier with the keys of `jwks` (a JWKS document) and `policy`.
    public init(jwks: String, policy: Policy) async throws(JWKSError) {
        self.policy = policy
        try await load(jwks)
    }

    /// Replaces the keys with those of `jwks` (a refreshed set). On error the old keys stay.
    public func load(_ jwks: String) async throws(JWKSError) {
        let set: JWKSDocument
        do { set = try JSONDecoder().decode(JWKSDocument.self, from: Data(jwks.utf8)) } catch {
            throw JWKSError("the key set is not a JWKS document ({\"keys\": [...]}): \(error)")
        }
        let usable = set.keys.filter { $0.kid != nil && $0.use != "enc" }
        guard !usable.isEmpty else { throw JWKSError("the key set has no signing key with a 'kid'") }
        let fresh = JWTKeyCollection()
        do { _ = try await fresh.add(jwksJSON: jwks) } catch { throw JWKSError("a key of the set cannot be used: \(error)") }
        keys = fresh
        kids = Dictionary(usable.map { ($0.kid!, $0.alg) }, uniquingKeysWith: { a, _ in a })
    }

    /// The key ids loaded, for the logs.
    public var keyIDs: [String] { kids.keys.sorted() }

    /// The claims of `token` if it passes every check, or why not (a 401).
    public func verify(_ token: String, now: Date = Date()) async -> Result<SluiceClaims, JWTRefusal> {
        let header: JWTHeaderFields
        switch JWTHeaderFields.parse(token) {
        case .failure(let refusal): return .failure(refusal)
        case .success(let h): header = h
        }
        guard Self.algorithms.contains(header.alg) else {
            return .failure(JWTRefusal("the token's algorithm '\(header.alg.prefix(16))' is not accepted (RS256, ES256 or EdDSA)"))
        }
        guard let kid = header.kid, let expected = kids[kid] else {
            return .failure(JWTRefusal("the token's key id is not in the key set"))
        }
        if let expected, expected != header.alg {
            return .failure(JWTRefusal("the token's algorithm does not match its key's"))
        }
        let claims: SluiceClaims
        do { claims = try await keys.verify(token, as: SluiceClaims.self) } catch {
            return .failure(JWTRefusal("the token's signature does not verify"))
        }
        return check(claims, now: now).map { claims }
    }

    private func check(_ claims: SluiceClaims, now: Date) -> Result<Void, JWTRefusal> {
        guard let exp = claims.exp else { return .failure(JWTRefusal("the token has no expiry ('exp')")) }
        if exp.value.timeIntervalSince(now) < -policy.leeway { return .failure(JWTRefusal("the token has expired")) }
        if let nbf = claims.nbf, nbf.value.timeIntervalSince(now) > policy.leeway {
            return .failure(JWTRefusal("the token is not valid yet ('nbf')"))
        }
        if let issuer = policy.issuer, claims.iss?.value != issuer {
            return .failure(JWTRefusal("the token's issuer is not '\(issuer)'"))
        }
        if let audience = policy.audience, !(claims.aud?.value.contains(audience) ?? false) {
            return .failure(JWTRefusal("the token is not for audience '\(audience)'"))
        }
        return .success(())
    }
}

/// Why a bearer JWT was refused: answered 401 with this reason.
public struct JWTRefusal: Error, Sendable, Equatable {
    /// What was wrong, without echoing the token.
    public var reason: String
    /// A refusal for `reason`.
    public init(_ reason: String) { self.reason = reason }
}

/// A key set that cannot be used.
public struct JWKSError: Error, Sendable, CustomStringConvertible {
    /// What is wrong with it.
    public var description: String
    init(_ description: String) { self.description = description }
}

/// The fields of a JWKS that Sluice looks at before handing it to JWTKit.
struct JWKSDocument: Decodable {
    struct Key: Decodable {
        var kid: String?
        var alg: String?
        var use: String?
    }
    var keys: [Key]
}

/// A token's protected header, read before any signature check.
struct JWTHeaderFields: Decodable {
    var alg: String
    var kid: String?

    static func parse(_ token: String) -> Result<JWTHeaderFields, JWTRefusal> {
        guard token.utf8.count <= JWTVerifier.maxTokenBytes else {
            return .failure(JWTRefusal("the token is longer than \(JWTVerifier.maxTokenBytes) bytes"))
        }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let data = base64URL(parts[0]),
            let header = try? JSONDecoder().decode(JWTHeaderFields.self, from: data)
        else { return .failure(JWTRefusal("the token is not a JWT (three base64url parts, a JSON header)")) }
        return .success(header)
    }

    static func base64URL(_ part: Substring) -> Data? {
        var text = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while text.count % 4 != 0 { text += "=" }
        return Data(base64Encoded: text)
    }
}
