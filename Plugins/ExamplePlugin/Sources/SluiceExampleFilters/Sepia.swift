import SluiceFilterKit

/// Tints the picture sepia. YUV formats: chroma is set to a warm tone, blended by
/// `strength`; packed RGB: the classic sepia matrix, blended by `strength`.
public final class Sepia: FrameFilter {
    public static let name = "sepia"
    public static let summary = "Warm sepia tint (example dynamic plugin)"
    public static let formats: [PixelFormat] = [.i420, .nv12, .rgba, .bgrx]
    public static let parameters = [
        FilterParameter("strength", .number(min: 0, max: 1), default: .number(1), summary: "0 = unchanged, 1 = full sepia")
    ]

    private let strength: Int // 0...256

    public init(configuration: FilterConfiguration) throws {
        strength = Int((configuration.number("strength") * 256).rounded())
    }

    @inline(__always) private func blend(_ original: Int, _ toned: Int) -> UInt8 {
        UInt8(clamping: (original * (256 - strength) + toned * strength) >> 8)
    }

    public func process(_ frame: borrowing Frame, context: FilterContext) throws -> FilterVerdict {
        switch frame.format {
        case .i420:
            for (p, tone) in [(1, 108), (2, 148)] {
                let plane = frame.plane(p)
                for y in 0..<plane.height {
                    let row = plane.row(y)
                    for x in 0..<plane.width { row[x] = blend(Int(row[x]), tone) }
                }
            }
        case .nv12:
            let plane = frame.plane(1)
            for y in 0..<plane.height {
                let row = plane.row(y)
                for x in 0..<plane.width {
                    row[2 * x] = blend(Int(row[2 * x]), 108)
                    row[2 * x + 1] = blend(Int(row[2 * x + 1]), 148)
                }
            }
        case .rgba, .bgrx:
            let (r, b) = frame.format == .rgba ? (0, 2) : (2, 0)
            let plane = frame.plane(0)
            for y in 0..<plane.height {
                let row = plane.row(y)
                for x in 0..<plane.width {
                    let px = row + 4 * x
                    let R = Int(px[r]), G = Int(px[1]), B = Int(px[b])
                    px[r] = blend(R, min(255, (101 * R + 197 * G + 48 * B) >> 8))
                    px[1] = blend(G, min(255, (89 * R + 176 * G + 43 * B) >> 8))
                    px[b] = blend(B, min(255, (70 * R + 137 * G + 34 * B) >> 8))
                }
            }
        }
        return .keep
    }
}
