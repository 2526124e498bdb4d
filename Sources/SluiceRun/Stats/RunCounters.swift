import Foundation
import Synchronization

/// Counters updated from GStreamer streaming threads (pad probes) and read by the runner.
/// Lock-free on the media path: each probe does one relaxed atomic add.
public final class RunCounters: Sendable {
    /// Video frames out of the capture stage (before filters).
    public let captureVideoFrames = Atomic<Int>(0)
    /// Video frames out of the filter stage (into the encoder queue).
    public let filteredVideoFrames = Atomic<Int>(0)
    /// Encoded video frames handed to the payloader (or the discard sink).
    public let sendVideoFrames = Atomic<Int>(0)
    /// Bytes of encoded video handed to the payloader.
    public let sendVideoBytes = Atomic<Int>(0)
    /// Encoded audio buffers handed to the payloader.
    public let sendAudioBuffers = Atomic<Int>(0)
    /// Decoded video frames received.
    public let receiveVideoFrames = Atomic<Int>(0)
    /// The received video's freezes (WebRTC's definition), from when frames left the decoder.
    package let receiveVideoFreezes = Mutex(FreezeTally())
    /// Decoded audio buffers received.
    public let receiveAudioBuffers = Atomic<Int>(0)
    /// Width in pixels of the received video, from its caps (0 until known).
    public let receiveVideoWidth = Atomic<Int>(0)
    /// Height in pixels of the received video, from its caps (0 until known).
    public let receiveVideoHeight = Atomic<Int>(0)
    /// Received audio: sum of squared S16 samples and their count (the level in `stats`).
    public let receiveAudioSquares = Atomic<Int>(0)
    /// The number of samples summed into `receiveAudioSquares`.
    public let receiveAudioSamples = Atomic<Int>(0)
    package let receiveAudioIsS16 = Atomic<Bool>(false)
    /// Keyframes the video encoder produced.
    public let sendVideoKeyframes = Atomic<Int>(0)
    /// The encoded-frame count when a keyframe was requested (-1: none pending), and which
    /// frame after the request was the keyframe (1: the next one; -1: not yet).
    package let keyframeRequestedAt = Atomic<Int>(-1)
    package let framesUntilKeyframe = Atomic<Int>(-1)
    /// Send branches whose source reached end-of-stream.
    public let endedSendBranches = Atomic<Int>(0)
    /// Nanoseconds from the start of the run to the first decoded frame (video, or audio
    /// when there is no video); 0 until it happens.
    public let firstFrameNanos = Atomic<Int>(0)

    private let start: ContinuousClock.Instant
    private let info = Mutex<[String: String]>([:])
    private let milestones = Mutex<[String: Int]>([:])

    /// Counters at zero for a run that started at `start` (now unless given).
    public init(start: ContinuousClock.Instant = .now) { self.start = start }

    /// Records the first frame time once.
    public func markFirstFrame() {
        guard firstFrameNanos.load(ordering: .relaxed) == 0 else { return }
        let ns = sinceStart()
        if firstFrameNanos.compareExchange(expected: 0, desired: ns, ordering: .relaxed).exchanged {
            mark(StartUpStep.firstFrame, at: ns)
        }
    }

    /// Records when a start-up step (`StartUpStep`) first happened; later calls are ignored.
    /// Called once per step from streaming threads: a lock, not the media path's atomics.
    public func mark(_ step: String) { mark(step, at: sinceStart()) }

    /// Records a step that happened at `instant` (ignored if before the run started).
    public func mark(_ step: String, at instant: ContinuousClock.Instant) {
        guard instant > start else { return }
        let d = instant - start
        mark(step, at: max(1, Int(d.components.seconds) * 1_000_000_000 + Int(d.components.attoseconds / 1_000_000_000)))
    }

    private func mark(_ step: String, at ns: Int) {
        milestones.withLock { if $0[step] == nil { $0[step] = ns } }
    }

    /// The start-up steps seen so far, in ms since the start of the run, in order.
    public var startUpSteps: [StartUpStep] {
        milestones.withLock { $0 }.sorted { $0.value < $1.value }
            .map { StartUpStep(step: $0.key, at_ms: (Double($0.value) / 1e4).rounded() / 100) }
    }

