import SluiceFilterKit

/// Scrambles VP8 frames past their clear header (10 bytes on keyframes, 3 on others, which
/// the payloader reads) by XOR with `key`, the same both ways: a sender and a receiver that
/// both run it pass the picture; anyone else sees damaged frames. A toy, not a cipher: it
/// shows an encoded-frame filter in a dynamic plugin.
public final class Scramble: EncodedFrameFilter {
    public static let name = "scramble"
    public static let summary = "XORs VP8 frames past their header (example dynamic plugin)"
    public static let codecs: [EncodedCodec] = [.vp8]
    public static let parameters = [
        FilterParameter("key", .integer(min: 1, max: 255), default: .integer(0x5A), summary: "the byte every scrambled byte is XORed with")
    ]

    private let key: UInt8

    public init(configuration: FilterConfiguration) throws {
        key = UInt8(configuration.integer("key"))
    }

    public func process(_ frame: borrowing EncodedFrame, context: FilterContext) throws -> EncodedVerdict {
        let clear = min(frame.isKeyframe ? 10 : 3, frame.bytes.count)
        var bytes = Array(frame.bytes)
        for i in clear..<bytes.count { bytes[i] ^= key }
        if frame.number % 30 == 0 { context.emit("scrambled", ["frames": Double(frame.number + 1)]) }
        return .replace(bytes)
    }
}
