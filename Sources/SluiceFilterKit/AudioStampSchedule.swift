/// When `audiostamp` writes its stamps, on the stream's own timestamps: stamp k starts where
/// the stream's time reaches `first + k × interval` and lasts 280 ms, k counting from 0. An
/// element that sees only the stream's timestamps (a packet after the encoder) knows from
/// them which stamp, if any, it carries: a crowd of load members in one mixed room uses it
/// to speak in turns, one member per stamp.
public struct AudioStampSchedule: Sendable, Equatable {
    /// Where stamp 0 starts, nanoseconds of stream time.
    public static let firstNanoseconds: UInt64 = 100_000_000
    /// How long a stamp lasts (seven symbols of 40 ms), nanoseconds.
    public static let lengthNanoseconds: UInt64 = 280_000_000
    /// Time from one stamp's start to the next one's, nanoseconds.
    public let intervalNanoseconds: UInt64

    /// A stamp every `intervalMilliseconds` (at least 400, so that stamps never touch).
    public init(intervalMilliseconds: Int) { intervalNanoseconds = UInt64(max(400, intervalMilliseconds)) * 1_000_000 }

    /// Where stamp `k` starts, nanoseconds of stream time.
    public func start(of k: UInt64) -> UInt64 { Self.firstNanoseconds + k * intervalNanoseconds }

    /// The first stamp that starts at or after `time`.
    public func next(atOrAfter time: UInt64) -> UInt64 {
        guard time > Self.firstNanoseconds else { return 0 }
        return (time - Self.firstNanoseconds + intervalNanoseconds - 1) / intervalNanoseconds
    }

    /// The stamps whose span, widened by `margin` on both sides, overlaps the stretch
    /// [`from`, `to`) of stream time (at most two while the margin is under 60 ms: stamps
    /// are 120 ms apart or more).
    public func stamps(overlapping from: UInt64, _ to: UInt64, margin: UInt64) -> [UInt64] {
        guard to + margin > Self.firstNanoseconds else { return [] }
        let latest = (to + margin - Self.firstNanoseconds - 1) / intervalNanoseconds
        let candidates: [UInt64] = latest == 0 ? [0] : [latest - 1, latest]
        return candidates.filter { k in
            start(of: k) < to + margin && start(of: k) + Self.lengthNanoseconds + margin > from
        }
    }
}
