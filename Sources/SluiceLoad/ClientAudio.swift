import SluiceMeasure

/// What one load client heard: its audio RTP packets as they left the jitter buffer (and the
/// packets their sequence numbers say never came), and, for a decoding client, the audio
/// stamps it read back (`audiostamp-read`) with their A/V offsets.
///
/// Missing audio is counted from the sequence numbers: each packet that never came is one
/// packet's worth of sound (its duration from the RTP timestamps of consecutive packets, 20 ms
/// for WebRTC's Opus). Opus's DTX skips timestamps, not sequence numbers, so silence sent as
/// DTX is not counted as missing. What the decoder then conceals (PLC, FEC) is that missing audio.
public struct ClientAudio: Sendable, Codable, Equatable {
    /// Audio packets received.
    public private(set) var packets = 0
    /// When the first arrived, seconds since the run started.
    public private(set) var firstAt: Double?
    /// When the latest arrived, seconds since the run started.
    public private(set) var lastAt: Double?
    /// Packets the sequence numbers say never came.
    public private(set) var missingPackets = 0
    /// Their sound, ms.
    public private(set) var missingMs = 0.0
    /// Decoded sound that reached the stamp reader (decoding clients), ms.
    public var decodedMs = 0.0
    /// Mouth-to-ear delays read (decoding clients), ms.
    public var mouthToEarMs: [Double] = []
    /// Sync tones whose stamp did not check (decoding clients).
    public var unreadableStamps = 0
    /// Audio stamps paired with video frames (`AVOffsetPairing`).
    public var pairing = AVOffsetPairing()
    private var lastSequence: UInt16?
    private var lastTimestamp: UInt32?
    /// One packet's duration, ms (from the last two consecutive packets).
    private var packetMs = 20.0

    /// Nothing heard yet.
    public init() {}

    /// Records a packet that arrived `t` seconds after the run started, with its RTP
    /// `sequence` number and `timestamp` (`clockRate` Hz: 48000 for Opus).
    public mutating func record(at t: Double, sequence: UInt16, timestamp: UInt32, clockRate: Double = 48000) {
        packets += 1
        if firstAt == nil { firstAt = t }
        lastAt = max(t, lastAt ?? t)
        guard let last = lastSequence, let previous = lastTimestamp else {
            lastSequence = sequence
            lastTimestamp = timestamp
            return
        }
        let ahead = sequence &- last
        // An older packet than one seen (late, or repeated): the stream's position stays.
        guard ahead > 0, ahead < 0x8000 else { return }
        lastSequence = sequence
        lastTimestamp = timestamp
        if ahead == 1 {
            let ms = Double(timestamp &- previous) / clockRate * 1000
            if ms >= 2.5, ms <= 120 { packetMs = ms }
            return
        }
        // At most 10 s of sound for one gap: a jump beyond is a new stream, not loss.
        let lost = Int(ahead) - 1
        guard Double(lost) * packetMs <= 10_000 else { return }
        missingPackets += lost
        missingMs += Double(lost) * packetMs
    }
}

/// Pairs audio stamps with the video frames captured closest to them (within 40 ms) as both
/// arrive: a stamp is paired once a frame captured at least 40 ms after it has been read (no
/// closer one can come later), or when the figures are taken (`offsets`). Frames are kept
/// for 2 s of capture time, so memory stays bounded however long the client stays.
public struct AVOffsetPairing: Sendable, Codable, Equatable {
    /// A video frame read back: when it was captured and its glass-to-glass delay, ms.
    public struct Frame: Sendable, Codable, Equatable {
        /// Capture time on the monotonic clock, ms.
        public var captured: Double
        /// Glass-to-glass delay, ms.
        public var latency: Double
    }
    /// An audio stamp read back: when it was captured and its mouth-to-ear delay, ms.
    public struct Stamp: Sendable, Codable, Equatable {
        /// Capture time on the monotonic clock, ms.
        public var captured: Double
        /// Mouth-to-ear delay, ms.
        public var delay: Double
    }

    /// How far apart in capture time a stamp and its frame may be, ms (as `sluice measure` pairs them).
    public static let window = AudioMeasurement.pairingWindowMs
    /// A/V offsets of the stamps paired so far, ms (audio minus video; positive: audio late).
    public private(set) var paired: [Double] = []
    private var frames: [Frame] = []
    private var waiting: [Stamp] = []
    /// The latest capture time of a frame read, ms.
    private var newest: Double?

    /// Nothing read yet.
    public init() {}

    /// A video frame read back.
    public mutating func video(capturedMs: Double, latencyMs: Double) {
        frames.append(Frame(captured: capturedMs, latency: latencyMs))
        let newest = max(newest ?? capturedMs, capturedMs)
        self.newest = newest
        frames.removeAll { $0.captured < newest - 2000 }
        let ready = waiting.filter { $0.captured + Self.window <= newest }
        waiting.removeAll { $0.captured + Self.window <= newest }
        paired += ready.compactMap(offset)
    }

    /// An audio stamp read back.
    public mutating func audio(capturedMs: Double, delayMs: Double) {
        let stamp = Stamp(captured: capturedMs, delay: delayMs)
        if let newest, capturedMs + Self.window <= newest {
            if let o = offset(stamp) { paired.append(o) }
        } else {
            waiting.append(stamp)
        }
        if waiting.count > 1000 { waiting.removeFirst(waiting.count - 1000) }
    }

    /// Every offset: those paired, and the waiting stamps paired with what has come.
    public var offsets: [Double] { paired + waiting.compactMap(offset) }

    private func offset(_ s: Stamp) -> Double? {
        guard let near = frames.min(by: { abs($0.captured - s.captured) < abs($1.captured - s.captured) }),
            abs(near.captured - s.captured) <= Self.window
        else { return nil }
        return s.delay - near.latency
    }
}
