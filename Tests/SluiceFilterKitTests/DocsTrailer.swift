import SluiceFilterKit

public final class Trailer: EncodedFrameFilter {
    public static let name = "trailer"                           // `- filter: trailer`
    public static let summary = "Appends four bytes to every frame"
    public static let codecs: [EncodedCodec] = [.vp8, .h264, .opus]  // a file with VP9 is refused
    public init(configuration: FilterConfiguration) throws {}

    public func process(_ frame: borrowing EncodedFrame, context: FilterContext) throws -> EncodedVerdict {
        frame.direction == .send ? .replace(Array(frame.bytes) + [0x53, 0x4C, 0x43, 0x45]) : .keep
    }
}
