/// The codec of an encoded frame.
public enum EncodedCodec: String, Sendable, CaseIterable, Codable {
    /// The video codecs VP8, VP9 and H.264, and the audio codec Opus (as in pipeline files).
    case vp8, vp9, h264, opus

    /// The codec of GStreamer caps with this media type (`video/x-vp8`, …); nil for others.
    public init?(mediaType: String) {
        switch mediaType {
        case "video/x-vp8": self = .vp8
        case "video/x-vp9": self = .vp9
        case "video/x-h264": self = .h264
        case "audio/x-opus": self = .opus
        default: return nil
        }
    }

    /// True for Opus.
    public var isAudio: Bool { self == .opus }
}

/// Which way an encoded frame travels.
public enum EncodedDirection: String, Sendable, Codable {
    /// Out of the encoder (or a passed-through camera), towards the payloader.
    case send
    /// Out of the depayloader, towards the decoder.
    case receive
}

/// One encoded frame as an `EncodedFrameFilter` sees it: valid only during the `process`
/// call that hands it out.
public struct EncodedFrame: ~Copyable {
    /// The frame's codec.
    public let codec: EncodedCodec
    /// Which way the frame travels.
    public let direction: EncodedDirection
    /// True for a keyframe (every Opus packet is one).
    public let isKeyframe: Bool
    /// Presentation timestamp in nanoseconds, nil if unset.
    public let pts: UInt64?
    /// Decoding timestamp in nanoseconds, nil if unset.
    public let dts: UInt64?
    /// The frame's bytes. H.264 sent: the access unit the payloader sends, AVC (4-byte length
    /// before each NAL unit, SPS and PPS before every IDR), so a filter that changes a NAL
    /// unit's length must mend its prefix; H.264 received: the depayloader's Annex B access
    /// unit (4-byte start codes), with every unit the sender sent. `H264Units` reads both.
    public let bytes: UnsafeRawBufferPointer
    /// Frames this filter instance saw before this one.
    public let number: UInt64

    /// A frame over `bytes` (tests and benchmarks make their own).
    public init(
        codec: EncodedCodec, direction: EncodedDirection, isKeyframe: Bool, pts: UInt64? = nil, dts: UInt64? = nil,
        bytes: UnsafeRawBufferPointer, number: UInt64 = 0
    ) {
        self.codec = codec; self.direction = direction; self.isKeyframe = isKeyframe
        self.pts = pts; self.dts = dts; self.bytes = bytes; self.number = number
    }
}

/// What an encoded-frame filter decided for one frame.
public enum EncodedVerdict: Sendable, Equatable {
    /// Pass the frame on unchanged.
    case keep
    /// Drop the frame (the receiver sees a gap, as after a lost frame).
    case drop
    /// Pass these bytes on instead (longer or shorter: encryption grows a frame).
    case replace([UInt8])
}

/// Something that processes encoded frames one at a time.
public protocol EncodedFrameProcessor: AnyObject {
    /// Looks at one encoded frame and says what passes on.
    func process(_ frame: borrowing EncodedFrame, context: FilterContext) throws -> EncodedVerdict
}

/// An encoded-frame filter: sees each encoded frame between the encoder (or a passed-through
/// camera) and the payloader (`send.*.encoded_filters`), or between the depayloader and the
/// decoder (`receive.*.encoded_filters`); may change, replace or drop it. End-to-end
/// encryption, per-frame metadata and fault injection live here, as in browsers' encoded
/// transforms.
///
/// Sluice creates one instance per element from the validated configuration of the pipeline
/// file and calls `process` for every frame on a GStreamer streaming thread, one at a time.
public protocol EncodedFrameFilter: EncodedFrameProcessor {
    /// The name pipeline files use (`- filter: faults` in `encoded_filters:`); the element is
    /// `sluice-NAME`. Encoded, raw video and audio filters share one namespace.
    static var name: String { get }
    /// One line for `sluice inspect` and element metadata.
    static var summary: String { get }
    /// The codecs `process` handles: a file that puts the filter on another codec is refused
    /// at validation.
    static var codecs: [EncodedCodec] { get }
    /// Typed settings, validated against the pipeline file before anything runs.
    static var parameters: [FilterParameter] { get }

    /// What the filter cannot take in a configuration whose settings are each valid (two
    /// settings that exclude each other, a file that cannot be read): reported at validation
    /// with the setting's `FILE:LINE:COL`, before anything runs.
    static func problems(_ configuration: FilterConfiguration) -> [FilterSettingProblem]

    /// Makes a filter from its validated settings; throwing refuses the configuration.
    init(configuration: FilterConfiguration) throws

    /// Called on a new instance made because settings changed while the pipeline runs (the
    /// control API, `--watch`), with the instance it replaces, before its first frame: carry
    /// over what must survive the change (an encryption's IV counter, the key a receiver
    /// still accepts for a while).
    func `continue`(from previous: Self)
}

extension EncodedFrameFilter {
    /// By default every codec.
    public static var codecs: [EncodedCodec] { EncodedCodec.allCases }
    /// By default a filter takes no settings.
    public static var parameters: [FilterParameter] { [] }
    /// By default every valid configuration is taken.
    public static func problems(_ configuration: FilterConfiguration) -> [FilterSettingProblem] { [] }
    /// By default nothing carries over.
    public func `continue`(from previous: Self) {}
}
