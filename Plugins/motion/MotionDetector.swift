import SluiceFilterKit

/// Detects motion between consecutive frames (analysis only: it never writes to a frame).
///
/// Luma is sampled on a grid, every `step`-th pixel in both directions (x = 0, step, 2·step, …
/// on rows y = 0, step, …): the Y plane for YUV formats, (77·R + 150·G + 29·B) >> 8 for packed
/// ones. The score is the mean absolute difference between this frame's samples and the
/// previous frame's, divided by 255 (0...1). When it is at least `threshold`, the filter emits
/// `motion` with `score` and `frame` (the frame number). The first frame, and the first frame
/// after a change of size, format or layout, only record samples and emit nothing.
public final class MotionDetector: FrameFilter {
    public static let name = "motion"
    public static let summary = "Emits 'motion' events when the mean luma change between frames exceeds a threshold"
    public static let formats: [PixelFormat] = [.i420, .nv12, .rgba, .bgrx]
    public static let modifiesPixels = false
    public static let parameters: [FilterParameter] = [
        FilterParameter(
            "threshold", .number(min: 0, max: 1), default: .number(0.02),
            summary: "score (mean absolute luma difference / 255) at which to emit 'motion'"),
        FilterParameter(
            "step", .integer(min: 1, max: 64), default: .integer(4),
            summary: "sample every step-th pixel in each direction")
    ]

    public let threshold: Double
    public let step: Int
    /// The score of the last frame that had a previous one to compare with.
    public private(set) var lastScore: Double?

    private var previous: [UInt8] = []
    private var hasPrevious = false
    private var key = (format: PixelFormat.i420, width: -1, height: -1)

    public convenience init(configuration: FilterConfiguration) throws {
        self.init(threshold: configuration.number("threshold"), step: configuration.integer("step"))
    }

    /// Values are clamped to the parameter ranges.
    public init(threshold: Double = 0.02, step: Int = 4) {
        self.threshold = threshold.isNaN ? 0.02 : min(max(threshold, 0), 1)
        self.step = min(max(step, 1), 64)
    }

    public func process(_ frame: borrowing Frame, context: FilterContext) throws -> FilterVerdict {
        let plane = frame.plane(0)
        let width = plane.width, height = plane.height
        guard width > 0, height > 0 else { return .keep }
        let columns = (width + step - 1) / step, rows = (height + step - 1) / step
        let count = columns * rows
        if key.format != frame.format || key.width != width || key.height != height || previous.count != count {
            key = (frame.format, width, height)
            previous = [UInt8](repeating: 0, count: count)
            hasPrevious = false
        }
        let format = frame.format, step = self.step
        let total: Int = previous.withUnsafeMutableBufferPointer { buffer in
            guard let prev = buffer.baseAddress else { return 0 }
            var total = 0
            var i = 0
            var y = 0
            while y < height {
                let row = UnsafePointer(plane.row(y))
                switch format {
                case .i420, .nv12:
                    var x = 0
                    while x < width {
                        let v = row[x]
                        let d = Int(v) &- Int(prev[i])
                        total &+= d < 0 ? -d : d
                        prev[i] = v
                        i &+= 1; x &+= step
                    }
                case .rgba, .bgrx:
                    let (r, b) = format == .rgba ? (0, 2) : (2, 0)
                    var x = 0
                    while x < width {
                        let p = row + x &* 4
                        let l = (Int(p[r]) &* 77 &+ Int(p[1]) &* 150 &+ Int(p[b]) &* 29) &>> 8
                        let d = l &- Int(prev[i])
                        total &+= d < 0 ? -d : d
                        prev[i] = UInt8(truncatingIfNeeded: l)
                        i &+= 1; x &+= step
                    }
                }
                y &+= step
            }
            return total
        }
        guard hasPrevious else { hasPrevious = true; return .keep }
        let score = Double(total) / Double(count) / 255
        lastScore = score
        if score >= threshold {
            context.emit("motion", ["score": score, "frame": Double(frame.frameNumber)])
        }
        return .keep
    }
}
