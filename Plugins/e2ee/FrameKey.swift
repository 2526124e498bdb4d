import Crypto
import Foundation
import _CryptoExtras

/// Key material as LiveKit's end-to-end encryption uses it (client-sdk-js `src/e2ee`): a
/// passphrase (PBKDF2) or raw bytes (HKDF), from which the frames' AES-GCM key is derived and
/// which ratchets forward to the next material.
public struct FrameKeyMaterial: Sendable, Equatable {
    /// How the material turns into keys.
    public enum Kind: Sendable, Equatable {
        /// A passphrase: PBKDF2-SHA256, 100 000 rounds.
        case passphrase
        /// Raw key bytes: HKDF-SHA256 with 128 zero bytes of info.
        case raw
    }

    /// LiveKit's salt, the same for every room unless set otherwise.
    public static let defaultSalt = "LKFrameEncryptionKey"

    /// The material's kind.
    public let kind: Kind
    /// The material's bytes (the passphrase's UTF-8 bytes, or the raw key).
    public let bytes: [UInt8]
    /// The salt keys and ratchets are derived with.
    public let salt: [UInt8]

    /// Material from a passphrase.
    public init(passphrase: String, salt: String = FrameKeyMaterial.defaultSalt) {
        self.init(kind: .passphrase, bytes: Array(passphrase.utf8), salt: Array(salt.utf8))
    }

    /// Material from raw key bytes.
    public init(raw: [UInt8], salt: String = FrameKeyMaterial.defaultSalt) {
        self.init(kind: .raw, bytes: raw, salt: Array(salt.utf8))
    }

    /// Material of `kind` from its parts.
    public init(kind: Kind, bytes: [UInt8], salt: [UInt8]) {
        self.kind = kind; self.bytes = bytes; self.salt = salt
    }

    /// `bits` bits derived from the material, as WebCrypto's `deriveBits` with LiveKit's
    /// parameters gives them.
    public func deriveBits(_ bits: Int) throws -> [UInt8] {
        let key: SymmetricKey
        switch kind {
        case .passphrase:
            key = try KDF.Insecure.PBKDF2.deriveKey(
                from: bytes, salt: salt, using: .sha256, outputByteCount: bits / 8, unsafeUncheckedRounds: 100_000)
        case .raw:
            key = HKDF<SHA256>.deriveKey(
                inputKeyMaterial: SymmetricKey(data: bytes), salt: salt, info: [UInt8](repeating: 0, count: 128),
                outputByteCount: bits / 8)
        }
        return key.withUnsafeBytes { Array($0) }
    }

    /// The AES-GCM-128 key the frames are encrypted with.
    public func frameKey() throws -> SymmetricKey { SymmetricKey(data: try deriveBits(128)) }

    /// The next material: 256 bits derived from this one, used as material of the same kind.
    public func ratcheted() throws -> FrameKeyMaterial {
        FrameKeyMaterial(kind: kind, bytes: try deriveBits(256), salt: salt)
    }
}
