#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
import SluiceFilterKit

/// The framestamp code shared by `FramestampWriter` and `FramestampReader`.
///
/// 96 bits in three 32-bit words, each drawn as one row of 32 squares, most significant bit
/// first (left):
/// - word 0: the frame number (`UInt32`, the frame's `frameNumber` truncated);
/// - word 1: bits 47...16 of the capture time;
/// - word 2: bits 15...0 of the capture time, then the CRC-16/CCITT-FALSE (poly 0x1021,
///   init 0xFFFF, no reflection, no final xor) of the 10 bytes number (big-endian, 4 bytes) ·
///   capture time (big-endian, 6 bytes).
///
/// The capture time is `CLOCK_MONOTONIC` in microseconds, truncated to 48 bits.
public enum Framestamp {
    /// Bits of the capture time.
    public static let timestampBits = 48
    public static let timestampMask: UInt64 = (1 << 48) - 1
    /// Squares per row, and rows.
    public static let columns = 32, rows = 3
    /// Luma levels of a 1 and a 0 in YUV frames (RGB: 255 and 0).
    public static let yuvOne: UInt8 = 235, yuvZero: UInt8 = 16

    /// CLOCK_MONOTONIC in microseconds, truncated to 48 bits.
    public static func monotonicMicroseconds() -> UInt64 {
        var ts = timespec()
        _ = clock_gettime(CLOCK_MONOTONIC, &ts)
        let s = UInt64(truncatingIfNeeded: ts.tv_sec), ns = UInt64(truncatingIfNeeded: ts.tv_nsec)
        return (s &* 1_000_000 &+ ns / 1000) & timestampMask
    }

    /// CRC-16/CCITT-FALSE of `bytes` (check value of "123456789" is 0x29B1).
    public static func crc16<S: Sequence>(_ bytes: S) -> UInt16 where S.Element == UInt8 {
        var crc: UInt16 = 0xFFFF
        for byte in bytes {
            crc ^= UInt16(byte) << 8
            for _ in 0..<8 {
                crc = crc & 0x8000 != 0 ? (crc << 1) ^ 0x1021 : crc << 1
            }
        }
        return crc
    }

    static func crc(number: UInt32, timestamp: UInt64) -> UInt16 {
        let t = timestamp & timestampMask
        let bytes: [UInt8] = [
            UInt8(truncatingIfNeeded: number >> 24), UInt8(truncatingIfNeeded: number >> 16),
            UInt8(truncatingIfNeeded: number >> 8), UInt8(truncatingIfNeeded: number),
            UInt8(truncatingIfNeeded: t >> 40), UInt8(truncatingIfNeeded: t >> 32),
            UInt8(truncatingIfNeeded: t >> 24), UInt8(truncatingIfNeeded: t >> 16),
            UInt8(truncatingIfNeeded: t >> 8), UInt8(truncatingIfNeeded: t)
        ]
        return crc16(bytes)
    }

    /// The three words drawn for `number` and `timestamp` (truncated to 48 bits).
    public static func encode(number: UInt32, timestamp: UInt64) -> (UInt32, UInt32, UInt32) {
        let t = timestamp & timestampMask
        let crc = crc(number: number, timestamp: t)
        return (
            number, UInt32(truncatingIfNeeded: t >> 16),
            UInt32(truncatingIfNeeded: t & 0xFFFF) << 16 | UInt32(crc)
        )
    }

    /// The number and timestamp of three words read back, or nil if the CRC does not match.
    public static func decode(_ words: (UInt32, UInt32, UInt32)) -> (number: UInt32, timestamp: UInt64)? {
        let t = UInt64(words.1) << 16 | UInt64(words.2 >> 16)
        guard UInt16(truncatingIfNeeded: words.2) == crc(number: words.0, timestamp: t) else { return nil }
        return (words.0, t)
    }

