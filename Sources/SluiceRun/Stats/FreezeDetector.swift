/// WebRTC's freeze test over one client's inter-frame intervals.
///
/// The definition is libwebrtc's (`video/video_quality_observer2.cc`,
/// `VideoQualityObserver::OnRenderedFrame`), which Chrome reports as the webrtc-stats
/// `freezeCount` and `totalFreezesDuration` of an inbound video stream: each interval between
/// two frames is first added to a moving window of the last 30 intervals
/// (`kAvgInterframeDelaysWindowSizeFrames`); once the window holds at least 5
/// (`kMinFrameSamplesToDetectFreeze`), the interval is a freeze when it is at least
/// `max(3 × mean, mean + 150 ms)` (`kMinIncreaseForFreezeMs`), the mean being taken over the
/// window, this interval included. A freeze lasts the whole interval. Unlike libwebrtc, which
/// works in whole milliseconds and rounds the mean down, this keeps seconds as doubles.
package struct FreezeDetector: Sendable, Codable, Equatable {
    /// Intervals the moving mean is taken over (libwebrtc's `kAvgInterframeDelaysWindowSizeFrames`).
    package static let window = 30
    /// Intervals needed before a freeze can be told (libwebrtc's `kMinFrameSamplesToDetectFreeze`).
    package static let minimumIntervals = 5
    /// The least an interval must exceed the mean by to be a freeze, seconds (`kMinIncreaseForFreezeMs`).
    package static let minimumIncrease = 0.150

    /// The last intervals, seconds, as a ring of at most `window` entries.
    private var intervals: [Double] = []
    /// Where the next interval goes once the ring is full.
    private var next = 0

    /// An empty window.
    package init() {}

    /// Adds the interval between two consecutive frames (seconds) and says whether it was a freeze.
    package mutating func isFreeze(interval: Double) -> Bool {
        if intervals.count < Self.window {
            intervals.append(interval)
        } else {
            intervals[next] = interval
            next = (next + 1) % Self.window
        }
        guard intervals.count >= Self.minimumIntervals else { return false }
        // At most 30 additions: constant time per frame, and no drift from a running sum.
        let mean = intervals.reduce(0, +) / Double(intervals.count)
        return interval >= max(3 * mean, mean + Self.minimumIncrease)
    }
}
