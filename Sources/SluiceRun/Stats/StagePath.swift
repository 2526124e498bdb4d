/// Which elements a `StageTimer` follows: one medium's path from its stamp writer to its
/// stamp reader. Video and audio cross the same ICE transports and jitter buffers but have
/// their own writer, reader, payloaders and depayloaders, and cut their frames differently.
public struct StagePath: Sendable, Equatable {
    /// The Swift filter that stamps the medium after capture.
    public var writer: String
    /// The Swift filter that reads the stamps before the sink.
    public var reader: String
    /// Payloader factories of the medium (their output gives the sender's SSRCs).
    public var payloaders: Set<String>
    /// Depayloader factories of the medium (their input gives the receiver's SSRCs).
    public var depayloaders: Set<String>
    /// How a frame is cut into RTP packets, and how the encoder is timed.
    public var framing: Framing

    /// How the timer cuts the medium into frames.
    public enum Framing: Sendable, Equatable {
        /// A frame is many packets; the one with the marker bit ends it. The encoder emits
        /// frames in the order they came in (no B-frames): "encode" pairs them by arrival.
        case markedFrames
        /// Every packet is one frame (Opus: 20 ms each, the marker bit only starts a talk
        /// spurt). The encoder gathers input buffers into packets of its own size: "encode"
        /// runs from when the packet's first sample entered, which is when its buffer did
        /// plus the sample's place in it (the time `audiostamp` gives a stamp there), so it
        /// includes the wait for the rest of the packet's samples.
        case packetPerFrame
    }

    /// Video: `framestamp` to `framestamp-read`, VP8, VP9 and H.264.
    public static let video = StagePath(
        writer: "framestamp", reader: "framestamp-read", payloaders: ["rtpvp8pay", "rtpvp9pay", "rtph264pay"],
        depayloaders: ["rtpvp8depay", "rtpvp9depay", "rtph264depay"], framing: .markedFrames)
    /// Audio: `audiostamp` to `audiostamp-read`, Opus.
    public static let audio = StagePath(
        writer: "audiostamp", reader: "audiostamp-read", payloaders: ["rtpopuspay"], depayloaders: ["rtpopusdepay"],
        framing: .packetPerFrame)
}
