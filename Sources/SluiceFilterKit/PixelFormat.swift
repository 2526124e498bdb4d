/// Raw video formats a Swift filter or source can work on, named as GStreamer names them.
public enum PixelFormat: String, Sendable, CaseIterable, Codable {
    /// Planar 4:2:0: Y, then U and V at half width and height.
    case i420 = "I420"
    /// Semi-planar 4:2:0: Y, then interleaved UV at half width and height.
    case nv12 = "NV12"
    /// Packed 8-bit R, G, B, A.
    case rgba = "RGBA"
    /// Packed 8-bit B, G, R, padding.
    case bgrx = "BGRx"

    /// Number of planes.
    public var planeCount: Int {
        switch self {
        case .i420: 3
        case .nv12: 2
        case .rgba, .bgrx: 1
        }
    }

    /// Whether the format is YUV (the first plane is luma).
    public var isYUV: Bool { self == .i420 || self == .nv12 }

    /// Bytes per pixel of a packed format; 1 for the luma plane of YUV formats.
    public var bytesPerPixel: Int { isYUV ? 1 : 4 }

    /// Samples per row and rows of plane `index` for a `width`×`height` frame (chroma planes
    /// of 4:2:0 formats round up for odd sizes). NV12's UV plane has `width/2` pairs per row.
    public func planeSize(_ index: Int, width: Int, height: Int) -> (width: Int, height: Int) {
        guard index > 0, isYUV else { return (width, height) }
        return ((width + 1) / 2, (height + 1) / 2)
    }
}