    /// Where the pattern goes in a `width`×`height` frame: its top-left corner is `(x, y)`
    /// and its squares are `block` pixels, scaled down (to at least 2) when 32 × 3 squares do
    /// not fit; nil when even 2-pixel squares do not fit.
    public static func layout(width: Int, height: Int, x: Int, y: Int, block: Int) -> (x: Int, y: Int, block: Int)? {
        guard x >= 0, y >= 0, width > x, height > y else { return nil }
        let b = min(block, (width - x) / columns, (height - y) / rows)
        return b >= 2 ? (x, y, b) : nil
    }

    /// `block`, `x` and `y` clamped to the parameter ranges (writer and reader alike).
    static func clamped(block: Int, x: Int, y: Int) -> (block: Int, x: Int, y: Int) {
        (min(max(block, 4), 64), min(max(x, 0), 16384), min(max(y, 0), 16384))
    }

    static let parameters: [FilterParameter] = [
        FilterParameter(
            "block", .integer(min: 4, max: 64), default: .integer(16),
            summary: "square size in pixels (shrunk to fit small frames, min 2); framestamp-read must use the writer's"),
        FilterParameter(
            "x", .integer(min: 0, max: 16384), default: .integer(0),
            summary: "left edge of the pattern (the same for writer and reader)"),
        FilterParameter(
            "y", .integer(min: 0, max: 16384), default: .integer(0),
            summary: "top edge of the pattern (the same for writer and reader)")
    ]
}

/// Writes a machine-readable stamp into every frame: the frame number and the capture time
/// (monotonic clock, µs) with a CRC, as 3 rows of 32 black/white squares (see `Framestamp`).
/// `FramestampReader` on the receive side recovers them and reports the end-to-end latency.
///
/// Parameters: `block` (4...64, default 16) is the square size, `x` and `y` (default 0) the
/// pattern's top-left corner, in pixels. A 1 is luma 235 and a 0 luma 16 in YUV frames, where
/// the chroma under the pattern is set to 128; in packed frames they are white and black
/// (RGBA alpha becomes 255; BGRx's x byte is untouched). When the frame is too small for
/// the pattern at `(x, y)`, the squares shrink to fit (down to 2 px); below that, nothing is
/// written and `framestamp-skipped` is emitted. The defaults survive VP8/H.264 at 720p and
/// 2 Mbit/s.
public final class FramestampWriter: FrameFilter {
    public static let name = "framestamp"
    public static let summary = "Writes the frame number and capture time as a pattern of squares"
    public static let formats: [PixelFormat] = [.i420, .nv12, .rgba, .bgrx]
    public static let parameters = Framestamp.parameters

    public let block: Int, x: Int, y: Int
    private let clock: () -> UInt64
    /// The number and (48-bit) timestamp of the last stamp written.
    public private(set) var lastStamp: (number: UInt32, timestamp: UInt64)?

    public convenience init(configuration: FilterConfiguration) throws {
        self.init(block: configuration.integer("block"), x: configuration.integer("x"), y: configuration.integer("y"))
    }

    /// Values are clamped to the parameter ranges. `clock` returns microseconds (tests).
    public init(
        block: Int = 16, x: Int = 0, y: Int = 0,
        clock: @escaping () -> UInt64 = Framestamp.monotonicMicroseconds
    ) {
        (self.block, self.x, self.y) = Framestamp.clamped(block: block, x: x, y: y)
        self.clock = clock
    }

