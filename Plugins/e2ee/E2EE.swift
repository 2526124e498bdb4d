import Crypto
import Foundation
import SluiceFilterKit

/// End-to-end encryption of encoded frames in LiveKit's format (`FrameCrypto`): put it in
/// `send.*.encoded_filters` to encrypt and in `receive.*.encoded_filters` to decrypt, with
/// the same key. An SFU between the two forwards frames it cannot read; a LiveKit client
/// with the same key reads them.
///
/// - The key, exactly one of: `passphrase` (PBKDF2) or `key` (hex, HKDF), write-only element
///   properties, so never in a graph picture, a log or the report; or `passphrase_file` /
///   `key_file`, a file holding one (a mounted secret; surrounding white space ignored).
/// - `key_index` (0…255, default 0): the index the sender writes in each frame's trailer; a
///   receiver keys by it too.
/// - `ratchet` (0…64, default 0): ratchet steps applied to the key (each one PBKDF2 or HKDF
///   derivation). Raising it while the pipeline runs ratchets forward without a restart.
/// - `ratchet_window` (0…32, default 8): a receiver whose key fails tries the next this many
///   ratchet steps of it (a sender that ratcheted), and keeps the one that works.
/// - `previous_key_ms` (0…60 000, default 5000): after its key changes while running, a
///   receiver still opens frames with the key it had for this long (frames in flight, a
///   sender that changes later).
///
/// A frame that does not decrypt (wrong or missing key, damage, a frame in the clear) is
/// dropped, never passed to the decoder; a `decrypt-failed` event says how many, at most
/// once a second. A sender whose key changes while running goes on counting its IVs.
public final class E2EE: EncodedFrameFilter {
    public static let name = "e2ee"
    public static let summary = "Encrypts (send) or decrypts (receive) encoded frames end to end, in LiveKit's format"
    /// Opus, VP8 (packetized by Sluice's own payloader, which does not parse the frame) and
    /// H.264 (after h264parse, whose slice parsing the encrypted frame would fail; the slice
    /// header's first two bytes stay clear for rtph264pay and SFUs). The format covers VP9 too
    /// (`FrameCrypto`); it waits for a payloader that does not parse the frame, as VP8 has.
    public static let codecs: [EncodedCodec] = [.vp8, .vp9, .h264, .opus]
    public static let parameters: [FilterParameter] = [
        FilterParameter("passphrase", .string(choices: nil), default: .string(""), summary: "shared passphrase (PBKDF2)", secret: true),
        FilterParameter("key", .string(choices: nil), default: .string(""), summary: "shared raw key, hex (HKDF)", secret: true),
        FilterParameter("passphrase_file", .string(choices: nil), default: .string(""), summary: "a file holding the passphrase"),
        FilterParameter("key_file", .string(choices: nil), default: .string(""), summary: "a file holding the raw key, hex"),
        FilterParameter("key_index", .integer(min: 0, max: 255), default: .integer(0), summary: "key index written in each frame"),
        FilterParameter("ratchet", .integer(min: 0, max: 64), default: .integer(0), summary: "ratchet steps applied to the key"),
        FilterParameter(
            "ratchet_window", .integer(min: 0, max: 32), default: .integer(8), summary: "ratchet steps a receiver tries on failure"),
        FilterParameter(
            "previous_key_ms", .integer(min: 0, max: 60_000), default: .integer(5000),
            summary: "how long a receiver keeps its key after a change")
    ]

    /// Settings that cannot make a key: which setting, and why.
    public struct BadKey: Error, CustomStringConvertible {
        /// The setting at fault.
        public let setting: String
        public let description: String
    }

    private var material: FrameKeyMaterial
    private var key: SymmetricKey
    private let keyIndex: UInt8
    private let ratchetWindow: Int
    private let previousKeyWindow: Duration
    private var ivPrefix = UInt32.random(in: 0...UInt32.max)
    private var sent: UInt32 = 0
    private var failures = 0
    private var lastReport: ContinuousClock.Instant?
    /// Ratchet steps ahead of `material`, derived on the first failure.
    private var ahead: [RatchetStep] = []
    /// The key before a change while running, and until when a receiver still tries it.
    private var previous: PreviousKey?

    private struct PreviousKey {
        var key: SymmetricKey
        var until: ContinuousClock.Instant
    }

    /// One ratchet step: its material and the frame key it gives.
    private struct RatchetStep {
        var material: FrameKeyMaterial
        var key: SymmetricKey
    }

