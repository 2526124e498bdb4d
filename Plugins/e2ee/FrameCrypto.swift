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
    /// H.264 is encrypted in its canonical form (`H264Canonical`) and returned in the frame's
    /// own format.
    public static func encrypt(
        _ frame: UnsafeRawBufferPointer, codec: EncodedCodec, keyframe: Bool, key: SymmetricKey, keyIndex: UInt8, iv: [UInt8]
    ) throws -> [UInt8] {
        guard codec == .h264, let form = H264Canonical(frame) else {
            return try seal(frame, codec: codec, keyframe: keyframe, key: key, keyIndex: keyIndex, iv: iv)
        }
        let sealed = try form.annexB.withUnsafeBytes { try seal($0, codec: codec, keyframe: keyframe, key: key, keyIndex: keyIndex, iv: iv) }
        return form.restored(sealed)
    }

    private static func seal(
        _ frame: UnsafeRawBufferPointer, codec: EncodedCodec, keyframe: Bool, key: SymmetricKey, keyIndex: UInt8, iv: [UInt8]
    ) throws -> [UInt8] {
        let (clear, escaped) = clearBytes(codec: codec, keyframe: keyframe, frame: frame)
        let header = Array(UnsafeRawBufferPointer(rebasing: frame[0..<clear]))
        // Contiguous buffers in and out (not slices or `Data` read as sequences): a slice of
        // the frame went through swift-crypto's generic path a byte at a time.
        let sealed = try AES.GCM.seal(
            UnsafeRawBufferPointer(rebasing: frame[clear...]), using: key, nonce: try AES.GCM.Nonce(data: iv), authenticating: header)
        var tail = header
        tail.reserveCapacity(frame.count + tagLength + ivLength + 2)
        sealed.ciphertext.withUnsafeBytes { tail.append(contentsOf: $0) }
        sealed.tag.withUnsafeBytes { tail.append(contentsOf: $0) }
        tail.append(contentsOf: iv)
        tail.append(UInt8(ivLength))
        tail.append(keyIndex)
        guard escaped else { return tail }
        // Emulation prevention after the clear header, into one buffer sized for the worst case.
        let body = tail.count - clear
        return tail.withUnsafeBytes { all in
            [UInt8](unsafeUninitializedCapacity: clear + body + body / 2 + 1) { out, written in
                let dst = UnsafeMutableRawBufferPointer(out)
                dst.copyMemory(from: UnsafeRawBufferPointer(rebasing: all[0..<clear]))
                written =
                    clear + H264Units.escape(UnsafeRawBufferPointer(rebasing: all[clear...]), into: UnsafeMutableRawBufferPointer(rebasing: dst[clear...]))
            }
        }
    }

    /// The key index a frame names (its last byte); nil for an empty frame.
    public static func keyIndex(of frame: UnsafeRawBufferPointer) -> UInt8? { frame.last }

    /// Decrypts `frame` with `key`: the clear header and the plaintext (H.264: decrypted in
    /// its canonical form, returned in the frame's own format).
    public static func decrypt(_ frame: UnsafeRawBufferPointer, codec: EncodedCodec, keyframe: Bool, key: SymmetricKey) throws(Failure) -> [UInt8] {
        guard codec == .h264, let form = H264Canonical(frame) else { return try open(frame, codec: codec, keyframe: keyframe, key: key) }
        let result = form.annexB.withUnsafeBytes { b in Result { () throws(Failure) in try open(b, codec: codec, keyframe: keyframe, key: key) } }
        return form.restored(try result.get())
    }

    private static func open(_ frame: UnsafeRawBufferPointer, codec: EncodedCodec, keyframe: Bool, key: SymmetricKey) throws(Failure) -> [UInt8] {
        let (clear, escaped) = clearBytes(codec: codec, keyframe: keyframe, frame: frame)
        let header = Array(UnsafeRawBufferPointer(rebasing: frame[0..<clear]))
        let rest = UnsafeRawBufferPointer(rebasing: frame[clear...])
        let tail =
            escaped
            ? [UInt8](unsafeUninitializedCapacity: rest.count) { out, written in
                written = H264Units.unescape(rest, into: UnsafeMutableRawBufferPointer(out))
            } : Array(rest)
        guard tail.count >= tagLength + ivLength + 2 else { throw .tooShort }
        let ivLengthByte = Int(tail[tail.count - 2])
        guard ivLengthByte == ivLength else { throw .badIVLength(ivLengthByte) }
        let ivStart = tail.count - 2 - ivLength, tagStart = ivStart - tagLength
        do {
            let box = try AES.GCM.SealedBox(
                nonce: AES.GCM.Nonce(data: tail[ivStart..<(ivStart + ivLength)]), ciphertext: tail[0..<tagStart],
                tag: tail[tagStart..<ivStart])
            let plain = try AES.GCM.open(box, using: key, authenticating: header)
            var out = header
            out.reserveCapacity(header.count + plain.count)
            plain.withUnsafeBytes { out.append(contentsOf: $0) }
            return out
        } catch {
            throw .authentication
        }
    }
}

/// An H.264 access unit in the form LiveKit's format is computed on: Annex B with a 4-byte
/// start code before every NAL unit. That is what WebRTC's encoders write and what RTP
/// depayloaders (rtph264depay's byte-stream, a browser's) rebuild, so the clear header (the
/// additional data) is the same bytes on both sides even where one side holds the frame as
/// AVC (h264parse's output before Sluice's payloader) or an encoder wrote 3-byte start codes.
struct H264Canonical {
    /// The frame, canonical.
    let annexB: [UInt8]
    /// Whether the frame came as AVC (4-byte lengths), so the result goes back to AVC.
    let wasAVC: Bool
    /// NAL unit type 9.
    static let accessUnitDelimiter: UInt8 = 9

    /// nil when `frame` holds no NAL unit either way. Before the first slice, a unit that
    /// repeats an earlier one is left out, and so is an access unit delimiter: rtph264depay
    /// puts the SPS and PPS it has seen before a keyframe that carries them already, ahead of
    /// its delimiter (seen on 1.22, with a camera's or x264enc's stream that has delimiters),
    /// so the same frame arrived as SPS PPS AUD SPS PPS SEI IDR after it left as AUD SPS PPS
    /// SEI IDR. A copy adds nothing, and a delimiter nothing that RTP does not mark.
    init?(_ frame: UnsafeRawBufferPointer) {
        let bytes = Array(frame)
        var units: [[UInt8]] = []
        var sliceSeen = false
        for range in H264Units.units(bytes) {
            let unit = Array(bytes[range])
            sliceSeen = sliceSeen || (!unit.isEmpty && H264Units.isSlice(unit[0]))
            let delimiter = !unit.isEmpty && unit[0] & 0x1F == Self.accessUnitDelimiter
            if sliceSeen || (!delimiter && !units.contains(unit)) { units.append(unit) }
        }
        guard !units.isEmpty else { return nil }
        wasAVC = !H264Units.isAnnexB(bytes)
        annexB = H264Units.annexB(units)
    }

    /// `result` (canonical Annex B) in the frame's own format.
    func restored(_ result: [UInt8]) -> [UInt8] {
        wasAVC ? H264Units.avc(result, units: H264Units.annexBUnits(result)) : result
    }
}
