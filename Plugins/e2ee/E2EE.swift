import Crypto
import Foundation
import SluiceFilterKit

/// End-to-end encryption of encoded frames in LiveKit's format (`FrameCrypto`): put it in
/// `send.*.encoded_filters` to encrypt and in `receive.*.encoded_filters` to decrypt, with
/// the same `passphrase` (PBKDF2) or raw `key` (hex, HKDF). An SFU between the two forwards
/// frames it cannot read; a LiveKit client with the same key reads them.
///
/// - `passphrase` / `key`: exactly one; write-only element properties, so never in a graph
///   picture, a log or the report.
/// - `key_index` (0…255, default 0): the index the sender writes in each frame's trailer; a
///   receiver keys by it too.
/// - `ratchet_window` (0…32, default 8): a receiver whose key fails tries the next this many
///   ratchet steps of it (a sender that ratcheted), and keeps the one that works.
///
/// A frame that does not decrypt (wrong or missing key, damage, a frame in the clear) is
/// dropped, never passed to the decoder; a `decrypt-failed` event says how many, at most
/// once a second.
public final class E2EE: EncodedFrameFilter {
    public static let name = "e2ee"
    public static let summary = "Encrypts (send) or decrypts (receive) encoded frames end to end, in LiveKit's format"
    /// Opus and VP8 (packetized by Sluice's own payloader, which does not parse the frame).
    /// The format covers VP9 and H.264 too (`FrameCrypto`); they wait for the same.
    public static let codecs: [EncodedCodec] = [.vp8, .opus]
    public static let parameters: [FilterParameter] = [
        FilterParameter("passphrase", .string(choices: nil), default: .string(""), summary: "shared passphrase (PBKDF2)", secret: true),
        FilterParameter("key", .string(choices: nil), default: .string(""), summary: "shared raw key, hex (HKDF)", secret: true),
        FilterParameter("key_index", .integer(min: 0, max: 255), default: .integer(0), summary: "key index written in each frame"),
        FilterParameter(
            "ratchet_window", .integer(min: 0, max: 32), default: .integer(8), summary: "ratchet steps a receiver tries on failure")
    ]

    /// Settings that cannot make a key.
    public struct BadKey: Error, CustomStringConvertible {
        public let description: String
    }

    private var material: FrameKeyMaterial
    private var key: SymmetricKey
    private let keyIndex: UInt8
    private let ratchetWindow: Int
    private let ivPrefix = UInt32.random(in: 0...UInt32.max)
    private var sent: UInt32 = 0
    private var failures = 0
    private var lastReport: ContinuousClock.Instant?
    /// Ratchet steps ahead of `material`, derived on the first failure.
    private var ahead: [RatchetStep] = []

    /// One ratchet step: its material and the frame key it gives.
    private struct RatchetStep {
        var material: FrameKeyMaterial
        var key: SymmetricKey
    }

    public convenience init(configuration c: FilterConfiguration) throws {
        try self.init(
            material: Self.material(passphrase: c.string("passphrase"), hexKey: c.string("key")),
            keyIndex: UInt8(c.integer("key_index")), ratchetWindow: c.integer("ratchet_window"))
    }

    /// A filter with `material`, writing (and expecting) `keyIndex`.
    public init(material: FrameKeyMaterial, keyIndex: UInt8 = 0, ratchetWindow: Int = 8) throws {
        self.material = material
        key = try material.frameKey()
        self.keyIndex = keyIndex
        self.ratchetWindow = ratchetWindow
    }

    /// The material the settings give: a passphrase or a hex key, exactly one.
    static func material(passphrase: String, hexKey: String) throws -> FrameKeyMaterial {
        switch (passphrase.isEmpty, hexKey.isEmpty) {
        case (false, true): return FrameKeyMaterial(passphrase: passphrase)
        case (true, false):
            guard let bytes = Self.bytes(hex: hexKey), (16...64).contains(bytes.count) else {
                throw BadKey(description: "e2ee: `key` is 16 to 64 bytes written in hex (32 to 128 hex digits)")
            }
            return FrameKeyMaterial(raw: bytes)
        default:
            throw BadKey(description: "e2ee: give exactly one of `passphrase` and `key`")
        }
    }

    private static func bytes(hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        for i in stride(from: 0, to: digits.count, by: 2) {
            guard let byte = UInt8(String(decoding: digits[i..<(i + 2)], as: UTF8.self), radix: 16) else { return nil }
            out.append(byte)
        }
        return out
    }

    public func process(_ frame: borrowing EncodedFrame, context: FilterContext) throws -> EncodedVerdict {
        guard frame.bytes.count > 0 else { return .keep } // empty (DTX): as LiveKit, untouched
        switch frame.direction {
        case .send:
            return .replace(
                try FrameCrypto.encrypt(frame.bytes, codec: frame.codec, keyframe: frame.isKeyframe, key: key, keyIndex: keyIndex, iv: nextIV(frame)))
        case .receive:
            if let plain = decrypt(frame) { return .replace(plain) }
            failures += 1
            reportFailures(context)
            return .drop
        }
    }

    /// A unique IV per frame: this instance's random prefix, the PTS in 90 kHz units, a counter.
    private func nextIV(_ frame: borrowing EncodedFrame) -> [UInt8] {
        let ts = UInt32(truncatingIfNeeded: (frame.pts ?? 0) / 11_111)
        sent &+= 1
        return [ivPrefix, ts, sent].flatMap { v in [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: v >> UInt32($0)) } }
    }

    /// The plaintext with the current key, or with a ratchet step of it (which then becomes
    /// the current one); nil if none opens it or it names another key index.
    private func decrypt(_ frame: borrowing EncodedFrame) -> [UInt8]? {
        guard FrameCrypto.keyIndex(of: frame.bytes) == keyIndex else { return nil }
        if let plain = try? FrameCrypto.decrypt(frame.bytes, codec: frame.codec, keyframe: frame.isKeyframe, key: key) { return plain }
        for (i, step) in stepsAhead().enumerated() {
            if let plain = try? FrameCrypto.decrypt(frame.bytes, codec: frame.codec, keyframe: frame.isKeyframe, key: step.key) {
                material = step.material; key = step.key
                ahead.removeFirst(i + 1)
                return plain
            }
        }
        return nil
    }

    /// The next `ratchet_window` ratchet steps of the current material, derived once (PBKDF2
    /// is slow on purpose: a failing frame must not pay it again).
    private func stepsAhead() -> [RatchetStep] {
        while ahead.count < ratchetWindow {
            guard let m = try? (ahead.last?.material ?? material).ratcheted(), let k = try? m.frameKey() else { break }
            ahead.append(RatchetStep(material: m, key: k))
        }
        return ahead
    }

    /// A `decrypt-failed` event with the frames that failed since the last, at most once a second.
    private func reportFailures(_ context: FilterContext) {
        let now = ContinuousClock.now
        if let last = lastReport, now - last < .seconds(1) { return }
        lastReport = now
        context.emit("decrypt-failed", ["frames": Double(failures)])
        failures = 0
    }
}
