import Foundation
import JWTKit
import SluiceServer
import XCTest

/// `JWTVerifier` with a P-256 key made here: its JWKS, tokens jwt-kit signs, and the checks
/// the server's policy adds. (Tokens from another implementation, PyJWT, and the other two
/// algorithms are `JWTEndToEndTests`'.)
final class JWTVerifierTests: XCTestCase {
    struct Claims: JWTPayload {
        var iss: IssuerClaim?
        var aud: AudienceClaim?
        var exp: ExpirationClaim?
        var nbf: NotBeforeClaim?
        var sluice_permissions: [Permission]?
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    let key = ES256PrivateKey()
    let now = Date()

    func jwks(kid: String = "k1", alg: String = "ES256") throws -> String {
        let p = try XCTUnwrap(key.publicKey.parameters)
        return #"{"keys": [{"kty": "EC", "crv": "P-256", "kid": "\#(kid)", "alg": "\#(alg)", "use": "sig", "x": "\#(p.x)", "y": "\#(p.y)"}]}"#
    }

    func token(_ claims: Claims, kid: String = "k1") async throws -> String {
        let keys = await JWTKeyCollection().add(ecdsa: key, kid: JWKIdentifier(string: kid))
        return try await keys.sign(claims, kid: JWKIdentifier(string: kid))
    }

    func claims(exp: TimeInterval = 600, nbf: TimeInterval? = nil, iss: String = "https://id.test", aud: String = "sluice") -> Claims {
        Claims(
            iss: .init(value: iss), aud: .init(value: [aud]), exp: .init(value: now.addingTimeInterval(exp)),
            nbf: nbf.map { .init(value: now.addingTimeInterval($0)) }, sluice_permissions: [Permission(action: "read", path: "cam-*")])
    }

    func testAGoodTokenVerifiesAndCarriesItsPermissions() async throws {
        let v = try await JWTVerifier(jwks: jwks(), policy: .init(issuer: "https://id.test", audience: "sluice"))
        let result = await v.verify(try await token(claims()), now: now)
        let verified = try result.get()
        XCTAssertTrue(verified.permits(.init(.read, "cam-2")))
        XCTAssertFalse(verified.permits(.init(.read, "door")))
        XCTAssertFalse(verified.permits(.init(.publish, "cam-2")))
    }

    /// Each refusal names what was wrong; the 30 s leeway admits a token just expired.
    func testThePolicyRefusesWhatTheSignatureAloneWouldAdmit() async throws {
        let v = try await JWTVerifier(jwks: jwks(), policy: .init(issuer: "https://id.test", audience: "sluice"))
        let cases: [(String, Claims, String)] = [
            ("expired", claims(exp: -120), "expired"),
            ("not yet", claims(nbf: 600), "not valid yet"),
            ("issuer", claims(iss: "https://evil.test"), "issuer"),
            ("audience", claims(aud: "other"), "audience"),
            ("no exp", Claims(iss: "https://id.test", aud: "sluice", sluice_permissions: []), "no expiry")
        ]
        for (name, c, words) in cases {
            let result = await v.verify(try await token(c), now: now)
            guard case .failure(let refusal) = result else { XCTFail("\(name) was admitted"); continue }
            XCTAssertTrue(refusal.reason.contains(words), "\(name): \(refusal.reason)")
        }
        let justExpired = await v.verify(try await token(claims(exp: -10)), now: now)
        XCTAssertNoThrow(try justExpired.get(), "10 s past exp is within the leeway")
    }

    /// A token is refused before any signature check when its header's key or algorithm is
    /// not the set's, when it is not three base64url parts, or when it is too long.
    func testHeadersAndShapesAreCheckedFirst() async throws {
        let v = try await JWTVerifier(jwks: jwks(), policy: .init())
        let good = try await token(claims())
        let parts = good.split(separator: ".").map(String.init)
        let header = { (json: String) in Data(json.utf8).base64EncodedString().replacingOccurrences(of: "=", with: "") }
        let cases: [(String, String, String)] = [
            ("unknown kid", try await token(claims(), kid: "k2"), "key id"),
            ("alg none", "\(header(#"{"alg":"none","kid":"k1"}"#)).\(parts[1]).", "'none'"),
            ("alg mismatch", "\(header(#"{"alg":"RS256","kid":"k1"}"#)).\(parts[1]).\(parts[2])", "does not match"),
            ("bad signature", "\(parts[0]).\(parts[1]).\(parts[2].reversed().map(String.init).joined())", "signature"),
            ("two parts", "\(parts[0]).\(parts[1])", "not a JWT"),
            ("not base64", "%%%.%%%.%%%", "not a JWT"),
            ("too long", "\(parts[0]).\(String(repeating: "A", count: 9000)).\(parts[2])", "longer than")
        ]
        for (name, t, words) in cases {
            let result = await v.verify(t, now: now)
            guard case .failure(let refusal) = result else { XCTFail("\(name) was admitted"); continue }
            XCTAssertTrue(refusal.reason.contains(words), "\(name): \(refusal.reason)")
        }
    }

    /// A set that is not JSON, has no signing key with a kid, or holds a key type jwt-kit does not
    /// use is refused with a sentence; loading a bad set over a good one keeps the good keys.
    func testBadKeySetsAreRefusedAndKeepTheKeysInUse() async throws {
        for bad in ["not json", #"{"keys": []}"#, #"{"keys": [{"kty": "nope", "kid": "x"}]}"#] {
            do {
                _ = try await JWTVerifier(jwks: bad, policy: .init())
                XCTFail("\(bad) was accepted")
            } catch {
                XCTAssertFalse(error.description.isEmpty)
            }
        }
        let v = try await JWTVerifier(jwks: jwks(), policy: .init())
        do { try await v.load("not json") } catch {}
        let result = await v.verify(try await token(claims()), now: now)
        XCTAssertNoThrow(try result.get(), "the keys in use stay after a bad reload")
    }
}
