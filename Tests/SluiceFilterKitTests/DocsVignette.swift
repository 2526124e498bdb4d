import SluiceFilterKit

public final class Vignette: FrameFilter {
    public static let name = "vignette"                      // `- filter: vignette`
    public static let summary = "Darkens the corners"
    public static let formats: [PixelFormat] = [.i420]       // also .nv12, .rgba, .bgrx
    public static let parameters = [
        FilterParameter("strength", .number(min: 0, max: 1), default: .number(0.5)),
    ]
    let strength: Double
    public init(configuration: FilterConfiguration) throws { strength = configuration.number("strength") }

    public func process(_ frame: borrowing Frame, context: FilterContext) throws -> FilterVerdict {
        let luma = frame.plane(0)                    // base pointer, stride, width, height
        for y in 0..<luma.height { let row = luma.row(y); /* … row[x] … */ }
        return .keep                                 // or .drop
    }
}
