import SluiceFilterKit

/// A synthetic moving picture for tests and benchmarks: a smooth gradient background that
/// drifts over time, a vertical bar sweeping left to right, and four coloured boxes bouncing
/// off the edges at different velocities.
///
/// Parameters: `speed` (0...100, default 4) is the motion in pixels per frame (boxes move at
/// 0.5–2× it, the bar at 1.5×); `seed` (default 1) picks the boxes' sizes, colours, starting
/// points and directions. Frame `n` depends only on `n`, the frame size and format, `speed`
/// and `seed`, so a given frame number always draws the same bytes. A frame costs a few table
/// look-ups per pixel (no trigonometry): cheap enough for 1080p30 on one core. YUV frames use
/// BT.601 limited-range levels; packed frames are opaque (alpha / x byte 255). Row padding is
/// never written.
public final class MovingScene: FrameSource {
    public static let name = "scene"
    public static let summary = "Synthetic moving scene: drifting gradient, bouncing boxes, a sweeping bar"
    public static let formats: [PixelFormat] = [.i420, .nv12, .rgba, .bgrx]
    public static let parameters: [FilterParameter] = [
        FilterParameter(
            "speed", .number(min: 0, max: 100), default: .number(4),
            summary: "motion in pixels per frame"),
        FilterParameter(
            "seed", .integer(min: 0, max: Int(Int32.max)), default: .integer(1),
            summary: "chooses the boxes' sizes, colours and paths")
    ]

    struct Box {
        var width: Double, height: Double // fractions of the frame
        var startX: Double, startY: Double // fractions of the travel
        var velocityX: Double, velocityY: Double // multiples of speed
        var rgb: (UInt8, UInt8, UInt8)
    }

    public let speed: Double
    public let seed: Int
    let boxes: [Box]
    // Per-frame look-up tables (see fillTables), reused across frames.
    private var tableX: [UInt8] = [], tableY: [UInt8] = [], tableD: [UInt8] = [], tableV: [UInt8] = []

    public convenience init(configuration: FilterConfiguration) throws {
        self.init(speed: configuration.number("speed"), seed: configuration.integer("seed"))
    }

    /// `speed` is clamped to 0...100.
    public init(speed: Double = 4, seed: Int = 1) {
        self.speed = speed.isNaN ? 4 : min(max(speed, 0), 100)
        self.seed = seed
        var rng = SplitMix64(seed: UInt64(truncatingIfNeeded: seed))
        let palette: [(UInt8, UInt8, UInt8)] = [
            (230, 40, 40), (40, 200, 60), (50, 80, 235), (240, 220, 40), (220, 60, 220), (40, 210, 220)
        ]
        let first = Int(rng.next() % UInt64(palette.count))
        var boxes: [Box] = []
        for i in 0..<4 {
            let w = 0.08 + 0.12 * rng.unit(), h = 0.10 + 0.15 * rng.unit()
            let sx = rng.unit(), sy = rng.unit()
            let vx = (rng.next() & 1 == 0 ? -1.0 : 1.0) * (0.5 + 1.5 * rng.unit())
            let vy = (rng.next() & 1 == 0 ? -1.0 : 1.0) * (0.5 + 1.5 * rng.unit())
            boxes.append(
                Box(
                    width: w, height: h, startX: sx, startY: sy, velocityX: vx, velocityY: vy,
                    rgb: palette[(first + i) % palette.count]))
        }
        self.boxes = boxes
    }

    /// Draws frame `frameNumber`: the background, then the bar, then the boxes over them.
    public func draw(into frame: borrowing Frame) -> Bool {
        let luma = frame.plane(0)
        let width = luma.width, height = luma.height
        guard width > 0, height > 0 else { return true }
        let t = speed * Double(frame.frameNumber)
        switch frame.format {
        case .i420, .nv12: drawYUVBackground(frame, t: t)
        case .rgba, .bgrx: drawRGBBackground(frame, t: t)
        }
        drawBar(frame, t: t)
        drawBoxes(frame, t: t)
        return true
    }

