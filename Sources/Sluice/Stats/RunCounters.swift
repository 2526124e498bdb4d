import Synchronization

/// Counters updated from GStreamer streaming threads (pad probes) and read by the runner.
/// Lock-free on the media path: each probe does one relaxed atomic add.
public final class RunCounters: Sendable {
    /// Video frames out of the capture stage (before filters).
    public let captureVideoFrames = Atomic<Int>(0)
    /// Video frames out of the filter stage (into the encoder queue).
    public let filteredVideoFrames = Atomic<Int>(0)
    public let sendVideoFrames = Atomic<Int>(0)
    public let sendVideoBytes = Atomic<Int>(0)
    public let sendAudioBuffers = Atomic<Int>(0)
    public let receiveVideoFrames = Atomic<Int>(0)
    public let receiveAudioBuffers = Atomic<Int>(0)
    public let receiveVideoWidth = Atomic<Int>(0)
    public let receiveVideoHeight = Atomic<Int>(0)
    /// Send branches whose source reached end-of-stream.
    public let endedSendBranches = Atomic<Int>(0)
    /// Nanoseconds from the start of the run to the first decoded frame (video, or audio
    /// when there is no video); 0 until it happens.
    public let firstFrameNanos = Atomic<Int>(0)

    private let start: ContinuousClock.Instant
    private let info = Mutex<[String: String]>([:])

    public init(start: ContinuousClock.Instant = .now) { self.start = start }

    /// Records the first frame time once.
    public func markFirstFrame() {
        guard firstFrameNanos.load(ordering: .relaxed) == 0 else { return }
        let d = ContinuousClock.now - start
        let ns = max(1, Int(d.components.seconds) * 1_000_000_000 + Int(d.components.attoseconds / 1_000_000_000))
        _ = firstFrameNanos.compareExchange(expected: 0, desired: ns, ordering: .relaxed)
    }

    /// Free-form facts learnt during the run (negotiated codecs, caps).
    public func note(_ key: String, _ value: String) { info.withLock { $0[key] = value } }
    public func noted(_ key: String) -> String? { info.withLock { $0[key] } }
}
