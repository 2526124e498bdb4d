import Crypto
import Foundation
import SluiceE2EE
import SluiceFilterKit
import XCTest

/// LiveKit's frame format against the vectors of its own tests (client-sdk-js 9380ed7a:
/// `FrameCryptor.test.ts`, `ParticipantKeyHandler.test.ts` and its snapshot).
final class FrameCryptoTests: XCTestCase {
    private func hex(_ s: String) -> [UInt8] {
        var out: [UInt8] = [], chars = Array(s.filter { !$0.isWhitespace })
        while chars.count >= 2 { out.append(UInt8(String(chars[0..<2]), radix: 16)!); chars.removeFirst(2) }
        return out
    }

    /// "decrypts frame with correct key" and "recovers from delayed use of rotated key":
    /// passphrase "key1", key index 1, a 10-byte clear header (VP8 keyframe rule).
    static let frameA: [UInt8] = [
        1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 254, 96, 91, 111, 187, 132, 31, 12, 207, 136, 17, 221,
        233, 116, 174, 6, 50, 37, 214, 71, 119, 196, 255, 255, 255, 255, 0, 0, 0, 0, 255, 255, 199, 51, 12, 1
    ]
    static let frameB: [UInt8] = [
        99, 2, 3, 4, 5, 6, 7, 8, 9, 10, 154, 108, 209, 239, 253, 33, 72, 111, 13, 125, 10,
        101, 28, 209, 141, 162, 0, 238, 189, 254, 66, 156, 255, 255, 255, 255, 0, 0, 0, 0, 255, 255, 96, 247, 12, 1
    ]

    func testLiveKitsFramesDecryptWithTheirPassphrase() throws {
        let key = try FrameKeyMaterial(passphrase: "key1").frameKey()
        XCTAssertEqual(key.withUnsafeBytes { Array($0) }, hex("7adabac1db9abf018ef98fdc737f4f2f"))
        let a = try Self.frameA.withUnsafeBytes { try FrameCrypto.decrypt($0, codec: .vp8, keyframe: true, key: key) }
        XCTAssertEqual(a, Array(1...16))
        let b = try Self.frameB.withUnsafeBytes { try FrameCrypto.decrypt($0, codec: .vp8, keyframe: true, key: key) }
        XCTAssertEqual(b, [99] + Array(2...16))
        XCTAssertEqual(Self.frameA.withUnsafeBytes { FrameCrypto.keyIndex(of: $0) }, 1)
    }

    func testEncryptingWithTheirIVGivesTheirBytes() throws {
        let key = try FrameKeyMaterial(passphrase: "key1").frameKey()
        let iv = Array(Self.frameA[32..<44])
        let plain: [UInt8] = Array(1...16)
        let sealed = try plain.withUnsafeBytes { try FrameCrypto.encrypt($0, codec: .vp8, keyframe: true, key: key, keyIndex: 1, iv: iv) }
        XCTAssertEqual(sealed, Self.frameA)
    }

    func testAWrongKeyOrADamagedFrameFailsWithoutReadingOutOfBounds() throws {
        let wrong = try FrameKeyMaterial(passphrase: "incorrect key").frameKey()
        XCTAssertThrowsError(try Self.frameA.withUnsafeBytes { try FrameCrypto.decrypt($0, codec: .vp8, keyframe: true, key: wrong) }) {
            XCTAssertEqual($0 as? FrameCrypto.Failure, .authentication)
        }
        let key = try FrameKeyMaterial(passphrase: "key1").frameKey()
        var damaged = Self.frameA
        damaged[12] ^= 1
        XCTAssertThrowsError(try damaged.withUnsafeBytes { try FrameCrypto.decrypt($0, codec: .vp8, keyframe: true, key: key) })
        var badIV = Self.frameA
        badIV[44] = 255
        XCTAssertThrowsError(try badIV.withUnsafeBytes { try FrameCrypto.decrypt($0, codec: .vp8, keyframe: true, key: key) }) {
            XCTAssertEqual($0 as? FrameCrypto.Failure, .badIVLength(255))
        }
        for n in 0..<Self.frameA.count {
            let short = Array(Self.frameA.prefix(n))
            XCTAssertThrowsError(try short.withUnsafeBytes { try FrameCrypto.decrypt($0, codec: .vp8, keyframe: true, key: key) })
        }
    }

