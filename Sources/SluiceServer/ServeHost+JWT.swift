import Foundation
import Logging

extension ServeHost {
    /// Where `sluice serve --jwks` reads its keys and what its tokens must say.
    public struct JWTOptions: Sendable {
        /// The key set: a file, or an `http(s)://` URL reloaded every `refresh` seconds.
        public var source: JWKSSource
        /// What a token's `iss`, `aud`, `exp` and `nbf` must say.
        public var policy: JWTVerifier.Policy

        /// Options for the key set at `source`, checked with `policy`.
        public init(source: JWKSSource, policy: JWTVerifier.Policy) {
            self.source = source
            self.policy = policy
        }
    }

    /// The verifier of `options.jwt` with its keys loaded, or nil without `--jwks`. A key set
    /// that cannot be read or used stops the server before it listens.
    func loadJWT() async throws -> JWTVerifier? {
        guard let jwt = options.jwt else { return nil }
        do {
            let verifier = try await JWTVerifier(jwks: jwt.source.read(), policy: jwt.policy)
            let ids = await verifier.keyIDs.joined(separator: ", ")
            let fresh = jwt.source.isURL ? ", reloaded every \(Int(jwt.source.refresh)) s" : ""
            report(.info("sluice serve: JWTs verified against \(jwt.source.location) (keys \(ids)\(fresh))"))
            return verifier
        } catch {
            throw Failure(kind: .usage, description: "--jwks \(jwt.source.location): \(error.description)")
        }
    }

    /// Reloads a URL key set until the returned task is cancelled; nil for a file.
    func refreshJWT(_ verifier: JWTVerifier?) -> Task<Void, Never>? {
        guard let verifier, let source = options.jwt?.source, source.isURL else { return nil }
        return Task { await source.keepFresh(verifier, logger: Logger(label: "sluice.serve")) }
    }
}
