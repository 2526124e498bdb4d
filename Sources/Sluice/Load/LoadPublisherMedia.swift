import GStreamer
import Synchronization

/// A load publisher's media: its webrtcbin in the crowd's shared pipeline, and for each
/// medium of the shared send section a branch of its own (leaky queue, payloader with a
/// fresh SSRC, sendonly transceiver; `ViewerBranch`), fed by the medium's tee once the
/// service's answer is applied. Closed until its connection is up (`StartGate`), then from
/// a keyframe asked for at that moment. Its video frames are counted as they enter its
/// payloader: what it sends, after its own queue dropped what it could not take.
final class LoadPublisherMedia: LoadClientMedia {
    let webrtcbin: Element
    let framesComeFromService = false
    private let hub: LoadPublisherHub
    private let connectTimeout: Double
    /// Its branches: built at once, linked to the tees after the answer.
    private let parts: Mutex<ViewerAssembly>
    private let opener = Mutex<Task<Void, Never>?>(nil)
    private let failure = Mutex<String?>(nil)

    /// Builds publisher `client`'s webrtcbin and branches in `hub`'s pipeline; `record` gets
    /// each video frame it sends.
    init(client: Int, hub: LoadPublisherHub, connectTimeout: Double, record: @escaping LoadFrameRecorder) throws(RunError) {
        self.hub = hub
        self.connectTimeout = connectTimeout
        var parts: ViewerAssembly
        do throws(GstError) {
            webrtcbin = try hub.recipe.make("p\(client)", in: hub.pipeline)
            parts = ViewerAssembly(webrtcbin: webrtcbin)
            for (index, output) in hub.outputs.enumerated() {
                // The MID webrtcbin 1.22 gives the media section it makes for this input
                // (kind and index): the MID header extension must write the same, or a
                // service that routes by it (Janus does, for an SSRC it does not know) drops it.
                var rtp = RTPSendParameters.offering(output.codec, mid: "\(output.media.rawValue)\(index)")
                rtp.ssrc = RTPSendParameters.randomSSRC()
                let branch = try ViewerBranch.build(rtp, into: hub.pipeline, webrtcbin: webrtcbin, msid: "sluice-load-\(client)")
                parts.elements += branch.elements
                guard let teePad = output.tee.requestPad("src_%u") else { throw GstError("the shared \(output.media.rawValue) tee gave no output") }
                parts.teePads.append((output.tee, teePad))
                parts.gates.append(StartGate(on: branch.entrance, waitForKeyframe: output.media == .video))
                parts.pending.append(ViewerAssembly.PendingLink(teePad: teePad, queueSink: branch.entrance))
                parts.entrances.append(branch.entrance)
                if output.media == .video, let sent = branch.payloader.staticPad("sink") {
                    LoadFrameCount.install(on: sent, record: record)
                }
            }
            for e in parts.elements.reversed() { e.syncStateWithParent() }
        } catch {
            throw RunError("load publisher \(client): cannot make its branch of the shared stream: \(error.message)")
        }
        self.parts = Mutex(parts)
    }

    /// Links the branches to the shared stream, each behind a pad that swallows its failures
    /// (a failing publisher cannot stop the tee), and opens them once connected.
    func joined(peer: WebRTCPeer) throws(RunError) {
        do {
            // Weak: the pads' failure handlers live as long as the branches this media owns.
            try parts.withLock { p throws(GstError) in
                try p.link { [weak self] flow in
                    self?.failure.withLock { $0 = $0 ?? "its branch of the shared stream stopped (\(flow))" }
                }
            }
        } catch {
            throw RunError("cannot link the publisher to the shared stream: \(error.message)")
        }
        let task = parts.withLock { $0.opener(for: peer, connectTimeout: connectTimeout) }
        opener.withLock { $0 = task }
    }

    var problem: String? { failure.withLock { $0 } ?? hub.error }

    func remove() {
        opener.withLock { $0?.cancel() }
        let (elements, teePads) = parts.withLock { p in
            defer { p.elements = []; p.teePads = [] }
            return (p.elements, p.teePads)
        }
        hub.pipeline.removeBranch(elements, teePads: teePads)
    }
}
