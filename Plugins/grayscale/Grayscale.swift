#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import SluiceFilterKit

/// Removes colour.
///
/// - YUV (I420, NV12): every chroma sample becomes 128; luma is unchanged.
/// - RGBA: R = G = B = (77·R + 150·G + 29·B + 128) >> 8 (BT.601 weights), alpha unchanged.
/// - BGRx: the same on the B, G, R bytes; the x byte is unchanged.
///
/// Only the used bytes of each row are written (row padding is never touched).
public final class Grayscale: FrameFilter {
    public static let name = "grayscale"
    public static let summary = "Removes colour: neutral chroma (YUV) or BT.601 luma in R, G and B (packed)"
    public static let formats: [PixelFormat] = [.i420, .nv12, .rgba, .bgrx]

    public init(configuration: FilterConfiguration) throws {}
    public init() {}

    public func process(_ frame: borrowing Frame, context: FilterContext) throws -> FilterVerdict {
        switch frame.format {
        case .i420:
            Self.neutralChroma(frame.plane(1), bytesPerSample: 1)
            Self.neutralChroma(frame.plane(2), bytesPerSample: 1)
        case .nv12:
            Self.neutralChroma(frame.plane(1), bytesPerSample: 2)
        case .rgba:
            let p = frame.plane(0)
            for y in 0..<max(0, p.height) {
                Self.grayRow(p.row(y), count: p.width, w0: 77, w2: 29)
            }
        case .bgrx:
            let p = frame.plane(0)
            for y in 0..<max(0, p.height) {
                Self.grayRow(p.row(y), count: p.width, w0: 29, w2: 77)
            }
        }
        return .keep
    }

    @inline(__always)
    static func neutralChroma(_ plane: Plane, bytesPerSample: Int) {
        let bytes = plane.width &* bytesPerSample
        guard bytes > 0 else { return }
        for y in 0..<max(0, plane.height) {
            _ = memset(plane.row(y), 128, bytes)
        }
    }

    /// One row of `count` 4-byte pixels. `w0` and `w2` are the weights of bytes 0 and 2 (byte 1
    /// is G, weight 150; byte 3 is kept).
    ///
    /// Whole pixels are loaded and stored as little-endian 32-bit words so the loop vectorizes
    /// (a 3-of-4-byte store would not). Bytes 0 and 2 are weighted with one multiply:
    /// `(b0 | b2 << 16) · (w0 << 16 | w2)` holds `b0·w0 + b2·w2` in bits 16...31 (the low
    /// product `b0·w2` < 2^16 cannot carry into it, and the sum ≤ 255·106 fits 16 bits).
    /// 77 + 150 + 29 = 256, so the rounded luma is at most 255.
    @inline(__always)
    static func grayRow(_ row: UnsafeMutablePointer<UInt8>, count: Int, w0: UInt32, w2: UInt32) {
        let raw = UnsafeMutableRawPointer(row)
        let k = w0 &<< 16 | w2
        var i = 0
        while i < count {
            let v = UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: i &* 4, as: UInt32.self))
            let outer = ((v & 0x00FF_00FF) &* k) &>> 16
            let l = (outer &+ ((v &>> 8) & 0xFF) &* 150 &+ 128) &>> 8
            let out = (v & 0xFF00_0000) | l | l &<< 8 | l &<< 16
            raw.storeBytes(of: out.littleEndian, toByteOffset: i &* 4, as: UInt32.self)
            i &+= 1
        }
    }
}
