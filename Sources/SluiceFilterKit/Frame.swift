/// One plane of a frame: `height` rows of bytes, `stride` bytes apart (stride may exceed
/// the row's used bytes: rows can be padded).
public struct Plane: @unchecked Sendable { // a view; valid only during the call that hands it out
    /// The plane's first byte.
    public let base: UnsafeMutablePointer<UInt8>
    /// Bytes from one row to the next.
    public let stride: Int
    /// Samples (pixels, or chroma samples / pairs) per row.
    public let width: Int
    /// Rows.
    public let height: Int

    /// A plane of `height` rows of `width` samples starting at `base`, rows `stride` bytes apart.
    public init(base: UnsafeMutablePointer<UInt8>, stride: Int, width: Int, height: Int) {
        self.base = base; self.stride = stride; self.width = width; self.height = height
    }

    /// The first byte of row `y`.
    @inlinable public func row(_ y: Int) -> UnsafeMutablePointer<UInt8> { base + y * stride }
}

/// A video frame handed to a filter (to process in place) or a source (to draw into).
///
/// The memory belongs to GStreamer and is mapped only for the duration of the call; the
/// frame is non-copyable so it cannot escape it.
public struct Frame: ~Copyable {
    /// The pixel format, one of the formats the filter or source declared.
    public let format: PixelFormat
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// Presentation timestamp in nanoseconds, if the buffer has one.
    public let pts: UInt64?
    /// Duration in nanoseconds, if the buffer has one.
    public let duration: UInt64?
    /// Frames this element has seen before this one (0-based).
    public let frameNumber: UInt64
    private let p0: Plane, p1: Plane?, p2: Plane?

    /// A frame of `planes` (the second and third nil for formats with fewer planes). Sluice
    /// makes these; a test can use ``OwnedFrame/withFrame(number:pts:_:)`` instead.
    public init(
        format: PixelFormat, width: Int, height: Int, planes: (Plane, Plane?, Plane?),
        pts: UInt64?, duration: UInt64?, frameNumber: UInt64
    ) {
        self.format = format; self.width = width; self.height = height
        self.p0 = planes.0; self.p1 = planes.1; self.p2 = planes.2
        self.pts = pts; self.duration = duration; self.frameNumber = frameNumber
    }

    /// Number of planes: 3 for I420, 2 for NV12, 1 for packed RGB.
    public var planeCount: Int { format.planeCount }

    /// Plane `index` (0 ..< planeCount). Index 0 is luma for YUV formats.
    @inlinable public func plane(_ index: Int) -> Plane {
        switch index {
        case 1: return planeUnchecked1
        case 2: return planeUnchecked2
        default: return planeUnchecked0
        }
    }
    @usableFromInline var planeUnchecked0: Plane { p0 }
    @usableFromInline var planeUnchecked1: Plane { p1 ?? p0 }
    @usableFromInline var planeUnchecked2: Plane { p2 ?? p0 }
}
