import GStreamer
import SluiceRun
import SluiceMeasure

/// A load publisher's media: its webrtcbin in the crowd's shared pipeline with a sendonly
/// branch of its own per medium of the shared send section (`LoadSendSide`), built at once
/// on Sluice's own payload types (a publisher always offers). Its video frames are counted
/// as they enter its payloader: what it sends, after its own queue dropped what it could
/// not take.
package final class LoadPublisherMedia: LoadClientMedia {
    package let framesComeFromService = false
    private let side: LoadSendSide
    private let connectTimeout: Double

    package var webrtcbin: Element { side.webrtcbin }

    /// Builds publisher `client`'s webrtcbin and branches in `hub`'s pipeline, fed what its
    /// load group is fed; `record` gets each video frame it sends.
    package init(client: Int, group: String? = nil, hub: LoadPublisherHub, connectTimeout: Double, record: LoadFrameRecorder) throws(RunError) {
        self.connectTimeout = connectTimeout
        side = try LoadSendSide(client: client, group: group, named: "p\(client)", hub: hub, direction: "sendonly", record: record)
        do { try side.build(side.offering) } catch {
            side.remove()
            throw error
        }
    }

    package func joined(peer: WebRTCPeer) throws(RunError) { try side.link(peer: peer, connectTimeout: connectTimeout) }

    package var problem: String? { side.problem }

    package func remove() { side.remove() }
}
