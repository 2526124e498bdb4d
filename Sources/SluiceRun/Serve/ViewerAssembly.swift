import GStreamer

/// A viewer while it is being put together: what it has added to the pipeline (removed in
/// one place if a later step fails), the tee pads it holds, and what waits for its answer
/// (links to the stream's tees) and for its connection (start gates, keyframe requests).
package struct ViewerAssembly {
    /// A tee pad and the viewer branch it feeds, linked once the answer exists.
    package struct PendingLink {
        package var teePad: Pad
        package var queueSink: Pad

        package init(teePad: Pad, queueSink: Pad) { self.teePad = teePad; self.queueSink = queueSink }
    }

    package let webrtcbin: Element
    /// Every element of the viewer, its webrtcbin first.
    package var elements: [Element]
    package var teePads: [(tee: Element, pad: Pad)] = []
    package var pending: [PendingLink] = []
    package var gates: [StartGate] = []
    /// Its place on the stream's ladder, if the stream has one.
    package var ladder: RenditionSwitch?
    /// Where each of its branches without a cached start takes the stream in: the opener asks
    /// there for the keyframe the branch starts from. (A gate with a cache asks by itself
    /// when the cache cannot start it.)
    package var entrances: [Pad] = []
    /// Shared branches it uses (the stream encoded again), each released when it goes.
    package var shared: [SharedBranch] = []
    /// Its seats on the stream's lanes, each given back when it goes.
    package var seats: [FanoutLanes.Seat] = []

    package init(webrtcbin: Element) {
        self.webrtcbin = webrtcbin
        elements = [webrtcbin]
    }

    /// Links the viewer's branches to the stream: each through a pad that swallows the
    /// branch's failures (reported to `onFailure`), so a failing viewer cannot stop the tee,
    /// and that keeps the branch's renegotiation from reaching the encoder (`dropReconfigure`:
    /// otherwise each join would query every other viewer's branch).
    package mutating func link(onFailure: @escaping @Sendable (FlowReturn) -> Void) throws(GstError) {
        for p in pending {
            p.teePad.dropReconfigure()
            p.teePad.isolate(into: p.queueSink, onFailure: onFailure)
            try p.teePad.link(p.queueSink)
        }
        try ladder?.attach(onFailure: onFailure)
    }

    private static func askForKeyframe(through entrances: [Pad]) {
        for entrance in entrances { entrance.pushEvent(.forceKeyUnit(origin: KeyframeRequestLimiter.ownOrigin)) }
    }

    /// Readies the gates and asks the shared encoders for the keyframe the viewer starts
    /// from, which the gates hold while its ICE and DTLS finish (call once linked).
    package func holdStarts() {
        if gates.map({ $0.ready() }).contains(true) { Self.askForKeyframe(through: entrances) }
    }

    /// When the viewer's connection is up, opens its gates (sending what they hold: see
    /// `holdStarts()`), and asks for a keyframe again only if the one they wait for is
    /// missing or too old.
    package func opener(for peer: WebRTCPeer, connectTimeout: Double, then connected: (@Sendable () -> Void)? = nil) -> Task<Void, Never> {
        let entrances = entrances, gates = gates
        return Task.detached {
            _ = await peer.wait(timeout: connectTimeout) { $0.connection == "connected" }
            if Task.isCancelled { return }
            let openings = gates.map { $0.open() }
            ViewerSet.logger.debug("a viewer's start gates opened: \(openings.map { "\($0)" }.joined(separator: ", "))")
            if openings.contains(.needsKeyframe) { Self.askForKeyframe(through: entrances) }
            connected?()
            await Self.askAgain(until: gates, through: entrances)
        }
    }

    /// How often, and how many times at most, a viewer whose video has not started asks again.
    package static let reask = (interval: Duration.milliseconds(500), limit: 20)

    /// Asks for the keyframe again while a gate still waits for it: a request can be lost (an
    /// RTCP packet dropped, or a browser publisher that makes at most one keyframe in 300 ms
    /// ignoring the request of a viewer that joined just after another: 2 of 3
    /// aiortc viewers joining with two others never started before this), and a relayed
    /// publisher sends no keyframe by itself. Ends when every gate is open, after
    /// `reask.limit` tries, or when the viewer goes (the task is cancelled).
    private static func askAgain(until gates: [StartGate], through entrances: [Pad]) async {
        guard !entrances.isEmpty else { return }
        for attempt in 1...reask.limit {
            do { try await Task.sleep(for: reask.interval) } catch { return }
            if gates.allSatisfy(\.isOpen) { return }
            ViewerSet.logger.debug("a viewer's video has not started: keyframe asked again (\(attempt))")
            askForKeyframe(through: entrances)
        }
    }
}