    public func process(_ frame: borrowing Frame, context: FilterContext) throws -> FilterVerdict {
        let luma = frame.plane(0)
        guard let at = Framestamp.layout(width: luma.width, height: luma.height, x: x, y: y, block: block) else {
            context.emit("framestamp-skipped")
            return .keep
        }
        let number = UInt32(truncatingIfNeeded: frame.frameNumber)
        let timestamp = clock() & Framestamp.timestampMask
        let w = Framestamp.encode(number: number, timestamp: timestamp)
        let words = [w.0, w.1, w.2]
        let b = at.block
        switch frame.format {
        case .i420, .nv12:
            for r in 0..<Framestamp.rows {
                for py in (at.y + r * b)..<(at.y + (r + 1) * b) {
                    let row = luma.row(py) + at.x
                    for bit in 0..<Framestamp.columns {
                        let v = (words[r] >> UInt32(31 - bit)) & 1 == 1 ? Framestamp.yuvOne : Framestamp.yuvZero
                        (row + bit * b).update(repeating: v, count: b)
                    }
                }
            }
            // Neutral chroma under the pattern (every chroma sample a pattern pixel maps to).
            let cx0 = at.x / 2, cy0 = at.y / 2
            let cx1 = (at.x + Framestamp.columns * b + 1) / 2, cy1 = (at.y + Framestamp.rows * b + 1) / 2
            let chroma = frame.format == .i420 ? [frame.plane(1), frame.plane(2)] : [frame.plane(1)]
            let bps = frame.format == .i420 ? 1 : 2
            for p in chroma {
                let ex = min(cx1, p.width), ey = min(cy1, p.height)
                guard cx0 < ex, cy0 < ey else { continue }
                for cy in cy0..<ey { (p.row(cy) + cx0 * bps).update(repeating: 128, count: (ex - cx0) * bps) }
            }
        case .rgba, .bgrx:
            let rgba = frame.format == .rgba
            for r in 0..<Framestamp.rows {
                for py in (at.y + r * b)..<(at.y + (r + 1) * b) {
                    var q = luma.row(py) + at.x * 4
                    for bit in 0..<Framestamp.columns {
                        let v: UInt8 = (words[r] >> UInt32(31 - bit)) & 1 == 1 ? 255 : 0
                        for _ in 0..<b {
                            q[0] = v; q[1] = v; q[2] = v
                            if rgba { q[3] = 255 }
                            q += 4
                        }
                    }
                }
            }
        }
        lastStamp = (number, timestamp)
        return .keep
    }
}

/// Reads the stamp `FramestampWriter` wrote (analysis only; never writes).
///
/// `block`, `x` and `y` must be the writer's, and the frame must have the writer's size (the
/// square size is derived from both when the writer had to shrink it) or half or a quarter
/// of it (a sender that lowers its resolution under congestion): when the stamp does not
/// read at the writer's geometry it is tried at half and a quarter of it. Each square is read
/// as the mean luma of its central half (from `block/4` to `block - block/4` in both
/// directions; computed luma (77·R + 150·G + 29·B + 128) >> 8 for packed formats),
/// thresholded halfway between the 0 and 1 levels. When the CRC matches it emits
/// `framestamp` with `number`, `captured_us` and `latency_us` (the same monotonic clock, now,
/// minus the capture time, modulo 2^48 and read as signed); otherwise `framestamp-unreadable`.
public final class FramestampReader: FrameFilter {
    public static let name = "framestamp-read"
    public static let summary = "Reads the framestamp pattern and reports frame numbers and capture-to-here latency"
    public static let formats: [PixelFormat] = [.i420, .nv12, .rgba, .bgrx]
    public static let modifiesPixels = false
    public static let parameters = Framestamp.parameters

    /// Cumulative counts since the element started.
    public struct Statistics: Sendable, Equatable {
        /// Frames whose stamp was read (CRC ok).
        public var read = 0
        /// Frames without a readable stamp (CRC mismatch, or frame too small).
        public var unreadable = 0
        /// The number of the newest stamp read so far.
        public var lastNumber: UInt32?
        /// Numbers skipped between consecutive stamps read (frames lost or not readable).
        public var missing = 0
        /// Stamps older than the newest one already read.
        public var outOfOrder = 0
        /// Stamps with the same number as the newest one.
        public var duplicates = 0
        /// The latency of the last stamp read, in microseconds.
        public var lastLatencyMicroseconds: Int?
        public init() {}
    }

    public let block: Int, x: Int, y: Int
    private let clock: () -> UInt64
    /// Counters. Updated by `process`; read them from the thread that calls it, or after the
    /// stream has ended.
    public private(set) var statistics = Statistics()

