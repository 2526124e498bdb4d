import SluiceFilterKit

/// Pixelates a rectangle of the picture: the region is cut into `block`×`block` squares
/// aligned to the region's top-left corner, and every square (clipped to the region and the
/// frame) is replaced by the rounded mean of its samples, per plane and per channel.
///
/// - `region: [x, y, w, h]` in luma pixels (default `[0, 0, 16384, 16384]`: the whole
///   frame); it is clipped to the frame, and an empty intersection leaves the frame as is
///   (all planes).
/// - `block` (2...256, default 16) in luma pixels.
///
/// 4:2:0 chroma planes (I420 U and V, NV12 UV) use the clipped region and block halved: the
/// chroma region starts at `(x/2, y/2)` and ends at `(ceil(x1/2), ceil(y1/2))`, where
/// `x1 = min(x+w, width)` and `y1 = min(y+h, height)` (so it covers
/// every chroma sample under the luma region; for even x and y its size is `ceil(w/2)` ×
/// `ceil(h/2)`), with blocks of `max(1, block/2)`. NV12's U and V are averaged separately.
///
/// Packed formats are averaged per channel: for RGBA that includes alpha (so every block
/// ends up one uniform RGBA value); for BGRx the x byte is left untouched.
public final class Pixelate: FrameFilter {
    public static let name = "pixelate"
    public static let summary = "Replaces a region with blocks of their mean colour"
    public static let formats: [PixelFormat] = [.i420, .nv12, .rgba, .bgrx]
    public static let parameters: [FilterParameter] = [
        FilterParameter(
            "region", .integers(count: 4, min: 0, max: 16384),
            default: .integers([0, 0, 16384, 16384]),
            summary: "[x, y, w, h] in pixels, clipped to the frame (default: whole frame)"),
        FilterParameter(
            "block", .integer(min: 2, max: 256), default: .integer(16),
            summary: "block size in pixels")
    ]

    public let x: Int, y: Int, w: Int, h: Int
    public let block: Int

    public convenience init(configuration: FilterConfiguration) throws {
        let r = configuration.integers("region")
        if r.count == 4 {
            self.init(x: r[0], y: r[1], width: r[2], height: r[3], block: configuration.integer("block"))
        } else {
            self.init(block: configuration.integer("block"))
        }
    }

    /// A region given in the file that reaches outside the picture: what is pixelated instead
    /// (the region clipped to the picture), or that nothing is. The default region (the
    /// whole frame, however large) is not worth a warning.
    public static func warnings(_ configuration: FilterConfiguration, width: Int, height: Int) -> [String] {
        let r = configuration.integers("region")
        guard r.count == 4, r != [0, 0, 16384, 16384], r[0] + r[2] > width || r[1] + r[3] > height else { return [] }
        let given = "region [\(r[0]), \(r[1]), \(r[2]), \(r[3])] reaches outside the \(width)×\(height) picture"
        let x1 = min(r[0] + r[2], width), y1 = min(r[1] + r[3], height)
        guard r[0] < x1, r[1] < y1 else { return [given + ": nothing is pixelated; move it inside the picture"] }
        return [given + ": only [\(r[0]), \(r[1]), \(x1 - r[0]), \(y1 - r[1])] is pixelated"]
    }

    /// Values are clamped to the parameter ranges.
    public init(x: Int = 0, y: Int = 0, width: Int = 16384, height: Int = 16384, block: Int = 16) {
        func clamp(_ v: Int, _ lo: Int, _ hi: Int) -> Int { min(max(v, lo), hi) }
        self.x = clamp(x, 0, 16384); self.y = clamp(y, 0, 16384)
        self.w = clamp(width, 0, 16384); self.h = clamp(height, 0, 16384)
        self.block = clamp(block, 2, 256)
    }

    public func process(_ frame: borrowing Frame, context: FilterContext) throws -> FilterVerdict {
        // The region clipped to the frame; nothing to do when they do not intersect (even if
        // the halved chroma region would reach a chroma sample, e.g. x = width for odd widths).
        let luma = frame.plane(0)
        let x1 = min(x + w, luma.width), y1 = min(y + h, luma.height)
        guard x < x1, y < y1 else { return .keep }
        switch frame.format {
        case .i420, .nv12:
            Self.pixelate(luma, x0: x, y0: y, x1: x1, y1: y1, block: block, bytesPerSample: 1, channels: 1)
            let cb = max(1, block / 2)
            let cx0 = x / 2, cy0 = y / 2, cx1 = (x1 + 1) / 2, cy1 = (y1 + 1) / 2
            if frame.format == .i420 {
                for i in 1...2 {
                    Self.pixelate(
                        frame.plane(i), x0: cx0, y0: cy0, x1: cx1, y1: cy1, block: cb,
                        bytesPerSample: 1, channels: 1)
                }
            } else {
                Self.pixelate(
                    frame.plane(1), x0: cx0, y0: cy0, x1: cx1, y1: cy1, block: cb,
                    bytesPerSample: 2, channels: 2)
            }
        case .rgba:
            Self.pixelate(luma, x0: x, y0: y, x1: x1, y1: y1, block: block, bytesPerSample: 4, channels: 4)
        case .bgrx:
            Self.pixelate(luma, x0: x, y0: y, x1: x1, y1: y1, block: block, bytesPerSample: 4, channels: 3)
        }
        return .keep
    }

    /// Pixelates `[x0, x1) × [y0, y1)` (in samples, clipped here to the plane) of one plane
    /// whose samples are `bytesPerSample` bytes, averaging the first `channels` of them.
    static func pixelate(
        _ plane: Plane, x0: Int, y0: Int, x1 rx1: Int, y1 ry1: Int, block: Int,
        bytesPerSample bps: Int, channels: Int
    ) {
        let x1 = min(rx1, plane.width), y1 = min(ry1, plane.height)
        guard x0 >= 0, y0 >= 0, x0 < x1, y0 < y1, block > 0 else { return }
        var by = y0
        while by < y1 {
            let ey = min(by + block, y1)
            var bx = x0
            while bx < x1 {
                let ex = min(bx + block, x1)
                let count = (ex - bx) * (ey - by)
                for c in 0..<channels {
                    var sum = 0
                    for yy in by..<ey {
                        var p = plane.row(yy) + (bx * bps + c)
                        var n = ex - bx
                        while n > 0 { sum &+= Int(p.pointee); p += bps; n &-= 1 }
                    }
                    let mean = UInt8(truncatingIfNeeded: (sum + count / 2) / count)
                    for yy in by..<ey {
                        var p = plane.row(yy) + (bx * bps + c)
                        var n = ex - bx
                        while n > 0 { p.pointee = mean; p += bps; n &-= 1 }
                    }
                }
                bx = ex
            }
            by = ey
        }
    }
}
