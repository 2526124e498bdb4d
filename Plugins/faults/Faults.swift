import Foundation
import SluiceFilterKit

/// Faults on purpose, on encoded frames: drops (every Nth, a share at random, or every delta
/// frame for a while), late frames and flipped bytes, to show how a receiver or a service
/// copes. Put it in `send.video.encoded_filters` (the network never sees the frames) or in
/// `receive.*.encoded_filters` (the decoder never does).
///
/// - `drop_every` (0…100000, default 0): drops every Nth frame (0: none). Keyframes too,
///   unless `keep_keyframes`.
/// - `drop_share` (0…1, default 0): drops this share of frames at random (`seed`).
/// - `drop_deltas_at` / `drop_deltas_for` (seconds, default 0 / 0): from `drop_deltas_at`
///   seconds after the first frame (by PTS), drops every delta frame for `drop_deltas_for`
///   seconds: the receiver freezes, asks for a keyframe, and the picture comes back at the
///   first keyframe after it.
/// - `delay_every` / `delay_ms` (default 0 / 0): holds every Nth frame `delay_ms` ms on the
///   streaming thread (a late frame; those after it queue behind, as on a stalled link).
/// - `corrupt_share` (0…1, default 0) / `corrupt_bytes` (1…64, default 4): flips that many
///   bytes, at random places past the first 16, in this share of frames.
/// - `keep_keyframes` (default true): never drops or corrupts a keyframe (`drop_every`,
///   `drop_share` and `corrupt_share`), so only delta frames suffer.
/// - `seed` (default 1): the random choices' seed; the same seed makes the same faults.
///
/// Emits `corrupted` and `delayed` events for those faults; drops count in the filter's
/// statistics.
public final class Faults: EncodedFrameFilter {
    public static let name = "faults"
    public static let summary = "Drops, delays or corrupts encoded frames on purpose (fault injection)"
    public static let parameters: [FilterParameter] = [
        FilterParameter("drop_every", .integer(min: 0, max: 100_000), default: .integer(0), summary: "drop every Nth frame (0: none)"),
        FilterParameter("drop_share", .number(min: 0, max: 1), default: .number(0), summary: "share of frames dropped at random"),
        FilterParameter(
            "drop_deltas_at", .number(min: 0, max: 86_400), default: .number(0),
            summary: "seconds after the first frame when dropping delta frames starts"),
        FilterParameter(
            "drop_deltas_for", .number(min: 0, max: 86_400), default: .number(0),
            summary: "seconds during which every delta frame is dropped (0: none)"),
        FilterParameter("delay_every", .integer(min: 0, max: 100_000), default: .integer(0), summary: "hold every Nth frame (0: none)"),
        FilterParameter("delay_ms", .number(min: 0, max: 5000), default: .number(0), summary: "how long a held frame waits, ms"),
        FilterParameter("corrupt_share", .number(min: 0, max: 1), default: .number(0), summary: "share of frames whose bytes are flipped"),
        FilterParameter("corrupt_bytes", .integer(min: 1, max: 64), default: .integer(4), summary: "bytes flipped in a corrupted frame"),
        FilterParameter("keep_keyframes", .boolean, default: .boolean(true), summary: "never drop or corrupt a keyframe"),
        FilterParameter("seed", .integer(min: 0, max: Int(Int32.max)), default: .integer(1), summary: "seed of the random choices")
    ]

    /// The settings, as validated.
    public struct Settings: Sendable, Equatable {
        public var dropEvery = 0, delayEvery = 0, corruptBytes = 4
        public var dropShare = 0.0, corruptShare = 0.0, delayMs = 0.0
        public var dropDeltasAt = 0.0, dropDeltasFor = 0.0
        public var keepKeyframes = true
        public var seed: UInt64 = 1
        /// Settings that inject nothing.
        public init() {}
    }

    /// The settings this instance applies.
    public let settings: Settings
    private var random: SplitMix64
    private var firstPTS: UInt64?

    public convenience init(configuration c: FilterConfiguration) throws {
        var s = Settings()
        s.dropEvery = c.integer("drop_every"); s.dropShare = c.number("drop_share")
        s.dropDeltasAt = c.number("drop_deltas_at"); s.dropDeltasFor = c.number("drop_deltas_for")
        s.delayEvery = c.integer("delay_every"); s.delayMs = c.number("delay_ms")
        s.corruptShare = c.number("corrupt_share"); s.corruptBytes = c.integer("corrupt_bytes")
        s.keepKeyframes = c.boolean("keep_keyframes"); s.seed = UInt64(c.integer("seed"))
        self.init(settings: s)
    }

    /// A filter applying `settings`.
    public init(settings: Settings) {
        self.settings = settings
        random = SplitMix64(seed: settings.seed)
    }

    public func process(_ frame: borrowing EncodedFrame, context: FilterContext) throws -> EncodedVerdict {
        let n = frame.number + 1 // the Nth frame, counted from 1
        let spared = settings.keepKeyframes && frame.isKeyframe
        if inDeltaDropWindow(frame) { return .drop }
        if !spared, settings.dropEvery > 0, n % UInt64(settings.dropEvery) == 0 { return .drop }
        if !spared, settings.dropShare > 0, random.unit() < settings.dropShare { return .drop }
        if settings.delayEvery > 0, settings.delayMs > 0, n % UInt64(settings.delayEvery) == 0 {
            Thread.sleep(forTimeInterval: settings.delayMs / 1000)
            context.emit("delayed", ["ms": settings.delayMs])
        }
        if !spared, settings.corruptShare > 0, random.unit() < settings.corruptShare, frame.bytes.count > 16 {
            var bytes = [UInt8](frame.bytes)
            for _ in 0..<settings.corruptBytes {
                let i = 16 + Int(random.next() % UInt64(bytes.count - 16))
                bytes[i] ^= UInt8(truncatingIfNeeded: random.next() | 1) // never a no-op flip
            }
            context.emit("corrupted", ["bytes": Double(settings.corruptBytes)])
            return .replace(bytes)
        }
        return .keep
    }

    /// Whether `frame` is a delta frame inside the `drop_deltas_at`…+`drop_deltas_for` window.
    private func inDeltaDropWindow(_ frame: borrowing EncodedFrame) -> Bool {
        guard settings.dropDeltasFor > 0, let pts = frame.pts else { return false }
        let first = firstPTS ?? pts
        firstPTS = first
        guard !frame.isKeyframe, pts >= first else { return false }
        let t = Double(pts - first) / 1e9
        return t >= settings.dropDeltasAt && t < settings.dropDeltasAt + settings.dropDeltasFor
    }
}