    private func sinceStart() -> Int {
        let d = ContinuousClock.now - start
        return max(1, Int(d.components.seconds) * 1_000_000_000 + Int(d.components.attoseconds / 1_000_000_000))
    }

    /// Sum of squares and count of interleaved S16 samples.
    package static func sumOfSquaresS16(_ bytes: UnsafeRawBufferPointer) -> (squares: Int64, samples: Int) {
        let n = bytes.count / 2
        var sum: Int64 = 0
        for i in 0..<n {
            let v = Int64(Int16(littleEndian: bytes.loadUnaligned(fromByteOffset: i * 2, as: Int16.self)))
            sum &+= v * v
        }
        return (sum, n)
    }

    /// The received audio's level in dBFS from two (squares, samples) readings; nil without
    /// samples in between. Silence reads -100.
    public static func levelDB(from a: (squares: Int, samples: Int), to b: (squares: Int, samples: Int)) -> Double? {
        let n = b.samples - a.samples
        guard n > 0 else { return nil }
        let mean = Double(b.squares &- a.squares) / Double(n) / (32768.0 * 32768.0)
        return mean > 1e-10 ? max(-100, 10 * log10(mean)) : -100
    }

    /// Free-form facts learnt during the run (negotiated codecs, caps).
    public func note(_ key: String, _ value: String) { info.withLock { $0[key] = value } }
    /// The fact noted under `key` with `note(_:_:)`; nil if none was.
    public func noted(_ key: String) -> String? { info.withLock { $0[key] } }

    /// Counts a decoded video frame (and its interval for the freeze tally); returns the count.
    @discardableResult
    package func countDecodedVideoFrame(at nowNs: UInt64 = StageTimer.now()) -> Int {
        receiveVideoFreezes.withLock { $0.frame(at: nowNs) }
        return receiveVideoFrames.add(1, ordering: .relaxed).newValue
    }
}

/// One step of a run's start-up and when it happened (ms since the run started): where the
/// time to first frame goes.
public struct StartUpStep: Sendable, Codable, Equatable {
    /// The step's name (`playing`, `connected`, …; see the constants below).
    public var step: String
    /// When the step first happened, in ms since the run started.
    public var at_ms: Double

    /// A step `step` that happened `at_ms` milliseconds into the run.
    public init(step: String, at_ms: Double) { self.step = step; self.at_ms = at_ms }

    /// The pipeline reached PLAYING.
    public static let playing = "playing"
    /// Offer and answer are both set (loopback), or the remote side answered.
    public static let negotiated = "negotiated"
    /// ICE connected (DTLS starts then).
    public static let iceConnected = "ICE connected"
    /// ICE and DTLS are up: the connection can carry media.
    public static let connected = "connected"
    /// The first encoded keyframe passed the start gate into the payloader.
    public static let keyframeSent = "keyframe sent"
    /// The first RTP buffer left the receiving webrtcbin (after its jitter buffer).
    public static let firstRTP = "first RTP received"
    /// GStreamer's one-time DTLS key was made (`DTLSWarmUp`; listed only when that was
    /// during the run: a process makes it once).
    public static let dtlsKey = "DTLS key made"
    /// The first frame was decoded.
    public static let firstFrame = "first frame"
}

extension Array where Element == StartUpStep {
    /// How much of the time to first frame went to waiting for GStreamer's one-time DTLS key:
    /// from PLAYING, when negotiation could have begun, to when the key was made. Nil when
    /// nothing waited for it (made before PLAYING, or in an earlier run of the process).
    public var dtlsKeyWaitMs: Double? {
        guard let key = first(where: { $0.step == StartUpStep.dtlsKey })?.at_ms,
            let playing = first(where: { $0.step == StartUpStep.playing })?.at_ms, key > playing
        else { return nil }
        return key - playing
    }

    /// " (of which N ms waiting for GStreamer's one-time DTLS key)", or "".
    package var dtlsKeyWaitNote: String {
        dtlsKeyWaitMs.map { String(format: " (of which %.0f ms waiting for GStreamer's one-time DTLS key)", $0) } ?? ""
    }
}