    /// The drifting gradient in I420 or NV12: luma from tableX + tableY, chroma from tableD
    /// (U, by column) and tableV (V, by row).
    private func drawYUVBackground(_ frame: borrowing Frame, t: Double) {
        let format = frame.format
        let luma = frame.plane(0)
        let width = luma.width, height = luma.height
        let chroma = frame.plane(1), v = frame.plane(format == .i420 ? 2 : 1)
        fillTables(
            width: width, height: height, chromaWidth: chroma.width, chromaHeight: chroma.height,
            t: t, yuv: true)
        tableX.withUnsafeBufferPointer { tx in
            tableY.withUnsafeBufferPointer { ty in
                for y in 0..<height {
                    let row = luma.row(y)
                    let base = ty[y]
                    for x in 0..<width { row[x] = tx[x] &+ base }
                }
            }
        }
        tableD.withUnsafeBufferPointer { tu in
            tableV.withUnsafeBufferPointer { tv in
                if format == .i420 {
                    for y in 0..<min(chroma.height, v.height, tv.count) {
                        let ur = chroma.row(y), vr = v.row(y), value = tv[y]
                        for x in 0..<min(chroma.width, tu.count) { ur[x] = tu[x] }
                        for x in 0..<v.width { vr[x] = value }
                    }
                } else {
                    for y in 0..<min(chroma.height, tv.count) {
                        var q = chroma.row(y)
                        let value = tv[y]
                        for x in 0..<min(chroma.width, tu.count) { q[0] = tu[x]; q[1] = value; q += 2 }
                    }
                }
            }
        }
    }

    /// The drifting gradient in RGBA or BGRx: red by column, green by row, blue by diagonal.
    private func drawRGBBackground(_ frame: borrowing Frame, t: Double) {
        let luma = frame.plane(0)
        let width = luma.width, height = luma.height
        fillTables(width: width, height: height, chromaWidth: 0, chromaHeight: 0, t: t, yuv: false)
        let (ri, bi) = frame.format == .rgba ? (0, 2) : (2, 0)
        tableX.withUnsafeBufferPointer { tx in
            tableY.withUnsafeBufferPointer { ty in
                tableD.withUnsafeBufferPointer { td in
                    for y in 0..<height {
                        var q = luma.row(y)
                        let g = ty[y]
                        for x in 0..<width {
                            q[ri] = tx[x]; q[1] = g; q[bi] = td[x &+ y]; q[3] = 255
                            q += 4
                        }
                    }
                }
            }
        }
    }

    /// The bar, sweeping left to right and wrapping.
    private func drawBar(_ frame: borrowing Frame, t: Double) {
        let luma = frame.plane(0)
        let width = luma.width, height = luma.height
        let barWidth = max(2, width / 48)
        let barX = Int((t * 1.5).truncatingRemainder(dividingBy: Double(width)))
        fill(frame, x0: barX, y0: 0, x1: barX + barWidth, y1: height, rgb: (235, 235, 235))
    }

    /// The boxes, bouncing off the edges.
    private func drawBoxes(_ frame: borrowing Frame, t: Double) {
        let luma = frame.plane(0)
        let width = luma.width, height = luma.height
        for box in boxes {
            let bw = min(width, max(1, Int(box.width * Double(width))))
            let bh = min(height, max(1, Int(box.height * Double(height))))
            let rangeX = Double(width - bw), rangeY = Double(height - bh)
            let x = Self.bounce(box.startX * rangeX + box.velocityX * t, range: rangeX)
            let y = Self.bounce(box.startY * rangeY + box.velocityY * t, range: rangeY)
            fill(frame, x0: x, y0: y, x1: x + bw, y1: y + bh, rgb: box.rgb)
        }
    }

    /// A position moving freely, reflected into `0...range`.
    static func bounce(_ position: Double, range: Double) -> Int {
        guard range >= 1, position.isFinite else { return 0 }
        let period = 2 * range
        var m = position.truncatingRemainder(dividingBy: period)
        if m < 0 { m += period }
        let v = m <= range ? m : period - m
        return min(max(Int(v), 0), Int(range))
    }

    /// 0...255...0 over 512 steps.
    @inline(__always) static func triangle(_ v: Int) -> Int {
        let m = v & 511
        return m < 256 ? m : 511 - m
    }

