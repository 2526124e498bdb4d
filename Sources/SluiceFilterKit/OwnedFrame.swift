/// A frame in memory Sluice allocated itself: for tests, benchmarks and plugin authors who
/// want to run a filter without GStreamer. Rows can be padded (`rowPadding` extra bytes per
/// row) to exercise stride handling.
public final class OwnedFrame {
    /// The pixel format.
    public let format: PixelFormat
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// Bytes from one row to the next, per plane (row bytes plus `rowPadding`).
    public let strides: [Int]
    private var storage: [UnsafeMutablePointer<UInt8>]
    private let sizes: [Int]

    /// Allocates a `width`×`height` frame of `format`, every byte (padding included) set to
    /// `fill`, each row followed by `rowPadding` extra bytes.
    public init(format: PixelFormat, width: Int, height: Int, rowPadding: Int = 0, fill: UInt8 = 0) {
        self.format = format; self.width = width; self.height = height
        var strides: [Int] = [], storage: [UnsafeMutablePointer<UInt8>] = [], sizes: [Int] = []
        for i in 0..<format.planeCount {
            let (w, h) = format.planeSize(i, width: width, height: height)
            let rowBytes = w * Self.bytesPerSample(format, plane: i)
            let stride = rowBytes + rowPadding
            let p = UnsafeMutablePointer<UInt8>.allocate(capacity: stride * h)
            p.initialize(repeating: fill, count: stride * h)
            strides.append(stride); storage.append(p); sizes.append(stride * h)
        }
        self.strides = strides; self.storage = storage; self.sizes = sizes
    }

    deinit { for p in storage { p.deallocate() } }

    /// Bytes per sample of plane `plane`: 4 for packed RGB, 2 for NV12's UV pairs, else 1.
    public static func bytesPerSample(_ format: PixelFormat, plane: Int) -> Int {
        switch format {
        case .rgba, .bgrx: 4
        case .nv12: plane == 1 ? 2 : 1
        case .i420: 1
        }
    }

    /// Byte `x` (in bytes, not samples) of row `y` of `plane`.
    public subscript(plane: Int, x: Int, y: Int) -> UInt8 {
        get { storage[plane][y * strides[plane] + x] }
        set { storage[plane][y * strides[plane] + x] = newValue }
    }

    /// Bytes per row in use (without padding) of `plane`.
    public func rowBytes(_ plane: Int) -> Int {
        format.planeSize(plane, width: width, height: height).width * Self.bytesPerSample(format, plane: plane)
    }

    /// Rows of `plane`.
    public func rows(_ plane: Int) -> Int { format.planeSize(plane, width: width, height: height).height }

    /// Calls `body` with a `Frame` view of this memory.
    public func withFrame<R>(number: UInt64 = 0, pts: UInt64? = nil, _ body: (borrowing Frame) throws -> R) rethrows -> R {
        func plane(_ i: Int) -> Plane? {
            guard i < storage.count else { return nil }
            let (w, h) = format.planeSize(i, width: width, height: height)
            return Plane(base: storage[i], stride: strides[i], width: w, height: h)
        }
        let frame = Frame(
            format: format, width: width, height: height, planes: (plane(0)!, plane(1), plane(2)),
            pts: pts, duration: nil, frameNumber: number)
        return try body(frame)
    }

    /// Whether the padding bytes at the end of each row still hold `value` (filters must
    /// not write past a row's end).
    public func paddingIsIntact(_ value: UInt8) -> Bool {
        for i in 0..<storage.count {
            let used = rowBytes(i)
            for y in 0..<rows(i) {
                for x in used..<strides[i] where storage[i][y * strides[i] + x] != value { return false }
            }
        }
        return true
    }
}
