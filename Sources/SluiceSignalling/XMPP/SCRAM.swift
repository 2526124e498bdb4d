import Crypto
import Foundation

/// SASL SCRAM (RFC 5802; SCRAM-SHA-256 from RFC 7677) on the client side, without channel
/// binding: the first message, the proof for the server's challenge, and the check of the
/// server's signature (which proves the server knew the password too).
public struct SCRAM: Sendable {
    /// The SASL mechanism: SCRAM-SHA-1 or SCRAM-SHA-256 (raw values are the mechanism names).
    public enum Hash: String, Sendable { case sha1 = "SCRAM-SHA-1", sha256 = "SCRAM-SHA-256" }

    /// A challenge or a server signature that fails the exchange.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// What is wrong with the server's message.
        public var description: String
    }

    /// The mechanism in use.
    public let hash: Hash
    private let user: String
    private let password: String
    private let clientNonce: String
    private var authMessage = ""
    private var serverSignature: [UInt8] = []
    /// Iteration counts above this are refused (a hostile server could ask for billions).
    public static let maxIterations = 1_000_000

    /// An exchange for `user` with `password`; `clientNonce` is random unless given (tests).
    public init(hash: Hash, user: String, password: String, clientNonce: String? = nil) {
        self.hash = hash
        self.user = user
        self.password = password
        self.clientNonce = clientNonce ?? Data((0..<18).map { _ in UInt8.random(in: 0...255) }).base64EncodedString()
    }

    private var clientFirstBare: String {
        let name = user.replacingOccurrences(of: "=", with: "=3D").replacingOccurrences(of: ",", with: "=2C")
        return "n=\(name),r=\(clientNonce)"
    }

    /// The client-first message ("n,," GS2 header: no channel binding, no authzid).
    public var clientFirst: String { "n,," + clientFirstBare }

    /// The client-final message answering `serverFirst` (`r=…,s=…,i=…`).
    public mutating func clientFinal(serverFirst: String) throws(Failure) -> String {
        var fields: [Character: String] = [:]
        for part in serverFirst.split(separator: ",") {
            guard part.count >= 2, part.dropFirst().first == "=", let key = part.first else { continue }
            fields[key] = String(part.dropFirst(2))
        }
        if serverFirst.hasPrefix("m=") { throw Failure(description: "the server asks for a SCRAM extension this client does not know") }
        guard let nonce = fields["r"], let saltText = fields["s"], let iterText = fields["i"] else {
            throw Failure(description: "the server's SCRAM challenge lacks r=, s= or i=")
        }
        guard nonce.hasPrefix(clientNonce), nonce.count > clientNonce.count else {
            throw Failure(description: "the server's SCRAM nonce does not extend this client's")
        }
        guard let salt = Data(base64Encoded: saltText), !salt.isEmpty else { throw Failure(description: "the server's SCRAM salt is not base64") }
        guard let iterations = Int(iterText), iterations >= 1, iterations <= Self.maxIterations else {
            throw Failure(description: "the server's SCRAM iteration count '\(iterText.prefix(12))' is out of range (1…\(Self.maxIterations))")
        }
        let salted = hi(Array(password.utf8), salt: Array(salt), iterations: iterations)
        let clientKey = hmac(salted, Array("Client Key".utf8))
        let storedKey = digest(clientKey)
        let withoutProof = "c=biws,r=\(nonce)"
        authMessage = clientFirstBare + "," + serverFirst + "," + withoutProof
        let signature = hmac(storedKey, Array(authMessage.utf8))
        let proof = zip(clientKey, signature).map { $0 ^ $1 }
        serverSignature = hmac(hmac(salted, Array("Server Key".utf8)), Array(authMessage.utf8))
        return withoutProof + ",p=" + Data(proof).base64EncodedString()
    }

    /// Checks the server-final message (`v=…`); throws on `e=` or a wrong signature.
    public func verify(serverFinal: String) throws(Failure) {
        if serverFinal.hasPrefix("e=") { throw Failure(description: "the server refused: \(serverFinal.dropFirst(2).prefix(80))") }
        guard serverFinal.hasPrefix("v="), let v = Data(base64Encoded: String(serverFinal.dropFirst(2).prefix { $0 != "," })) else {
            throw Failure(description: "the server's SCRAM final message has no signature")
        }
        guard !serverSignature.isEmpty, Array(v) == serverSignature else {
            throw Failure(description: "the server's SCRAM signature is wrong: it does not know this account's password")
        }
    }

    private func hmac(_ key: [UInt8], _ data: [UInt8]) -> [UInt8] {
        switch hash {
        case .sha1: Array(HMAC<Insecure.SHA1>.authenticationCode(for: data, using: SymmetricKey(data: key)))
        case .sha256: Array(HMAC<SHA256>.authenticationCode(for: data, using: SymmetricKey(data: key)))
        }
    }

    private func digest(_ data: [UInt8]) -> [UInt8] {
        switch hash {
        case .sha1: Array(Insecure.SHA1.hash(data: data))
        case .sha256: Array(SHA256.hash(data: data))
        }
    }

    /// Hi() of RFC 5802: PBKDF2 with HMAC, one output block.
    private func hi(_ password: [UInt8], salt: [UInt8], iterations: Int) -> [UInt8] {
        var u = hmac(password, salt + [0, 0, 0, 1])
        var out = u
        for _ in 1..<iterations {
            u = hmac(password, u)
            for i in out.indices { out[i] ^= u[i] }
        }
        return out
    }
}
