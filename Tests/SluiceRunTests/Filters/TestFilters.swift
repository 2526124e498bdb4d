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

enum TestFilters {
    /// Registers the built-in plugins and the test filters once per process.
    static let registered: Bool = {
        for f in BuiltInPlugins.filters { try? FilterRegistry.shared.register(FilterFactory(f)) }
        for f in BuiltInPlugins.audioFilters { try? FilterRegistry.shared.register(AudioFilterFactory(f)) }
        for s in BuiltInPlugins.sources { try? FilterRegistry.shared.register(SourceFactory(s)) }
        for s in BuiltInPlugins.audioSources { try? FilterRegistry.shared.register(AudioSourceFactory(s)) }
        try? FilterRegistry.shared.register(ThrowingFilter.self)
        try? FilterRegistry.shared.register(PaintFilter.self)
        try? FilterRegistry.shared.register(LumaProbe.self)
        return true
    }()
}