    public convenience init(configuration: FilterConfiguration) throws {
        self.init(block: configuration.integer("block"), x: configuration.integer("x"), y: configuration.integer("y"))
    }

    /// Values are clamped to the parameter ranges. `clock` returns microseconds (tests).
    public init(
        block: Int = 16, x: Int = 0, y: Int = 0,
        clock: @escaping () -> UInt64 = Framestamp.monotonicMicroseconds
    ) {
        (self.block, self.x, self.y) = Framestamp.clamped(block: block, x: x, y: y)
        self.clock = clock
    }

    /// Reads the stamp of a frame without emitting anything or counting: at the writer's
    /// geometry, else at half and a quarter of it (a picture scaled down after the writer).
    public func read(_ frame: borrowing Frame) -> (number: UInt32, timestamp: UInt64)? {
        for scale in [1, 2, 4] where block / scale >= 4 || scale == 1 {
            if let stamp = read(frame, block: block / scale, x: x / scale, y: y / scale) { return stamp }
        }
        return nil
    }

    private func read(_ frame: borrowing Frame, block: Int, x: Int, y: Int) -> (number: UInt32, timestamp: UInt64)? {
        let plane = frame.plane(0)
        guard let at = Framestamp.layout(width: plane.width, height: plane.height, x: x, y: y, block: block) else {
            return nil
        }
        let b = at.block, inset = b / 4
        let n = (b - 2 * inset) * (b - 2 * inset)
        let packed = !frame.format.isYUV
        let (ri, bi) = frame.format == .bgrx ? (2, 0) : (0, 2)
        // 2·mean > one + zero, i.e. 2·sum > (one + zero)·n
        let limit = (packed ? 255 : Int(Framestamp.yuvOne) + Int(Framestamp.yuvZero)) * n
        var words: [UInt32] = [0, 0, 0]
        for r in 0..<Framestamp.rows {
            var word: UInt32 = 0
            for bit in 0..<Framestamp.columns {
                let x0 = at.x + bit * b + inset, x1 = at.x + (bit + 1) * b - inset
                let y0 = at.y + r * b + inset, y1 = at.y + (r + 1) * b - inset
                var sum = 0
                for py in y0..<y1 {
                    let row = UnsafePointer(plane.row(py))
                    if packed {
                        for px in x0..<x1 {
                            let p = row + px * 4
                            sum &+= (Int(p[ri]) * 77 + Int(p[1]) * 150 + Int(p[bi]) * 29 + 128) >> 8
                        }
                    } else {
                        for px in x0..<x1 { sum &+= Int(row[px]) }
                    }
                }
                word = word << 1 | (2 * sum > limit ? 1 : 0)
            }
            words[r] = word
        }
        return Framestamp.decode((words[0], words[1], words[2]))
    }

    public func process(_ frame: borrowing Frame, context: FilterContext) throws -> FilterVerdict {
        guard let stamp = read(frame) else {
            statistics.unreadable += 1
            context.emit("framestamp-unreadable")
            return .keep
        }
        let now = clock() & Framestamp.timestampMask
        // Modulo 2^48, read as signed (a clock behind the writer's gives a negative latency).
        let wrapped = Int((now &- stamp.timestamp) & Framestamp.timestampMask)
        let latency = wrapped >= 1 << 47 ? wrapped - (1 << 48) : wrapped
        statistics.read += 1
        statistics.lastLatencyMicroseconds = latency
        if let last = statistics.lastNumber {
            let ahead = stamp.number &- last
            if ahead == 0 {
                statistics.duplicates += 1
            } else if ahead < 1 << 31 {
                statistics.missing += Int(ahead - 1)
                statistics.lastNumber = stamp.number
            } else {
                statistics.outOfOrder += 1
            }
        } else {
            statistics.lastNumber = stamp.number
        }
        context.emit(
            "framestamp",
            [
                "number": Double(stamp.number), "captured_us": Double(stamp.timestamp),
                "latency_us": Double(latency)
            ])
        return .keep
    }
}
