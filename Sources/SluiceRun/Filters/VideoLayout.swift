import GStreamer
import SluiceFilterKit

/// The raw video a Swift filter or source element negotiated: one of the pixel formats it
/// supports, and the picture size. Makes the `Frame` view of each mapped frame without
/// allocating (the per-frame path).
package struct VideoLayout {
    package let format: PixelFormat
    package let width: Int
    package let height: Int

    /// The layout the negotiated caps describe; nil when `supported` lacks the format.
    package init?(formatName: String, width: Int, height: Int, supported: [PixelFormat]) {
        guard let f = PixelFormat(rawValue: formatName), supported.contains(f) else { return nil }
        format = f
        self.width = width
        self.height = height
    }

    /// Plane `i` of a mapped frame.
    package func plane(_ frame: borrowing VideoFrameRef, _ i: Int) -> Plane? {
        guard i < format.planeCount, let base = frame.planeData(i) else { return nil }
        let (w, h) = format.planeSize(i, width: width, height: height)
        return Plane(base: base, stride: frame.planeStride(i), width: w, height: h)
    }

    /// Runs `body` with the frame's view (false, without calling it, when its first plane is
    /// not mapped).
    package func withFrame<R>(_ frame: borrowing VideoFrameRef, number: UInt64, _ body: (borrowing Frame) throws -> R) rethrows -> R? {
        guard let p0 = plane(frame, 0) else { return nil }
        let view = Frame(
            format: format, width: width, height: height, planes: (p0, plane(frame, 1), plane(frame, 2)),
            pts: frame.pts.map(UInt64.init), duration: frame.duration.map(UInt64.init), frameNumber: number)
        return try body(view)
    }
}