    /// "ratchets keys predictably": passphrase "password", each step's key encrypts
    /// 0…16 with a zero IV and no additional data; the snapshot's first and last.
    func testTheRatchetFollowsLiveKitsSnapshot() throws {
        let expected = [
            hex("2ae25e3198124f0137befa508f1386dac837576675d982300b423f667390755ce8"),
            hex("04a4784cace1110eb0ba6f050ab01d2a13d748e3cb8bdb93554e3ebfba7bf83c93")
        ]
        let last = hex("3a63109794838a5ee65f265189a24e3df3cfff6d30f8d98785f8384a2971996cca")
        var material = FrameKeyMaterial(passphrase: "password")
        var outputs: [[UInt8]] = []
        for _ in 0..<10 {
            let box = try AES.GCM.seal(Array(0...16) as [UInt8], using: material.frameKey(), nonce: AES.GCM.Nonce(data: [UInt8](repeating: 0, count: 12)))
            outputs.append(Array(box.ciphertext) + Array(box.tag))
            material = try material.ratcheted()
        }
        XCTAssertEqual(Array(outputs.prefix(2)), expected)
        XCTAssertEqual(outputs.last, last)
    }

    func testRawKeysDeriveWithHKDF() throws {
        let key = try FrameKeyMaterial(raw: Array(0..<32)).frameKey()
        XCTAssertEqual(key.withUnsafeBytes { Array($0) }, hex("6d0dd7b3d6f4efde47ab9a9e15abde76"))
    }

    func testH264KeepsItsHeadersAndEscapesTheRest() throws {
        // AUD, SPS-like unit, then an IDR slice: the clear part ends 2 bytes into the slice.
        let frame: [UInt8] = [0, 0, 0, 1, 9, 0xF0, 0, 0, 0, 1, 0x67, 0x42, 0, 0, 0, 1, 0x65, 0x88, 0x84, 0, 0, 0, 0, 1, 2, 3]
        let clear = frame.withUnsafeBytes { FrameCrypto.clearBytes(codec: .h264, keyframe: true, frame: $0) }
        XCTAssertEqual(clear.count, 18)
        XCTAssertTrue(clear.escaped)
        let key = try FrameKeyMaterial(passphrase: "key1").frameKey()
        // Encrypted in its canonical form, which leaves the delimiter out: 12 clear bytes.
        let canonical = Array(frame.dropFirst(6))
        for _ in 0..<200 {
            let iv = (0..<12).map { _ in UInt8.random(in: 0...3) }
            let sealed = try frame.withUnsafeBytes { try FrameCrypto.encrypt($0, codec: .h264, keyframe: true, key: key, keyIndex: 0, iv: iv) }
            XCTAssertEqual(Array(sealed.prefix(12)), Array(canonical.prefix(12)))
            let tail = Array(sealed.dropFirst(12))
            for i in 0..<(tail.count - 2) { XCTAssertFalse(tail[i] == 0 && tail[i + 1] == 0 && tail[i + 2] <= 2, "no start code at \(i)") }
            XCTAssertEqual(try sealed.withUnsafeBytes { try FrameCrypto.decrypt($0, codec: .h264, keyframe: true, key: key) }, canonical)
        }
        XCTAssertEqual(H264Units.unescape(H264Units.escape([0, 0, 0, 0, 3, 0, 0, 1, 0, 0])), [0, 0, 0, 0, 3, 0, 0, 1, 0, 0])
    }

