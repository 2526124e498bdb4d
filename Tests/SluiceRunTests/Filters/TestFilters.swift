import SluiceBuiltInPlugins
import SluiceFilterKit
@testable import SluiceRun

/// Throws on every `every`-th frame; otherwise leaves the frame alone.
final class ThrowingFilter: FrameFilter {
    static let name = "test-throwing"
    static let summary = "Throws every N-th frame (tests)"
    static let formats: [PixelFormat] = [.i420, .nv12, .rgba, .bgrx]
    static let parameters = [FilterParameter("every", .integer(min: 1, max: 1000), default: .integer(2))]
    struct Boom: Error, CustomStringConvertible { let frame: UInt64; var description: String { "boom at frame \(frame)" } }
    private let every: UInt64
    init(configuration: FilterConfiguration) throws { every = UInt64(configuration.integer("every")) }
    func process(_ frame: borrowing Frame, context: FilterContext) throws -> FilterVerdict {
        if frame.frameNumber % every == every - 1 { throw Boom(frame: frame.frameNumber) }
        return .keep
    }
}

/// Paints the luma plane (or every packed pixel) with one value: a visible, checkable effect.
final class PaintFilter: FrameFilter {
    static let name = "test-paint"
    static let summary = "Fills luma with a value (tests)"
    static let formats: [PixelFormat] = [.i420]
    static let parameters = [FilterParameter("luma", .integer(min: 0, max: 255), default: .integer(200))]
    private let luma: UInt8
    init(configuration: FilterConfiguration) throws { luma = UInt8(configuration.integer("luma")) }
    func process(_ frame: borrowing Frame, context: FilterContext) throws -> FilterVerdict {
        let p = frame.plane(0)
        for y in 0..<p.height { p.row(y).update(repeating: luma, count: p.width) }
        return .keep
    }
}

/// Reads the mean luma of each frame and reports it as an event (analysis only); the last
/// mean is kept for tests.
final class LumaProbe: FrameFilter {
    nonisolated(unsafe) static var lastMean: Double? // written on one streaming thread, read after the run
    static let name = "test-luma-probe"
    static let summary = "Emits the mean luma of each frame (tests)"
    static let formats: [PixelFormat] = [.i420]
    static let modifiesPixels = false
    init(configuration: FilterConfiguration) throws {}
    func process(_ frame: borrowing Frame, context: FilterContext) throws -> FilterVerdict {
        let p = frame.plane(0)
        var sum = 0
        for y in 0..<p.height { for x in 0..<p.width { sum &+= Int(p.row(y)[x]) } }
        let mean = Double(sum) / Double(max(1, p.width * p.height))
        LumaProbe.lastMean = mean
        context.emit("luma", ["mean": mean, "frame": Double(frame.frameNumber)])
        return .keep
    }
}

/// Appends an 8-byte trailer ("SLCE" and the frame's number, no zero byte) to each encoded
/// frame (`mode: add`), or checks and strips it (`mode: strip`), emitting `verified` or
/// `missing`: the shape of an end-to-end encryption trailer, without the encryption.
final class TrailerTag: EncodedFrameFilter {
    static let name = "test-trailer"
    static let summary = "Adds or strips an 8-byte trailer on encoded frames (tests)"
    static let codecs: [EncodedCodec] = [.vp8, .h264, .opus] // h264: refused by the file check tests only
    static let parameters = [FilterParameter("mode", .string(choices: ["add", "strip"]), default: .string("add"))]
    static let magic: [UInt8] = Array("SLCE".utf8)
    private let adds: Bool
    init(configuration: FilterConfiguration) throws { adds = configuration.string("mode") == "add" }
    func process(_ frame: borrowing EncodedFrame, context: FilterContext) throws -> EncodedVerdict {
        if adds {
            // Seven bits of the number per byte, the eighth set: no zero byte, so no H.264
            // start code appears in the trailer.
            let n = UInt32(truncatingIfNeeded: frame.number)
            let number = [21, 14, 7, 0].map { UInt8(0x80 | (n >> UInt32($0)) & 0x7F) }
            return .replace(Array(frame.bytes) + Self.magic + number)
        }
        let b = frame.bytes
        guard b.count > 8, Array(b[(b.count - 8)..<(b.count - 4)]) == Self.magic else {
            context.emit("missing")
            return .keep
        }
        context.emit("verified")
        return .replace(Array(b[0..<(b.count - 8)]))
    }
}

enum TestFilters {
    /// Registers the built-in plugins and the test filters once per process.
    static let registered: Bool = {
        for f in BuiltInPlugins.filters { try? FilterRegistry.shared.register(FilterFactory(f)) }
        for f in BuiltInPlugins.audioFilters { try? FilterRegistry.shared.register(AudioFilterFactory(f)) }
        for f in BuiltInPlugins.encodedFilters { try? FilterRegistry.shared.register(EncodedFilterFactory(f)) }
        for s in BuiltInPlugins.sources { try? FilterRegistry.shared.register(SourceFactory(s)) }
        for s in BuiltInPlugins.audioSources { try? FilterRegistry.shared.register(AudioSourceFactory(s)) }
        try? FilterRegistry.shared.register(ThrowingFilter.self)
        try? FilterRegistry.shared.register(PaintFilter.self)
        try? FilterRegistry.shared.register(LumaProbe.self)
        try? FilterRegistry.shared.register(TrailerTag.self)
        try? FilterRegistry.shared.register(ThrowingAudioFilter.self)
        try? FilterRegistry.shared.register(AudioPeek.self)
        try? FilterRegistry.shared.register(AudioTouch.self)
        return true
    }()
}
