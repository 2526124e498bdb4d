import GStreamer
import SluiceRun
import SluiceMeasure

/// Where a load client's webrtcbin lives and what flows through it: a viewer's own pipeline
/// with what it builds for each stream it receives (`LoadViewerMedia`), or a publisher's
/// branch of the crowd's one shared encoder (`LoadPublisherMedia`). One type per role.
package protocol LoadClientMedia: LoadSendSetup {
    /// The client's webrtcbin.
    var webrtcbin: Element { get }
    /// Called once the service's answer is applied, before ICE connects: a publisher links
    /// itself to the shared stream here (nothing may enter a webrtcbin input before then).
    func joined(peer: WebRTCPeer) throws(RunError)
    /// Why the client's media could not flow, if it could not.
    var problem: String? { get }
    /// Whether silence means the service went away: true for a viewer, whose frames come
    /// from the service; false for a publisher, which keeps sending whatever the service does.
    var framesComeFromService: Bool { get }
    /// Removes the client's elements (after it left).
    func remove()
}

extension LoadClientMedia {
    /// Nothing to set up: a viewer sends nothing, a publisher's branches exist from the start.
    package func setUpToOffer() throws(RunError) {}
    /// The offer as it came: only a call's member builds its branches from it.
    package func setUpToAnswer(_ offer: String) throws(RunError) -> String { offer }
}

/// Records what arrives into a client's observation, from streaming threads: each whole
/// encoded video frame (whether it is a keyframe, its size in bytes; `record(keyframe, bytes)`)
/// and each audio RTP packet (its sequence number and RTP timestamp).
package struct LoadFrameRecorder: Sendable {
    /// A whole encoded video frame.
    package var frame: @Sendable (_ keyframe: Bool, _ bytes: Int) -> Void
    /// An audio RTP packet out of the jitter buffer.
    package var audioPacket: @Sendable (_ sequence: UInt16, _ timestamp: UInt32) -> Void
    /// Decoded audio reaching a decoding client's stamp reader: its duration, ns.
    package var decodedAudio: @Sendable (_ nanoseconds: UInt64) -> Void
    /// The picture size a keyframe carries.
    package var pictureSize: @Sendable (_ width: Int, _ height: Int) -> Void

    package init(
        frame: @escaping @Sendable (_ keyframe: Bool, _ bytes: Int) -> Void,
        audioPacket: @escaping @Sendable (_ sequence: UInt16, _ timestamp: UInt32) -> Void = { _, _ in },
        decodedAudio: @escaping @Sendable (_ nanoseconds: UInt64) -> Void = { _ in },
        pictureSize: @escaping @Sendable (_ width: Int, _ height: Int) -> Void = { _, _ in }
    ) {
        self.frame = frame
        self.audioPacket = audioPacket
        self.decodedAudio = decodedAudio
        self.pictureSize = pictureSize
    }

    /// Records a whole encoded video frame.
    package func callAsFunction(_ keyframe: Bool, _ bytes: Int) { frame(keyframe, bytes) }
}
