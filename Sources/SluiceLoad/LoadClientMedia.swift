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

/// Records one whole encoded frame into a client's observation: whether it is a keyframe
/// and its size in bytes (from a streaming thread).
package typealias LoadFrameRecorder = @Sendable (_ keyframe: Bool, _ bytes: Int) -> Void
