/// Raw audio sample formats a Swift audio filter can work on, named as GStreamer names them.
/// Samples are interleaved: frame 0's channels, then frame 1's, and so on.
public enum SampleFormat: String, Sendable, CaseIterable, Codable {
    /// Signed 16-bit integers, little-endian.
    case s16le = "S16LE"
    /// 32-bit floats, little-endian, full scale ±1.0.
    case f32le = "F32LE"

    /// Bytes per sample of one channel.
    public var bytesPerSample: Int { self == .s16le ? 2 : 4 }
}

/// One buffer of interleaved audio handed to an audio filter, to process in place.
///
/// The memory belongs to GStreamer and is mapped only for the duration of the call; the block
/// is non-copyable so it cannot escape it. An analysis-only filter must not write to it.
public struct AudioBlock: ~Copyable {
    /// The sample format, one of the formats the filter declared.
    public let format: SampleFormat
    /// Samples per second per channel.
    public let rate: Int
    /// Interleaved channels.
    public let channels: Int
    /// Samples per channel in this block.
    public let frameCount: Int
    /// Presentation timestamp of the first sample in nanoseconds, if the buffer has one.
    public let pts: UInt64?
    /// Blocks this element has seen before this one (0-based).
    public let blockNumber: UInt64
    /// Samples per channel this element handled before this block.
    public let sampleOffset: UInt64
    private let base: UnsafeMutableRawPointer

    /// A block over `byteCount` bytes at `base` (a whole number of frames is used; a trailing
    /// partial frame is left alone). Sluice makes these; a test can use
    /// `AudioBlock.withSamples(_:rate:channels:number:pts:_:)` (floats or 16-bit integers).
    public init(
        format: SampleFormat, rate: Int, channels: Int, base: UnsafeMutableRawPointer, byteCount: Int,
        pts: UInt64?, blockNumber: UInt64, sampleOffset: UInt64 = 0
    ) {
        self.format = format; self.rate = rate; self.channels = max(1, channels); self.base = base
        frameCount = byteCount / (format.bytesPerSample * max(1, channels))
        self.pts = pts; self.blockNumber = blockNumber; self.sampleOffset = sampleOffset
    }

    /// The block's whole frames as raw bytes (for handing them to C).
    public var bytes: UnsafeMutableRawBufferPointer {
        UnsafeMutableRawBufferPointer(start: base, count: sampleCount * format.bytesPerSample)
    }

    /// Samples in the block, all channels together (`frameCount × channels`).
    public var sampleCount: Int { frameCount * channels }
    /// The block's duration in nanoseconds.
    public var duration: UInt64 { rate > 0 ? UInt64(frameCount) * 1_000_000_000 / UInt64(rate) : 0 }

    /// The samples as 16-bit integers; nil unless the format is `s16le`.
    public var int16: UnsafeMutableBufferPointer<Int16>? {
        guard format == .s16le else { return nil }
        return UnsafeMutableBufferPointer(start: base.assumingMemoryBound(to: Int16.self), count: sampleCount)
    }

    /// The samples as floats; nil unless the format is `f32le`.
    public var float32: UnsafeMutableBufferPointer<Float>? {
        guard format == .f32le else { return nil }
        return UnsafeMutableBufferPointer(start: base.assumingMemoryBound(to: Float.self), count: sampleCount)
    }

    /// Sample `index` (interleaved) as a float in −1…1, whatever the format.
    @inlinable public func sample(_ index: Int) -> Float {
        if let f = float32 { return f[index] }
        return Float(int16?[index] ?? 0) / 32768
    }

    /// Calls `body` with a block over `samples` (interleaved floats), which it may change:
    /// for tests, benchmarks and plugin authors running a filter without GStreamer.
    public static func withSamples<R>(
        _ samples: inout [Float], rate: Int, channels: Int, number: UInt64 = 0, pts: UInt64? = nil,
        _ body: (borrowing AudioBlock) throws -> R
    ) rethrows -> R {
        try samples.withUnsafeMutableBytes { raw in
            let block = AudioBlock(
                format: .f32le, rate: rate, channels: channels, base: raw.baseAddress!, byteCount: raw.count,
                pts: pts, blockNumber: number)
            return try body(block)
        }
    }

    /// Calls `body` with a block over `samples` (interleaved 16-bit integers).
    public static func withSamples<R>(
        _ samples: inout [Int16], rate: Int, channels: Int, number: UInt64 = 0, pts: UInt64? = nil,
        _ body: (borrowing AudioBlock) throws -> R
    ) rethrows -> R {
        try samples.withUnsafeMutableBytes { raw in
            let block = AudioBlock(
                format: .s16le, rate: rate, channels: channels, base: raw.baseAddress!, byteCount: raw.count,
                pts: pts, blockNumber: number)
            return try body(block)
        }
    }
}
