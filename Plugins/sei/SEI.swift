import Foundation
import SluiceFilterKit

/// Per-frame metadata that travels inside H.264: on the send side (`send.video.encoded_filters`)
/// each frame gets an SEI `user_data_unregistered` message with Sluice's UUID before its first
/// slice, holding a small JSON object; on the receive side (`receive.video.encoded_filters`)
/// the messages are read back and reported. Decoders skip SEI; `ffprobe -show_frames` shows it
/// ("H.26[45] User Data Unregistered SEI message"), so a recording carries it too.
///
/// The message: `{"frame":N,"written_us":T,"value":V}`: the frame's number at the writer, the
/// monotonic clock (µs, `CLOCK_MONOTONIC`, as the framestamps use) when it was written (right
/// after the encoder), and `value`, a number the file sets and the control API can change
/// while the stream runs.
///
/// - `value` (number, default 0): carried in every message.
/// - `every` (1…1000, default 1): writes every Nth frame only.
///
/// The reader emits `sei` for each message with `frame`, `value` and `delay_ms` (its clock
/// now minus `written_us`: encoder output to depayloader on one machine), and `sei-malformed`
/// for a Sluice message whose JSON does not read. Other SEI (x264's, other UUIDs) is left alone.
public final class SEI: EncodedFrameFilter {
    public static let name = "sei"
    public static let summary = "Writes (send) and reads (receive) per-frame JSON in H.264 SEI user data"
    public static let codecs: [EncodedCodec] = [.h264]
    public static let parameters: [FilterParameter] = [
        FilterParameter("value", .number(min: -1e15, max: 1e15), default: .number(0), summary: "a number carried in every message"),
        FilterParameter("every", .integer(min: 1, max: 1000), default: .integer(1), summary: "write on every Nth frame")
    ]

    /// What a message carries.
    public struct Message: Sendable, Equatable, Codable {
        /// The frame's number at the writer, from 0.
        public var frame: UInt64
        /// The writer's monotonic clock, µs.
        public var written_us: UInt64
        /// The file's (or the control API's) value.
        public var value: Double
        /// A message.
        public init(frame: UInt64, written_us: UInt64, value: Double) {
            self.frame = frame; self.written_us = written_us; self.value = value
        }
    }

    private let value: Double
    private let every: UInt64
    private let clock: () -> UInt64
    /// Frames written before this instance (carried over when settings change while running).
    private var offset: UInt64 = 0

    public convenience init(configuration c: FilterConfiguration) throws {
        self.init(value: c.number("value"), every: c.integer("every"))
    }

    /// A filter carrying `value` on every `every`th frame; `clock` gives µs (tests).
    public init(value: Double = 0, every: Int = 1, clock: @escaping () -> UInt64 = SEI.monotonicMicroseconds) {
        self.value = value; self.every = UInt64(max(1, every)); self.clock = clock
    }

    public func `continue`(from previous: SEI) { offset = previous.offset + previous.seen }
    private var seen: UInt64 = 0

    public func process(_ frame: borrowing EncodedFrame, context: FilterContext) throws -> EncodedVerdict {
        seen = frame.number + 1
        let bytes = Array(frame.bytes)
        switch frame.direction {
        case .send: return write(bytes, number: offset + frame.number)
        case .receive:
            read(bytes, context: context)
            return .keep
        }
    }

    private func write(_ bytes: [UInt8], number: UInt64) -> EncodedVerdict {
        guard number % every == 0 else { return .keep }
        let message = Message(frame: number, written_us: clock(), value: value)
        guard let json = try? JSONEncoder().encode(message),
            let out = H264Units.insertingBeforeFirstSlice(SEIMessage.nalUnit(carrying: Array(json)), into: bytes)
        else { return .keep }
        return .replace(out)
    }

    private func read(_ bytes: [UInt8], context: FilterContext) {
        let units = H264Units.units(bytes)
        for unit in units where !unit.isEmpty {
            for data in SEIMessage.data(inNALUnit: bytes[unit]) ?? [] {
                guard let m = try? JSONDecoder().decode(Message.self, from: Data(data)) else {
                    context.emit("sei-malformed")
                    continue
                }
                let now = clock()
                let delay = now >= m.written_us ? Double(now - m.written_us) / 1000 : -Double(m.written_us - now) / 1000
                context.emit("sei", ["frame": Double(m.frame), "value": m.value, "delay_ms": delay])
            }
        }
    }

    /// The monotonic clock in microseconds (the framestamps' clock).
    public static func monotonicMicroseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000 + UInt64(ts.tv_nsec) / 1000
    }
}
