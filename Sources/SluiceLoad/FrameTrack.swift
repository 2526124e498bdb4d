import SluiceRun
import SluiceMeasure
/// One load client's frames as they arrive: counts, bytes, freezes (WebRTC's definition,
/// `FreezeDetector`) and per-second counts for the timeline.
///
/// The engine updates it from a streaming thread under a lock, so `record` is constant time
/// and memory stays bounded: only the per-second arrays grow, by one entry a second of run.
public struct FrameTrack: Sendable, Codable, Equatable {
    /// The latest second a per-second count is kept for (a week); later frames are still counted.
    package static let maxSecond = 7 * 24 * 3600

    /// Frames recorded.
    public private(set) var count = 0
    /// Keyframes among them.
    public private(set) var keyframes = 0
    /// Bytes of encoded video they carried.
    public private(set) var bytes = 0
    /// When the first frame arrived, seconds since the run started; nil before any.
    public private(set) var firstAt: Double?
    /// When the latest frame arrived, seconds since the run started; nil before any.
    public private(set) var lastAt: Double?
    /// Freezes: intervals between frames long enough to count as one (`FreezeDetector`).
    public private(set) var freezes = 0
    /// The freezes' total duration (the sum of the freezing intervals), seconds.
    public private(set) var freezeSeconds = 0.0
    /// The longest freeze, seconds (0 without one).
    public private(set) var longestFreezeSeconds = 0.0
    /// Frames in each whole second of the run (index: `Int(t)`).
    public private(set) var perSecond: [Int] = []
    /// Bytes in each whole second of the run (index: `Int(t)`), as long as `perSecond`.
    public private(set) var bytesPerSecond: [Int] = []
    /// Freezes that started in each whole second of the run, as long as `perSecond`. A freeze
    /// starts at the frame before the gap: it is counted in that frame's second.
    public private(set) var freezeStartsPerSecond: [Int] = []
    /// The moving window of recent intervals.
    private var detector = FreezeDetector()

    /// No frame yet.
    public init() {}

    /// Records a frame that arrived `t` seconds after the run started (non-decreasing for a
    /// client; an earlier time counts as no interval), with `bytes` of encoded video.
    public mutating func record(at t: Double, keyframe: Bool, bytes frameBytes: Int) {
        count += 1
        if keyframe { keyframes += 1 }
        bytes += frameBytes
        if let last = lastAt {
            let interval = max(0, t - last)
            if detector.isFreeze(interval: interval) {
                freezes += 1
                freezeSeconds += interval
                longestFreezeSeconds = max(longestFreezeSeconds, interval)
                if let s = slot(last) { freezeStartsPerSecond[s] += 1 }
            }
        } else {
            firstAt = t
        }
        lastAt = max(t, lastAt ?? t)
        if let s = slot(t) {
            perSecond[s] += 1
            bytesPerSecond[s] += frameBytes
        }
    }

    /// The index of second `t` in the per-second arrays, grown to hold it; nil past `maxSecond`.
    private mutating func slot(_ t: Double) -> Int? {
        guard t.isFinite, t < Double(Self.maxSecond) else { return nil }
        let s = max(0, Int(t))
        if s >= perSecond.count {
            let more = s + 1 - perSecond.count
            perSecond.append(contentsOf: repeatElement(0, count: more))
            bytesPerSecond.append(contentsOf: repeatElement(0, count: more))
            freezeStartsPerSecond.append(contentsOf: repeatElement(0, count: more))
        }
        return s
    }

    /// Frames per second over `from`..<`to` (seconds since the run started), from the
    /// per-second counts: a second's frames are taken as spread evenly over the part of it
    /// that had frames (the first and last seconds only from the first frame, and to the last),
    /// and count by the share of that part inside the window. 0 for an empty window.
    public func framesPerSecond(from: Double, to: Double) -> Double {
        guard from.isFinite, to.isFinite, to > from, let firstAt, let lastAt, !perSecond.isEmpty else { return 0 }
        var frames = 0.0
        let first = max(0, Int(from.rounded(.down)))
        let last = min(perSecond.count - 1, Int(to.rounded(.up)) - 1)
        guard first <= last else { return 0 }
        for s in first...last where perSecond[s] > 0 {
            let lo = max(Double(s), firstAt), hi = min(Double(s + 1), lastAt)
            let share: Double
            if hi > lo {
                share = max(0, min(to, hi) - max(from, lo)) / (hi - lo)
            } else {
                share = lo >= from && lo < to ? 1 : 0 // every frame of the second at one instant
            }
            frames += Double(perSecond[s]) * share
        }
        return frames / (to - from)
    }
}
