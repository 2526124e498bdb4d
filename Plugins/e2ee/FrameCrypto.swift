import Crypto
import Foundation
import SluiceFilterKit

/// LiveKit's end-to-end encrypted frame format (client-sdk-js `src/e2ee`, v2.21.0), byte for
/// byte: `clear header ‖ AES-GCM ciphertext ‖ tag (16) ‖ IV (12) ‖ 0x0C ‖ key index`, with
/// the clear header as additional data. The clear header keeps what an SFU or a
/// packetizer reads: Opus's TOC byte, VP8's frame tag (10 bytes on keyframes, 3 on others),
/// nothing of VP9, and H.264 up to the first slice NAL unit and 2 bytes of it; H.264's
/// encrypted part is escaped (emulation prevention) so that no start code appears in it.
public enum FrameCrypto {
    /// The IV's length, written before the key index.
    public static let ivLength = 12
    /// AES-GCM's tag length.
    public static let tagLength = 16

    /// Why a frame did not decrypt.
    public enum Failure: Error, Equatable, CustomStringConvertible {
        /// Shorter than its clear header and trailer.
        case tooShort
        /// The IV length byte is not 12.
        case badIVLength(Int)
        /// No key at this index.
        case noKey(Int)
        /// The tag did not check with any key tried.
        case authentication
        /// What went wrong, in a few words.
        public var description: String {
            switch self {
            case .tooShort: "the frame is shorter than its clear header and trailer"
            case .badIVLength(let n): "the trailer gives an IV of \(n) bytes, not 12"
            case .noKey(let i): "no key at index \(i)"
            case .authentication: "the frame does not decrypt with the key (wrong key, or damaged)"
            }
        }
    }

    /// How many leading bytes stay in the clear (`nil`: the frame cannot be encrypted as it
    /// is, e.g. H.264 that is not Annex B falls back to VP8's rule as LiveKit does).
    public static func clearBytes(codec: EncodedCodec, keyframe: Bool, frame: UnsafeRawBufferPointer) -> (count: Int, escaped: Bool) {
        switch codec {
        case .opus: return (min(1, frame.count), false)
        case .vp9: return (0, false)
        case .vp8: return (min(keyframe ? 10 : 3, frame.count), false)
        case .h264:
            if let slice = H264Units.firstSliceHeader(frame) { return (min(slice + 2, frame.count), true) }
            return (min(keyframe ? 10 : 3, frame.count), false)
        }
    }

    /// Encrypts `frame` with `key` (key index `keyIndex`) and `iv` (12 bytes, unique per key).
    public static func encrypt(
        _ frame: UnsafeRawBufferPointer, codec: EncodedCodec, keyframe: Bool, key: SymmetricKey, keyIndex: UInt8, iv: [UInt8]
    ) throws -> [UInt8] {
        let (clear, escaped) = clearBytes(codec: codec, keyframe: keyframe, frame: frame)
        let header = Array(frame[0..<clear])
        let sealed = try AES.GCM.seal(
            frame[clear...], using: key, nonce: try AES.GCM.Nonce(data: iv), authenticating: header)
        var tail = Array(sealed.ciphertext) + Array(sealed.tag) + iv + [UInt8(ivLength), keyIndex]
        if escaped { tail = H264Units.escape(tail) }
        return header + tail
    }

    /// The key index a frame names (its last byte); nil for an empty frame.
    public static func keyIndex(of frame: UnsafeRawBufferPointer) -> UInt8? { frame.last }

    /// Decrypts `frame` with `key`: the clear header and the plaintext.
    public static func decrypt(_ frame: UnsafeRawBufferPointer, codec: EncodedCodec, keyframe: Bool, key: SymmetricKey) throws(Failure) -> [UInt8] {
        let (clear, escaped) = clearBytes(codec: codec, keyframe: keyframe, frame: frame)
        let header = Array(frame[0..<clear])
        var tail = Array(frame[clear...])
        if escaped { tail = H264Units.unescape(tail) }
        guard tail.count >= tagLength + ivLength + 2 else { throw .tooShort }
        let ivLengthByte = Int(tail[tail.count - 2])
        guard ivLengthByte == ivLength else { throw .badIVLength(ivLengthByte) }
        let ivStart = tail.count - 2 - ivLength, tagStart = ivStart - tagLength
        do {
            let box = try AES.GCM.SealedBox(
                nonce: AES.GCM.Nonce(data: tail[ivStart..<(ivStart + ivLength)]), ciphertext: tail[0..<tagStart],
                tag: tail[tagStart..<ivStart])
            return header + Array(try AES.GCM.open(box, using: key, authenticating: header))
        } catch {
            throw .authentication
        }
    }
}

/// What the format needs of H.264 Annex B: where the first slice's NAL unit starts, and the
/// escaping that keeps start codes out of the encrypted part.
public enum H264Units {
    /// The index of the first slice NAL unit's header byte (types 1 and 5), found after the
    /// start codes; nil if the frame does not begin with a start code or has no slice.
    public static func firstSliceHeader(_ b: UnsafeRawBufferPointer) -> Int? {
        guard b.count >= 4, b[0] == 0, b[1] == 0, b[2] == 1 || (b[2] == 0 && b[3] == 1) else { return nil }
        var i = 0
        while i + 3 <= b.count {
            if b[i] == 0, b[i + 1] == 0, b[i + 2] == 1 {
                let header = i + 3
                guard header < b.count else { return nil }
                let type = b[header] & 0x1F
                if type == 1 || type == 5 { return header }
                i = header
            } else {
                i += 1
            }
        }
        return nil
    }

    /// Emulation prevention (H.264 7.4.1): a 0x03 before any byte ≤ 3 that follows two zeros.
    public static func escape(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(data.count + data.count / 64)
        var zeros = 0
        for byte in data {
            if byte <= 3, zeros >= 2 {
                out.append(3)
                zeros = 0
            }
            out.append(byte)
            zeros = byte == 0 ? zeros + 1 : 0
        }
        return out
    }

    /// Removes emulation prevention: every 0x03 after two zeros, as LiveKit's `parseRbsp` does.
    public static func unescape(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(data.count)
        var i = 0
        while i < data.count {
            if i + 2 < data.count, data[i] == 0, data[i + 1] == 0, data[i + 2] == 3 {
                out.append(0); out.append(0)
                i += 3
            } else {
                out.append(data[i])
                i += 1
            }
        }
        return out
    }
}