    /// RGB: tableX[x] = R, tableY[y] = G, tableD[x + y] = B, each a drifting triangle wave
    /// across the frame, in 40...193.
    /// YUV: luma = tableX[x] + tableY[y] (16...216); U = tableD[chroma x], V = tableV[chroma y]
    /// (128 ± 42).
    private func fillTables(width: Int, height: Int, chromaWidth: Int, chromaHeight: Int, t: Double, yuv: Bool) {
        func phase(_ k: Double) -> Int { Int((t * k).truncatingRemainder(dividingBy: 512)) }
        let px = phase(1), py = phase(0.7), pd = phase(1.3)
        func wave(_ count: Int, _ phase: Int, _ value: (Int) -> Int) -> [UInt8] {
            let n = max(count, 1)
            var out = [UInt8](repeating: 0, count: count)
            for i in 0..<count {
                out[i] = UInt8(clamping: value(Self.triangle(i * 512 / n + phase)))
            }
            return out
        }
        if yuv {
            tableX = wave(width, px) { 16 + $0 * 100 / 255 }
            tableY = wave(height, py) { $0 * 100 / 255 }
            tableD = wave(chromaWidth, pd) { 128 + ($0 - 128) / 3 }
            tableV = wave(chromaHeight, py) { 128 + ($0 - 128) / 3 }
        } else {
            tableX = wave(width, px) { 40 + $0 * 3 / 5 }
            tableY = wave(height, py) { 40 + $0 * 3 / 5 }
            // Indexed by x + y; period over the diagonal.
            let n = width + height
            var d = [UInt8](repeating: 0, count: n)
            for i in 0..<n { d[i] = UInt8(clamping: 40 + Self.triangle(i * 512 / n + pd) * 3 / 5) }
            tableD = d
        }
    }

    /// Fills the luma rectangle `[x0, x1) × [y0, y1)` (clipped) with a colour; in 4:2:0 formats
    /// also the chroma samples under it.
    private func fill(
        _ frame: borrowing Frame, x0 rx0: Int, y0 ry0: Int, x1 rx1: Int, y1 ry1: Int,
        rgb: (UInt8, UInt8, UInt8)
    ) {
        let p = frame.plane(0)
        let x0 = max(rx0, 0), y0 = max(ry0, 0), x1 = min(rx1, p.width), y1 = min(ry1, p.height)
        guard x0 < x1, y0 < y1 else { return }
        switch frame.format {
        case .i420, .nv12:
            let (yv, u, v) = Self.yuv(rgb)
            for y in y0..<y1 { (p.row(y) + x0).update(repeating: yv, count: x1 - x0) }
            let c = frame.plane(1)
            let cx0 = x0 / 2, cy0 = y0 / 2, cx1 = min((x1 + 1) / 2, c.width), cy1 = min((y1 + 1) / 2, c.height)
            guard cx0 < cx1, cy0 < cy1 else { return }
            if frame.format == .i420 {
                let vp = frame.plane(2)
                for y in cy0..<cy1 {
                    (c.row(y) + cx0).update(repeating: u, count: cx1 - cx0)
                    if y < vp.height, cx1 <= vp.width { (vp.row(y) + cx0).update(repeating: v, count: cx1 - cx0) }
                }
            } else {
                for y in cy0..<cy1 {
                    var q = c.row(y) + 2 * cx0
                    for _ in cx0..<cx1 { q[0] = u; q[1] = v; q += 2 }
                }
            }
        case .rgba, .bgrx:
            let (r, g, b) = rgb
            let (ri, bi) = frame.format == .rgba ? (0, 2) : (2, 0)
            for y in y0..<y1 {
                var q = p.row(y) + 4 * x0
                for _ in x0..<x1 { q[ri] = r; q[1] = g; q[bi] = b; q[3] = 255; q += 4 }
            }
        }
    }

    /// BT.601 limited range.
    static func yuv(_ rgb: (UInt8, UInt8, UInt8)) -> (UInt8, UInt8, UInt8) {
        let r = Int(rgb.0), g = Int(rgb.1), b = Int(rgb.2)
        return (
            UInt8(clamping: 16 + ((66 * r + 129 * g + 25 * b + 128) >> 8)),
            UInt8(clamping: 128 + ((-38 * r - 74 * g + 112 * b + 128) >> 8)),
            UInt8(clamping: 128 + ((112 * r - 94 * g - 18 * b + 128) >> 8))
        )
    }
}
