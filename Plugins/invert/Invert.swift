import SluiceFilterKit

/// Inverts the picture: every sample v becomes 255 − v.
///
/// - YUV (I420, NV12): every Y, U and V sample.
/// - RGBA: R, G and B; alpha unchanged.
/// - BGRx: B, G and R; the x byte unchanged.
///
/// Applying it twice restores the frame exactly. Row padding is never touched.
public final class Invert: FrameFilter {
    public static let name = "invert"
    public static let summary = "Inverts every colour sample (255 - v); alpha and padding unchanged"
    public static let formats: [PixelFormat] = [.i420, .nv12, .rgba, .bgrx]

    public init(configuration: FilterConfiguration) throws {}
    public init() {}

    public func process(_ frame: borrowing Frame, context: FilterContext) throws -> FilterVerdict {
        switch frame.format {
        case .i420:
            for i in 0..<3 { Self.invertBytes(frame.plane(i), bytesPerSample: 1) }
        case .nv12:
            Self.invertBytes(frame.plane(0), bytesPerSample: 1)
            Self.invertBytes(frame.plane(1), bytesPerSample: 2)
        case .rgba, .bgrx:
            // Colour channels are bytes 0...2 in both layouts; byte 3 is alpha / padding.
            let p = frame.plane(0)
            // Whole pixels as little-endian words (vectorizes; a 3-of-4-byte store would not).
            for y in 0..<max(0, p.height) {
                let raw = UnsafeMutableRawPointer(p.row(y))
                var i = 0
                while i < p.width {
                    let v = raw.loadUnaligned(fromByteOffset: i &* 4, as: UInt32.self)
                    raw.storeBytes(of: v ^ UInt32(0x00FF_FFFF).littleEndian, toByteOffset: i &* 4, as: UInt32.self)
                    i &+= 1
                }
            }
        }
        return .keep
    }

    @inline(__always)
    static func invertBytes(_ plane: Plane, bytesPerSample: Int) {
        let bytes = plane.width &* bytesPerSample
        for y in 0..<max(0, plane.height) {
            let row = plane.row(y)
            var x = 0
            while x < bytes {
                row[x] = ~row[x]
                x &+= 1
            }
        }
    }
}
