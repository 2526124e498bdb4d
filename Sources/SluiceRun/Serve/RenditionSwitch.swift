import GStreamer
import Logging
import Synchronization

/// One viewer's place on a stream's ladder of renditions (`encode.renditions`, or a relayed
/// publisher's simulcast layers): the rung it gets feeds a `funnel` in front of the viewer's
/// branch; during a move, the rung it moves to as well, and only one gets through.
///
/// ```
/// rung 0 tee → lane ─┐
/// rung 1 tee → lane ─┼→ funnel → payloader → capsfilter → webrtcbin   (one viewer)
/// rung 2 tee → lane ─┘
/// ```
/// Each rung reaches the viewer through one of its lanes (`FanoutLanes`: a queue and tee
/// shared by several viewers, whose thread pushes through each of their funnels in turn; the
/// funnel lets one push at a time). With lanes off (`--viewer-lanes 0`) the funnel takes the
/// rungs' tees and a queue of the viewer's own follows it. A rung is linked when the viewer
/// starts on it or a move to it is decided, and unlinked about a second after the viewer
/// left it (`detachIdle`): a viewer costs nothing in the rungs it does not get (all linked,
/// each viewer's funnel dropped two of every three frames, and its lanes woke for them).
/// A move to another rung (`RenditionChoice`, from the viewer's own bandwidth estimate)
/// asks that rung's encoder for a keyframe and switches when it arrives: the old rung's
/// frames pass until then, the new rung's from its keyframe on. One payloader, one SSRC and
/// continuous sequence numbers and timestamps (every rung encodes the same captured frames)
/// make it one stream to the viewer, whose decoder sees a new picture size at a keyframe.
/// Nothing is renegotiated: the caps that reach webrtcbin after the first are held back
/// (webrtcbin would otherwise renegotiate for a picture-size change).
///
/// Decisions are made twice: at the funnel's inputs (what may enter; the rung's own thread)
/// and at its output (in the order the funnel pushes, so a frame of the old rung that was
/// already inside when the new rung's keyframe went out is dropped, not decoded against the
/// new picture). The viewer's keyframe requests (PLI, FIR, its start gate) go to the rung it
/// gets (or is about to get) only.
package final class RenditionSwitch: Sendable {
    /// The funnel and everything the probes share. The probes hold `Track`, never the pads
    /// they sit on (a pad owns its probes: that would be a cycle).
    package final class Track: Sendable {
        package struct State {
            package var current: Int
            package var pending: Int?
            /// The rungs the viewer needs linked: the current one, and the one a move waits for.
            package var wanted: [Int] { pending.map { $0 == current ? [current] : [current, $0] } ?? [current] }
            /// When the pending rung's keyframe was last asked for.
            package var askedNs: UInt64 = 0
            /// Buffers inside the funnel now, by address, with their rung.
            package var inFlight: [UInt: Int] = [:]
            package var ups = 0, downs = 0
        }
        package let state: Mutex<State>
        /// Told (on the streaming thread) when the viewer has moved: from, to, and nanoseconds
        /// since the new rung's keyframe was (last) asked for.
        package let onMove: @Sendable (Int, Int, UInt64) -> Void
        package init(start: Int, onMove: @escaping @Sendable (Int, Int, UInt64) -> Void) {
            state = Mutex(State(current: start)); self.onMove = onMove
        }

        /// At rung `rung`'s input: a buffer of the current rung, or the pending rung's
        /// keyframe, enters; everything else is dropped.
        package func admit(rung: Int, buffer identity: UInt, keyframe: Bool) -> Pad.ProbeReturn {
            state.withLock { s in
                guard rung == s.current || (rung == s.pending && keyframe) else { return .drop }
                if s.inFlight.count >= 64 { s.inFlight.removeAll() } // only a flushing funnel leaves any behind
                s.inFlight[identity] = rung
                return .ok
            }
        }

        /// At the output, in push order: the pending rung's keyframe makes it current.
        package func leave(buffer identity: UInt, keyframe: Bool) -> Pad.ProbeReturn {
            let (verdict, moved) = state.withLock { s -> (Pad.ProbeReturn, (Int, Int, UInt64)?) in
                guard let rung = s.inFlight.removeValue(forKey: identity) else { return (.ok, nil) }
                if rung == s.pending, keyframe {
                    if rung < s.current { s.ups += 1 } else { s.downs += 1 }
                    defer { s.current = rung; s.pending = nil }
                    return (.ok, (s.current, rung, StageTimer.now() &- s.askedNs))
                }
                return (rung == s.current ? .ok : .drop, nil)
            }
            if let (from, to, waited) = moved { onMove(from, to, waited) }
            return verdict
        }
    }

    package let funnel: Element
    package let track: Track
    /// The funnel's inputs, by rung.
    package let inputs: [Pad]
    package let outputs: [RenditionOutput]
    /// Where a rung's frames come from for this viewer: a tee to take a pad from (the rung's
    /// own, or one of its lanes'), and what to give back once that pad is released.
    package struct Feed: Sendable {
        package var tee: Element
        package var leave: @Sendable () -> Void
        package init(tee: Element, leave: @escaping @Sendable () -> Void = {}) { self.tee = tee; self.leave = leave }
    }
    /// Makes the feed of a rung (called each time the viewer needs that rung again).
    package typealias FeedSource = @Sendable (_ rung: Int) throws(GstError) -> Feed
    private let feedSource: FeedSource
    /// A rung linked to the funnel now: its tee, the pad taken from it, and the feed's `leave`.
    private struct Attachment {
        var tee: Element
        var pad: Pad
        var leave: @Sendable () -> Void
    }
    /// The rungs linked now, by rung: the current one and the one a move waits for. Others
    /// are unlinked (`detachIdle`), so the viewer costs nothing in the rungs it does not get.
    private let attachments = Mutex<[Int: Attachment]>([:])
    /// What a failing rung input tells (set by `attach`, once the answer exists).
    private let failure = Mutex<(@Sendable (FlowReturn) -> Void)?>(nil)
    private let choice: Mutex<RenditionChoice>
    /// A move up decided and not yet made (the new rung's keyframe has not gone out).
    private struct Awaited {
        var rung: Int
        var sinceNs: UInt64
        /// The rate the estimator is told to expect once the viewer is on the new rung.
        var rate: Int
    }
    private let awaited = Mutex<Awaited?>(nil)
    /// When the viewer's last congestion feedback report was read (nil before the first).
    private let lastReadingNs = Mutex<UInt64?>(nil)
    /// Held while a move is decided and set pending: a pin (an HTTP thread), the estimate's
    /// reading (its own thread) and the stopped-rung check (the reaper) decide one at a time,
    /// so a reading that began before a pin cannot overwrite the pinned move afterwards.
    private let deciding = Mutex<Void>(())
    /// How long a move up may wait for the new rung's keyframe before it is called off (a
    /// passed-through source sends one when it will, and may never).
    package static let keyframeWaitNs: UInt64 = 5_000_000_000
    /// Each decision at debug level (`--log-level debug`), with the viewer's id.
    private let logger: Logger
    /// The rung the viewer is held on (`?layer=`, WHEP's layer selection), or nil while its
    /// own estimate chooses.
    private let pin: Mutex<Int?>
    /// Whether the viewer joined held on a rung (`?layer=`): it negotiated no congestion
    /// feedback, so it has no estimate and stays held.
    package let joinedPinned: Bool
    /// Probes the viewer's path while its estimate tries the next rung (`RenditionChoice`'s
    /// probes), if it has an estimate.
    private let prober: RTXProber?

    /// Adds a funnel for one viewer to `pipeline`, starting on rung `start`. Link `funnel`'s
    /// src to the viewer's branch, then `attach` once the answer exists. `feed` gives the tee
    /// to take a rung from (a seat on its lanes, `FanoutLanes`), by default the rung's own.
    /// `onMove` is told (on a streaming thread: keep it short) each time the viewer has moved.
    /// With `prober` (on the viewer's payloader output) the estimate tries a better rung by
    /// probing the path with retransmissions before moving the viewer to it.
    package init(
        outputs: [RenditionOutput], feed: FeedSource? = nil, start: Int, pinned: Bool = false, into pipeline: Pipeline,
        viewer: String = "", prober: RTXProber? = nil,
        onMove: @escaping @Sendable (_ from: RenditionOutput, _ to: RenditionOutput) -> Void = { _, _ in }
    ) throws(GstError) {
        let funnel = try Element.make("funnel")
        try pipeline.add([funnel])
        var inputs: [Pad] = []
        for _ in outputs {
            guard let pad = funnel.requestPad("sink_%u") else { throw GstError("the viewer's funnel refused an input") }
            inputs.append(pad)
        }
        let start = min(max(0, start), outputs.count - 1)
        var logger = Logger(label: "sluice.rendition")
        logger[metadataKey: "viewer"] = "\(viewer)"
        let track = Track(start: start) { [logger] from, to, waitedNs in
            logger.debug("rendition: on \(outputs[to].rendition.name), \(waitedNs / 1_000_000) ms after its keyframe was asked for")
            onMove(outputs[from], outputs[to])
        }
        for (rung, pad) in inputs.enumerated() {
            pad.addProbe([.buffer, .eventDownstream]) { (info: borrowing Pad.ProbeInfo) in
                if let identity = info.bufferIdentity {
                    return track.admit(rung: rung, buffer: identity, keyframe: !(info.buffer?.isDeltaUnit ?? true))
                }
                // Sticky events are the funnel's to forward (it sends the new input's when it
                // switches); others only from the rung that gets through.
                if info.eventIsSticky { return .ok }
                return track.state.withLock { $0.current == rung } ? .ok : .drop
            }
        }
        guard let output = funnel.staticPad("src") else { throw GstError("the funnel has no output") }
        output.addProbe(.buffer) { (info: borrowing Pad.ProbeInfo) in
            guard let identity = info.bufferIdentity else { return .ok }
            return track.leave(buffer: identity, keyframe: !(info.buffer?.isDeltaUnit ?? true))
        }
        // Keyframe requests go to the rung that gets through (or is about to), not to all.
        let redirectTo = inputs
        output.addProbe(.eventUpstream) { (info: borrowing Pad.ProbeInfo) in
            guard info.eventName == "GstForceKeyUnit" else { return .ok }
            let own = info.eventStructure?.get(Event.originField, as: String.self) == KeyframeRequestLimiter.ownOrigin
            let rung = track.state.withLock { $0.pending ?? $0.current }
            redirectTo[rung].pushEvent(.forceKeyUnit(origin: own ? KeyframeRequestLimiter.ownOrigin : nil))
            return .drop
        }
        self.funnel = funnel; self.track = track; self.inputs = inputs; self.outputs = outputs
        if let feed {
            feedSource = feed
        } else {
            let own = outputs.map(\.tee)
            feedSource = { rung in Feed(tee: own[rung]) }
        }
        self.logger = logger
        choice = Mutex(RenditionChoice(count: outputs.count, start: start, probesFirst: prober != nil))
        self.prober = prober
        pin = Mutex(pinned ? start : nil)
        joinedPinned = pinned
    }

    /// The rung the viewer is held on, if it is (nil: its estimate chooses).
    package var pinnedRung: Int? { pin.withLock { $0 } }

    /// Holds the viewer on `rung` (moving it there at that rung's next keyframe, asked for
    /// now), or with nil lets its estimate choose again, from where it is.
    package func pin(to rung: Int?, nowNs: UInt64 = StageTimer.now()) {
        if let rung, !outputs.indices.contains(rung) { return }
        let ask = deciding.withLock { _ -> Int? in
            pin.withLock { $0 = rung }
            awaited.withLock { $0 = nil }
            let target = rung ?? (track.state.withLock { $0.pending ?? $0.current })
            restartChoice(at: target, nowNs: nowNs)
            return setPending(target)
        }
        if let rung { logger.debug("rendition: pinned to \(outputs[rung].rendition.name)\(ask == nil ? " (there already)" : "; its keyframe asked for")") }
        askForKeyframe(of: ask)
    }

    /// Links the rung the viewer starts on (and one a move waits for) to the funnel, once the
    /// answer exists. Each link goes behind `isolate` (this viewer failing cannot stop a rung;
    /// `onFailure` is told) and `dropReconfigure` (its joining does not renegotiate the rung).
    package func attach(onFailure: @escaping @Sendable (FlowReturn) -> Void) throws(GstError) {
        failure.withLock { $0 = onFailure }
        let wanted = track.state.withLock { $0.wanted }
        for rung in wanted { try link(rung) }
    }

    /// Links rung `rung`'s feed to its funnel input, unless it is linked already or the
    /// viewer is not yet attached (`attach` links it then).
    private func link(_ rung: Int) throws(GstError) {
        guard let onFailure = failure.withLock({ $0 }) else { return }
        try attachments.withLock { linked throws(GstError) in
            guard linked[rung] == nil else { return }
            let feed = try feedSource(rung)
            guard let pad = feed.tee.requestPad("src_%u") else {
                feed.leave()
                throw GstError("rendition '\(outputs[rung].rendition.name)' refused a viewer")
            }
            pad.dropReconfigure()
            pad.isolate(into: inputs[rung], onFailure: onFailure)
            do throws(GstError) { try pad.link(inputs[rung]) } catch {
                feed.tee.releaseRequestPad(pad)
                feed.leave()
                throw error
            }
            linked[rung] = Attachment(tee: feed.tee, pad: pad, leave: feed.leave)
        }
    }

    /// Unlinks the rungs the viewer neither gets nor waits for (called about once a second:
    /// never from a streaming thread, where releasing a tee pad could wait on this funnel).
    package func detachIdle() {
        // While deciding: a move decided now either keeps its rung here or links it again after.
        let idle = deciding.withLock { _ -> [Attachment] in
            let keep = Set(track.state.withLock { $0.wanted })
            return attachments.withLock { linked -> [Attachment] in
                linked.keys.filter { !keep.contains($0) }.compactMap { linked.removeValue(forKey: $0) }
            }
        }
        for a in idle { Self.release(a) }
    }

    /// Unlinks every rung (the viewer goes).
    package func detachAll() {
        for a in attachments.withLock({ l -> [Attachment] in
            defer { l.removeAll() }; return Array(l.values)
        }) { Self.release(a) }
    }

    /// Rungs linked now (the current one, and one a move waits for).
    package var linkedRungs: Set<Int> { attachments.withLock { Set($0.keys) } }

    private static func release(_ a: Attachment) {
        if let peer = a.pad.peer { a.pad.unlink(peer) }
        a.tee.releaseRequestPad(a.pad)
        a.leave()
    }

    /// Lets the first caps through `pad` (a viewer's input to webrtcbin) and holds back the
    /// rest: a new picture size would make webrtcbin renegotiate, and nothing the RTP
    /// session uses (payload type, SSRC, clock rate) changes between rungs.
    package static func keepFirstCaps(on pad: Pad) {
        let seen = Seen()
        pad.addProbe(.eventDownstream) { (info: borrowing Pad.ProbeInfo) in
            guard info.event == .caps else { return .ok }
            return seen.flag.exchange(true, ordering: .relaxed) ? .drop : .ok
        }
    }
    private final class Seen: Sendable { let flag = Atomic<Bool>(false) }

    /// The rung the viewer gets now.
    package var current: Int { track.state.withLock { $0.current } }
    /// Moves up and down so far.
    package var moves: (up: Int, down: Int) { track.state.withLock { ($0.ups, $0.downs) } }

    /// Moves the viewer to rung `rung` at that rung's next keyframe, which is asked for now.
    package func move(to rung: Int) {
        askForKeyframe(of: deciding.withLock { _ in setPending(rung) })
    }

    /// Makes `rung` the one the viewer waits to move to (none if it is there already);
    /// returns the rung whose keyframe to ask for. Called while deciding.
    private func setPending(_ rung: Int) -> Int? {
        guard outputs.indices.contains(rung) else { return nil }
        return track.state.withLock { s -> Int? in
            s.pending = rung == s.current ? nil : rung
            s.askedNs = StageTimer.now()
            return s.pending
        }
    }

    /// Asks rung `rung`'s source for a keyframe (upstream, outside any lock: the event crosses
    /// the relay's or the encoder's elements on this thread).
    private func askForKeyframe(of rung: Int?) {
        guard let rung else { return }
        do { try link(rung) } catch { logger.warning("rendition: cannot take \(outputs[rung].rendition.name): \(error.message)") }
        inputs[rung].pushEvent(.forceKeyUnit(origin: KeyframeRequestLimiter.ownOrigin))
    }

    /// Asks again for the keyframe of the rung the viewer waits to move to, if it was asked
    /// for over `reaskAfterNs` ago (a request can be lost, and a relayed publisher sends no
    /// keyframe by itself: a pinned viewer would wait for ever). Returns whether it asked.
    @discardableResult
    package func askAgainIfStillPending(nowNs: UInt64) -> Bool {
        let rung = track.state.withLock { s -> Int? in
            guard let pending = s.pending, nowNs &- s.askedNs > Self.reaskAfterNs else { return nil }
            s.askedNs = nowNs
            return pending
        }
        guard let rung else { return false }
        logger.debug("rendition: no keyframe of \(outputs[rung].rendition.name) yet; asked again")
        askForKeyframe(of: rung)
        return true
    }
    /// How long a move waits for its keyframe before asking again.
    package static let reaskAfterNs: UInt64 = 700_000_000

    /// The bitrate limits of this viewer's estimator: from half the least rung to a quarter
    /// above the best, starting at the rung it starts on.
    package var estimatorLimits: BitrateLimits {
        let rates = outputs.map(\.bitsPerSecond)
        let start = rates[min(max(0, current), rates.count - 1)]
        return BitrateLimits(min: (rates.min() ?? start) / 2, start: start, max: (rates.max() ?? start) * 5 / 4)
    }

    /// How low and how high the viewer's estimate needs to go, bit/s: from half the least
    /// rung's average (`bitsPerSecond`; a stopped rung's aside; never under `estimatorFloor`)
    /// to a quarter above the best's rate now. Only passed-through rungs move these past
    /// `estimatorLimits`: their rates are the source's, known only as they are measured. A
    /// viewer that joins in the source's first half second starts with 1 Mbit/s standing in
    /// for each: with the floor held at 500 kbit/s, a relay viewer behind 250 kbit/s stayed on
    /// a 300 kbit/s layer at 2 frames a second (its estimate could not fall below 80% of it).
    package func estimatorRange(nowNs: UInt64) -> ClosedRange<Int> {
        let ceiling = (outputs.map { $0.rate(nowNs: nowNs) }.max() ?? 0) * 5 / 4
        let least = outputs.filter { !$0.meter.hasStopped(nowNs: nowNs) }.map(\.bitsPerSecond).filter { $0 > 0 }.min()
        let floor = max(Self.estimatorFloor, (least ?? 2 * Self.estimatorFloor) / 2)
        return min(floor, ceiling)...max(floor, ceiling)
    }
    /// The lowest an estimate's floor goes, bit/s.
    package static let estimatorFloor = 20_000

    /// One reading of the viewer's estimator: picks the rung (`RenditionChoice`) and moves
    /// there. Returns what the estimator should know: the rate the viewer is about to get
    /// when it moves up, or the rate it returns to after a failed try.
    ///
    /// A move up is told to the estimator (`expect`) when it is made, at the new rung's
    /// keyframe, not when it is decided: an encoder makes that keyframe at once, but a
    /// passed-through source only when it will (1–4 s for most cameras), and until then the
    /// viewer gets the old rung, so readings in between say nothing about the new one and
    /// are not used. A wait longer than `keyframeWaitNs` calls the move off.
    package func update(with reading: CongestionControl.Reading) -> CongestionControl.RateChange? {
        // Readings come several times a second: a lost keyframe request is asked again sooner
        // than the reaper's once a second would.
        askAgainIfStillPending(nowNs: reading.nowNs)
        lastReadingNs.withLock { $0 = reading.nowNs }
        let (change, ask) = deciding.withLock { _ in decide(reading) }
        askForKeyframe(of: ask)
        return change
    }

    /// `update`'s decision, while deciding: the rate change for the estimator and the rung
    /// whose keyframe to ask for.
    private func decide(_ reading: CongestionControl.Reading) -> (CongestionControl.RateChange?, Int?) {
        if pinnedRung != nil { return (nil, nil) }
        if let wait = awaited.withLock({ $0 }) {
            if current == wait.rung {
                awaited.withLock { $0 = nil }
                choice.withLock { $0.arrived(nowNs: reading.nowNs) }
                note("on \(outputs[wait.rung].rendition.name), expecting \(wait.rate) bit/s", reading)
                return (.expect(wait.rate), nil)
            }
            guard reading.nowNs &- wait.sinceNs > Self.keyframeWaitNs else { return (nil, nil) }
            awaited.withLock { $0 = nil }
            let stay = current
            note("called off: no keyframe of \(outputs[wait.rung].rendition.name)", reading)
            restartChoice(at: stay, nowNs: reading.nowNs)
            return (nil, setPending(stay))
        }
        // A rung that stopped fits no link: nobody is moved onto it.
        let rates = outputs.map { $0.meter.hasStopped(nowNs: reading.nowNs) ? Self.stoppedRate : $0.rate(nowNs: reading.nowNs) }
        let decision = choice.withLock {
            $0.update(
                estimate: reading.target, rates: rates, received: reading.received,
                increasing: reading.state == .increase, queueMs: reading.queueMs, lost: reading.lost, nowNs: reading.nowNs)
        }
        switch decision {
        case .stay:
            return (nil, nil)
        case .probe(let bitsPerSecond):
            guard let prober, prober.canProbe else {
                note("no retransmission sender to probe with: tries move the viewer", reading, rates)
                choice.withLock { $0.cannotProbe() }
                return (nil, nil)
            }
            note("trying \(outputs[max(0, current - 1)].rendition.name) by probing with \(bitsPerSecond) bit/s", reading, rates)
            prober.probe(at: bitsPerSecond, forNs: RenditionChoice.probeMaxNs, rampNs: RenditionChoice.probeRampNs, nowNs: reading.nowNs)
            return (nil, nil)
        case .stopProbing:
            note("the probe failed; staying on \(outputs[current].rendition.name)", reading, rates)
            prober?.probe(at: 0)
            // Back to what the path carried: the rung's rate, or less if less arrived.
            let carried = reading.received.map { min(rates[current], Int($0)) } ?? rates[current]
            return (.recover(carried), nil)
        case .back(let rung):
            note("back to \(outputs[rung].rendition.name) (a failed try)", reading, rates)
            return (.recover(rates[rung]), setPending(rung))
        case .to(let rung, let probing):
            note("to \(outputs[rung].rendition.name)\(probing ? " (a try)" : "")", reading, rates)
            prober?.probe(at: 0)
            if rung < current { awaited.withLock { $0 = Awaited(rung: rung, sinceNs: reading.nowNs, rate: rates[rung]) } }
            return (nil, setPending(rung))
        }
    }

    /// The rate a stopped rung counts as: more than any link.
    private static let stoppedRate = 1 << 50

    /// Moves the viewer off its rung when that rung has stopped (no frame for
    /// `RenditionMeter.stoppedAfterNs`: a simulcast publisher's layer that went away) to the
    /// nearest rung still sending, smaller ones first. Checked about once a second
    /// (`ViewerSet.reap`), so a viewer waits at most that, the stop and the new rung's
    /// keyframe. Returns whether it moved.
    @discardableResult
    package func leaveStoppedRung(nowNs: UInt64) -> Bool {
        let moved = deciding.withLock { _ -> (from: Int, to: Int, ask: Int?)? in
            let here = track.state.withLock { $0.pending ?? $0.current }
            guard outputs[here].meter.hasStopped(nowNs: nowNs) else { return nil }
            let nearest = Array(here + 1..<outputs.count) + Array((0..<here).reversed())
            guard let target = nearest.first(where: { !outputs[$0].meter.hasStopped(nowNs: nowNs) && outputs[$0].frames > 0 }) else {
                return nil
            }
            awaited.withLock { $0 = nil }
            restartChoice(at: target, nowNs: nowNs)
            return (here, target, setPending(target))
        }
        guard let moved else { return false }
        logger.debug("rendition: \(outputs[moved.from].rendition.name) stopped; to \(outputs[moved.to].rendition.name)")
        askForKeyframe(of: moved.ask)
        return true
    }

    /// How long without a feedback report before `leaveSilentPath` moves the viewer down.
    package static let silentAfterNs: UInt64 = 1_500_000_000
    /// How long after `expectFeedback` the first report may take (ICE, DTLS, the first
    /// frames) before the silence counts.
    package static let firstReportGraceNs: UInt64 = 3_500_000_000

    /// The viewer has an estimate (its congestion feedback is read from now on): a first
    /// report that never comes counts as silence too, once `firstReportGraceNs` and
    /// `silentAfterNs` have passed (a path the starting rung overfills from its first
    /// keyframe on can lose every packet a report would follow).
    package func expectFeedback(nowNs: UInt64 = StageTimer.now()) {
        lastReadingNs.withLock { $0 = $0 ?? nowNs &+ Self.firstReportGraceNs }
    }

    /// Moves the viewer one rung down when its congestion feedback has stopped for
    /// `silentAfterNs` (and again after as long, while it stays silent): a path its rung
    /// overfills can lose every packet a receiver sends its feedback after (GStreamer's
    /// rtpsession reports at each frame's marker packet), and without feedback the estimate
    /// could never move it. Only for a viewer whose estimate chooses, once it had a report or
    /// `expectFeedback` was called. Checked about once a second (`ViewerSet.reap`). Returns
    /// whether it moved.
    @discardableResult
    package func leaveSilentPath(nowNs: UInt64) -> Bool {
        guard pinnedRung == nil, let last = lastReadingNs.withLock({ $0 }), nowNs > last, nowNs - last > Self.silentAfterNs
        else { return false }
        let moved = deciding.withLock { _ -> (from: Int, to: Int, ask: Int?)? in
            let here = track.state.withLock { $0.pending ?? $0.current }
            // A probe under way ends (the silence may be its doing), on the bottom rung too.
            guard here < outputs.count - 1 else {
                if choice.withLock({ $0.isProbing }) { restartChoice(at: here, nowNs: nowNs) }
                return nil
            }
            awaited.withLock { $0 = nil }
            lastReadingNs.withLock { $0 = nowNs }
            restartChoice(at: here + 1, nowNs: nowNs)
            return (here, here + 1, setPending(here + 1))
        }
        guard let moved else { return false }
        logger.debug(
            "rendition: no congestion feedback for \(Self.silentAfterNs / 1_000_000) ms on \(outputs[moved.from].rendition.name); to \(outputs[moved.to].rendition.name)"
        )
        askForKeyframe(of: moved.ask)
        return true
    }

    /// The chooser starts again from `rung` (a pin, a called-off or forced move): a probe
    /// under way ends with it.
    private func restartChoice(at rung: Int, nowNs: UInt64) {
        prober?.probe(at: 0)
        choice.withLock { $0.reset(to: rung, nowNs: nowNs) }
    }

    private func note(_ what: String, _ reading: CongestionControl.Reading, _ rates: [Int] = []) {
        guard logger.logLevel <= .debug else { return }
        logger.debug(
            "rendition: \(what)",
            metadata: [
                "estimate_bps": "\(reading.target)", "received_bps": "\(reading.received.map { Int($0) } ?? -1)",
                "rates_bps": "\(rates)", "state": "\(reading.state.rawValue)", "queue_ms": "\(reading.queueMs.map { Int($0) } ?? -1)",
                "lost": "\(reading.lost)"
            ])
    }
}
