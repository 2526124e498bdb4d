import GStreamer
import Synchronization
import SluiceRun
import SluiceMeasure

/// A call member's media: its webrtcbin in the crowd's shared pipeline, sending the shared
/// stream on `sendrecv` transceivers (`LoadSendSide`, built once the room has said whether
/// this member offers or answers), and behind each stream the other member sends a
/// `LoadReceiveChain` in the same pipeline, its frames counted. What a member records is
/// what it received: the other member's frames, through the service (or, in a room that
/// mixes audio, the mix of the others).
package final class LoadMemberMedia: LoadClientMedia {
    package let framesComeFromService = true
    private let side: LoadSendSide
    private let hub: LoadPublisherHub
    private let client: Int
    private let decodes: Bool
    private let connectTimeout: Double
    private let record: LoadFrameRecorder
    /// The receive chains' elements, removed with the member.
    private let received = Mutex<[Element]>([])
    private let chainError = Mutex<String?>(nil)

    package var webrtcbin: Element { side.webrtcbin }

    /// Member `client`'s webrtcbin in `hub`'s pipeline; `record` gets each video frame it
    /// receives, and a decoding member reads the framestamps in them. With `turns`, it speaks
    /// only in its turns (a room that mixes its members' audio).
    package init(
        client: Int, group: String? = nil, decodes: Bool, hub: LoadPublisherHub, connectTimeout: Double, record: LoadFrameRecorder,
        turns: SpeakingTurns? = nil
    ) throws(RunError) {
        self.hub = hub
        self.client = client
        self.decodes = decodes
        self.connectTimeout = connectTimeout
        self.record = record
        side = try LoadSendSide(client: client, group: group, named: Self.prefix(client), hub: hub, direction: "sendrecv", record: nil, turns: turns)
        // Its framestamp reader is named for the run's bus handler (`c<ID>-read`).
        side.claimErrors(of: "c\(client)")
        // Weak: the bin owns this handler, and the media owns the bin.
        webrtcbin.connect("pad-added") { [weak self] (args: borrowing SignalArguments) in
            guard let pad = args.object(1, as: Pad.self) else { return }
            self?.attach(pad)
        }
    }

    /// The name of member `client`'s webrtcbin, and the prefix of its receive elements' names.
    package static func prefix(_ client: Int) -> String { "m\(client)" }

    package func setUpToOffer() throws(RunError) { try side.build(side.offering) }

    /// Sends each shared medium on the payload type and MID the other member's offer chose.
    package func setUpToAnswer(_ offer: String) throws(RunError) -> String {
        let plan: ViewerPlan
        do { plan = try ViewerPlan(offer: offer, outputs: side.outputs) } catch {
            throw RunError("the other member's offer: \(error.description)")
        }
        try side.build(plan.tracks.map(\.parameters))
        return plan.offerToApply
    }

    package func joined(peer: WebRTCPeer) throws(RunError) { try side.link(peer: peer, connectTimeout: connectTimeout) }

    package var problem: String? { chainError.withLock { $0 } ?? side.problem }

    /// Builds and links the chain for a stream the other member sends (a streaming thread).
    private func attach(_ pad: Pad) {
        do {
            let added = try LoadReceiveChain.attach(
                pad, into: hub.pipeline, client: client, decodes: decodes, prefix: Self.prefix(client), record: record)
            received.withLock { $0 += added ?? [] }
        } catch {
            chainError.withLock { $0 = $0 ?? error.message }
        }
    }

    package func remove() { side.remove(after: received.withLock { $0 }) }
}