    public convenience init(configuration c: FilterConfiguration) throws {
        var material = try Self.material(c)
        for _ in 0..<c.integer("ratchet") { material = try material.ratcheted() }
        try self.init(
            material: material, keyIndex: UInt8(c.integer("key_index")), ratchetWindow: c.integer("ratchet_window"),
            previousKeyMilliseconds: c.integer("previous_key_ms"))
    }

    /// A filter with `material`, writing (and expecting) `keyIndex`.
    public init(material: FrameKeyMaterial, keyIndex: UInt8 = 0, ratchetWindow: Int = 8, previousKeyMilliseconds: Int = 5000) throws {
        self.material = material
        key = try material.frameKey()
        self.keyIndex = keyIndex
        self.ratchetWindow = ratchetWindow
        previousKeyWindow = .milliseconds(previousKeyMilliseconds)
    }

    /// The key given twice, or not at all, or a hex key or a file that cannot be read, as
    /// validation reports them.
    public static func problems(_ c: FilterConfiguration) -> [FilterSettingProblem] {
        do {
            _ = try material(c)
            return []
        } catch let bad as BadKey {
            return [FilterSettingProblem(setting: bad.setting, message: bad.description)]
        } catch {
            return [FilterSettingProblem(setting: "passphrase", message: "\(error)")]
        }
    }

    /// Carries over the IV counter (a sender's IVs stay unique if the key did not change) and,
    /// when the key did change, the old key for `previous_key_ms`.
    public func `continue`(from old: E2EE) {
        ivPrefix = old.ivPrefix
        sent = old.sent
        lastReport = old.lastReport
        let oldKey = old.key.withUnsafeBytes { Array($0) }, newKey = key.withUnsafeBytes { Array($0) }
        if oldKey != newKey {
            previous = PreviousKey(key: old.key, until: ContinuousClock.now + previousKeyWindow)
        } else {
            previous = old.previous
        }
    }

    /// The material the settings give: exactly one of a passphrase, a hex key, or a file
    /// holding either.
    static func material(_ c: FilterConfiguration) throws -> FrameKeyMaterial {
        let given = ["passphrase", "key", "passphrase_file", "key_file"].filter { !c.string($0).isEmpty }
        guard given.count == 1, let setting = given.first else {
            throw BadKey(
                setting: given.dropFirst().first ?? "passphrase",
                description: "give exactly one of `passphrase`, `key`, `passphrase_file` and `key_file`"
                    + (given.isEmpty ? " (for example `passphrase: ${E2EE_PASSPHRASE}`)" : "; this one gives \(given.joined(separator: " and "))"))
        }
        var text = c.string(setting)
        if setting.hasSuffix("_file") {
            guard let data = FileManager.default.contents(atPath: text) else {
                throw BadKey(setting: setting, description: "cannot read `\(setting)` \(text): no such file, or not readable")
            }
            text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard !text.isEmpty else { throw BadKey(setting: setting, description: "`\(setting)` \(c.string(setting)) is empty") }
        }
        if setting.hasPrefix("passphrase") { return FrameKeyMaterial(passphrase: text) }
        guard let bytes = Self.bytes(hex: text), (16...64).contains(bytes.count) else {
            throw BadKey(setting: setting, description: "the raw key is 16 to 64 bytes written in hex (32 to 128 hex digits)")
        }
        return FrameKeyMaterial(raw: bytes)
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
        if let old = previous {
            if ContinuousClock.now < old.until {
                if let plain = try? FrameCrypto.decrypt(frame.bytes, codec: frame.codec, keyframe: frame.isKeyframe, key: old.key) { return plain }
            } else {
                previous = nil
            }
        }
        var i = 0
        while i < ratchetWindow, let step = step(i) {
            if let plain = try? FrameCrypto.decrypt(frame.bytes, codec: frame.codec, keyframe: frame.isKeyframe, key: step.key) {
                material = step.material; key = step.key
                ahead.removeFirst(i + 1)
                return plain
            }
            i += 1
        }
        return nil
    }

    /// Ratchet step `i + 1` of the current material, derived when first needed and kept
    /// (PBKDF2 is slow on purpose: a sender one step ahead costs one derivation, and a
    /// failing frame never pays one again).
    private func step(_ i: Int) -> RatchetStep? {
        while ahead.count <= i {
            guard let m = try? (ahead.last?.material ?? material).ratcheted(), let k = try? m.frameKey() else { return nil }
            ahead.append(RatchetStep(material: m, key: k))
        }
        return ahead[i]
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