    /// The sender holds H.264 as AVC (h264parse's output before the payloader); the receiver
    /// gets it as rtph264depay's Annex B, with the SPS and PPS it had seen put in again before
    /// the keyframe's own. Both compute the clear header on the same canonical form (4-byte
    /// start codes, no repeated unit before the slice), so the frame decrypts; each side gets
    /// its own format back.
    func testH264SentAsAVCDecryptsFromTheDepayloadersAnnexB() throws {
        let sps: [UInt8] = [0x67, 0x42, 0xC0, 0x15], pps: [UInt8] = [0x68, 0xCE, 0x3C, 0x80]
        let slice: [UInt8] = [0x65, 0x88, 0x84] + (0..<300).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let avc = H264Units.avc([sps, pps, slice])
        let key = try FrameKeyMaterial(passphrase: "key1").frameKey()
        let iv = Array(repeating: UInt8(7), count: 12)
        let sealed = try avc.withUnsafeBytes { try FrameCrypto.encrypt($0, codec: .h264, keyframe: true, key: key, keyIndex: 0, iv: iv) }
        let sealedUnits = H264Units.avcUnits(sealed).map { Array(sealed[$0]) }
        XCTAssertEqual(sealedUnits.count, 3, "still AVC, the encrypted slice one unit")
        XCTAssertEqual(Array(sealedUnits[0...1]), [sps, pps])
        XCTAssertEqual(Array(sealedUnits[2].prefix(2)), [0x65, 0x88], "two bytes of the slice header stay clear")
        // What rtph264depay rebuilds: the SPS and PPS twice, and a 3-byte start code for one.
        let received = [0, 0, 0, 1] + sps + [0, 0, 0, 1] + pps + [0, 0, 1] + sps + [0, 0, 0, 1] + pps + [0, 0, 0, 1] + sealedUnits[2]
        let plain = try received.withUnsafeBytes { try FrameCrypto.decrypt($0, codec: .h264, keyframe: true, key: key) }
        XCTAssertEqual(plain, H264Units.annexB([sps, pps, slice]))
        let back = try sealed.withUnsafeBytes { try FrameCrypto.decrypt($0, codec: .h264, keyframe: true, key: key) }
        XCTAssertEqual(back, avc, "an AVC frame decrypts to AVC")
    }

    /// A stream with access unit delimiters (a camera's, x264enc's by default, passed
    /// through): the sender's keyframe is AUD SPS PPS SEI IDR; rtph264depay puts the SPS and
    /// PPS it has seen ahead of the delimiter (SPS PPS AUD SPS PPS SEI IDR). The delimiter is
    /// left out of the canonical form on both sides, so the frame decrypts.
    func testH264WithDelimitersDecryptsWhereTheDepayloaderPutsTheParametersFirst() throws {
        let aud: [UInt8] = [0x09, 0xF0], sei: [UInt8] = [0x06, 0x05, 0x02, 0xAA, 0xBB, 0x80]
        let sps: [UInt8] = [0x67, 0x42, 0xC0, 0x15], pps: [UInt8] = [0x68, 0xCE, 0x3C, 0x80]
        let slice: [UInt8] = [0x65, 0x88, 0x84] + (0..<200).map { UInt8(truncatingIfNeeded: $0 * 5) }
        let key = try FrameKeyMaterial(passphrase: "key1").frameKey()
        let iv = Array(repeating: UInt8(3), count: 12)
        let avc = H264Units.avc([aud, sps, pps, sei, slice])
        let sealed = try avc.withUnsafeBytes { try FrameCrypto.encrypt($0, codec: .h264, keyframe: true, key: key, keyIndex: 0, iv: iv) }
        let units = H264Units.avcUnits(sealed).map { Array(sealed[$0]) }
        XCTAssertEqual(Array(units.prefix(3)), [sps, pps, sei], "sent without the delimiter, the rest clear up to the slice")
        let received = H264Units.annexB([sps, pps, aud, sps, pps, sei, units[3]])
        let plain = try received.withUnsafeBytes { try FrameCrypto.decrypt($0, codec: .h264, keyframe: true, key: key) }
        XCTAssertEqual(plain, H264Units.annexB([sps, pps, sei, slice]))
    }

    /// 10 000 mutated frames: each decrypts or fails; none crashes or reads out of bounds.
    func testMutatedFramesNeverCrashTheDecryptor() throws {
        let key = try FrameKeyMaterial(passphrase: "key1").frameKey()
        var random = SplitMix64(seed: 47)
        var failures = 0
        for i in 0..<10_000 {
            var frame = i % 2 == 0 ? Self.frameA : Self.frameB
            for _ in 0...(random.next() % 4) {
                let at = Int(random.next() % UInt64(frame.count))
                switch random.next() % 3 {
                case 0: frame[at] = UInt8(truncatingIfNeeded: random.next())
                case 1: frame.removeLast(Int(random.next() % UInt64(frame.count)))
                default: frame.insert(UInt8(truncatingIfNeeded: random.next()), at: at)
                }
                if frame.isEmpty { break }
            }
            let codec: EncodedCodec = [.vp8, .vp9, .h264, .opus][i % 4]
            do { _ = try frame.withUnsafeBytes { try FrameCrypto.decrypt($0, codec: codec, keyframe: i % 3 == 0, key: key) } } catch {
                failures += 1
            }
        }
        XCTAssertGreaterThan(failures, 9_900, "a mutated frame almost never authenticates")
    }
}
