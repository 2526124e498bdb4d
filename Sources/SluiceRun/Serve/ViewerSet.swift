import Foundation
import GStreamer
import Logging
import SluiceSignalling
import Synchronization

/// The WebRTC viewers of one stream: each gets its own queue, payloader and webrtcbin fed
/// from the stream's `tee` per medium (no re-encoding), linked once its answer exists,
/// behind start gates that keep its media until its connection is up.
/// Used by `StreamHub` (a pipeline file's send section) and `RelayStream` (a WHIP
/// publisher's media, forwarded).
///
/// Negotiation follows the viewer's offer (`ViewerPlan`): its payload types, MIDs and header
/// extensions, with a fresh SSRC per viewer signalled correctly. One viewer never harms
/// another: its branch starts with a leaky queue (a slow viewer loses its own frames) behind
/// a pad that swallows its failures (a failing viewer cannot stop the tee), and viewers
/// that fail, never connect, or fall silent are removed by `ViewerReaper`.
package final class ViewerSet: Sendable {
    /// What a viewer can be fed: the encoded stream of each medium, and its codec; for video
    /// with a ladder, every rung (`tee` is then the first rung's) and the one to start on.
    package struct Output {
        package var media: MediaKind; package var codec: Codec; package var tee: Element
        package var renditions: [RenditionOutput] = []
        package var startRendition = 0
        /// The viewer stays on `startRendition` (`?layer=`): no estimate moves it.
        package var pinned = false
        /// A passthrough video stream's last group of pictures: a new viewer starts from it.
        package var cache: GOPCache?
        /// `passthrough: auto`: the stream encoded again, in a codec, for viewers that cannot
        /// decode the source as it is (made for the first of them, removed after the last).
        package var transcode: (@Sendable (Codec) -> SharedBranch)?
        /// The stream went through encoded filters (an `e2ee` may have encrypted it): viewers'
        /// payloaders must not parse its frames (VP8 and VP9 go out through Sluice's own).
        package var opaqueFrames = false

        package init(
            media: MediaKind, codec: Codec, tee: Element, renditions: [RenditionOutput] = [], startRendition: Int = 0,
            cache: GOPCache? = nil
        ) {
            self.media = media; self.codec = codec; self.tee = tee
            self.renditions = renditions; self.startRendition = startRendition; self.cache = cache
        }
    }

    private let pipeline: Pipeline
    private let recipe: WebRTCRecipe
    private let stream: String
    private let outputs: @Sendable () -> [Output]
    package let viewers = Mutex<[String: Viewer]>([:])
    package let removals = Mutex<[String: Int]>([:])
    /// What viewers that left had been sent (so the stream's counters never go back).
    private let departed = Mutex<TrafficTotals>(TrafficTotals())
    private let reaper = Mutex<Task<Void, Never>?>(nil)
    package let limits: ViewerLimits
    /// Where viewers' sessions starting and ending are told (the stream's event log).
    package let events: PipelineEvents?
    /// With an adaptive video encoder: the viewers' estimates set its bitrate.
    package let encoderRate: SharedEncoderRate?
    /// Rung moves of viewers that left (so the totals never go back).
    private let departedMoves = Mutex<(up: Int, down: Int)>((0, 0))
    /// Called once a viewer's connection is up and its start gates are open.
    private let connected = Mutex<(@Sendable () -> Void)?>(nil)
    /// The lanes off each of the stream's tees, made when the first viewer needs them.
    private let lanesByTee = Mutex<[Element: FanoutLanes]>([:])

    package struct Viewer: @unchecked Sendable { // elements are MT-safe GstObjects; the struct is only touched under `viewers`
        package var webrtcbin: Element
        package var peer: WebRTCPeer
        package var elements: [Element]
        package var teePads: [(tee: Element, pad: Pad)]
        package var health: ViewerHealth
        package var traffic: ViewerTraffic
        /// Opens the viewer's start gates once its connection is up.
        package var opener: Task<Void, Never>
        /// Its place on the stream's ladder, if the stream has one.
        package var ladder: RenditionSwitch?
        /// The shared branches it holds (the stream encoded again), released when it leaves.
        package var shared: [SharedBranch]
        /// Its seats on the stream's lanes, given back when it leaves.
        package var seats: [FanoutLanes.Seat]
        /// It gets the stream encoded again (`passthrough: auto`), not the source's.
        package var transcoded: Bool { !shared.isEmpty }
    }

    package init(
        pipeline: Pipeline, recipe: WebRTCRecipe, stream: String, limits: ViewerLimits = ViewerLimits(),
        events: PipelineEvents? = nil, encoderRate: SharedEncoderRate? = nil,
        outputs: @escaping @Sendable () -> [Output]
    ) {
        self.pipeline = pipeline; self.recipe = recipe; self.stream = stream; self.outputs = outputs
        self.limits = limits; self.events = events; self.encoderRate = encoderRate
    }

    deinit { reaper.withLock { $0?.cancel() } }

    package var count: Int { viewers.withLock { $0.count } }

    /// Calls `handler` each time a viewer's connection is up and its start gates are open.
    package func onConnected(_ handler: @escaping @Sendable () -> Void) { connected.withLock { $0 = handler } }

    /// Viewers removed so far, by reason (`deleted`, `failed`, `never-connected`, `ice-failed`,
    /// `silent`, `shutdown`).
    package var removalCounts: [String: Int] { removals.withLock { $0 } }

    /// Ends every viewer's session; `finished` runs once each one's elements are gone (after
    /// any statistics read under way: `StatsGate`), so the pipeline can then be stopped.
    package func removeAll(then finished: @escaping @Sendable () -> Void = {}) {
        let ids = viewers.withLock { Array($0.keys) }
        let left = Atomic<Int>(ids.count + 1)
        let one: @Sendable () -> Void = { if left.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 { finished() } }
        for id in ids where !removeViewer(id, reason: "shutdown", then: one) { one() }
        one()
    }

    /// Ends every viewer's session and returns once their elements are gone.
    package func removeAllAndWait() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in removeAll { done.resume() } }
    }

    /// Adds a viewer for a WHEP offer; returns its id and the complete answer.
    /// Throws `ViewerError.badOffer` when the offer cannot be served (a 4xx for the client),
    /// other errors when the server could not build the session.
    package func addViewer(offer: String, layer: String? = nil) async throws(RunError) -> (id: String, answer: String) {
        guard count < limits.maxViewers else {
            throw RunError("'\(stream)' already has \(limits.maxViewers) viewers; try again later")
        }
        // Read once: a relay's outputs appear as its publisher's media arrives.
        var steps = NegotiationSteps()
        let available = try Self.pinning(outputs(), to: layer, stream: stream)
        let plan: ViewerPlan
        do {
            let ladder = available.contains { !$0.renditions.isEmpty }
            let profiles = available.reduce(into: [MediaKind: H264Profile]()) { $0[$1.media] = $1.h264Profile }
            plan = try ViewerPlan(
                offer: offer, outputs: available.map { ($0.media, $0.codec) },
                adaptiveVideo: encoderRate != nil || (ladder && layer == nil), h264Profiles: profiles,
                transcodable: Set(available.filter { $0.transcode != nil }.map(\.media)))
        } catch {
            throw RunError(error.description)
        }
        for note in plan.notes { Self.logger.notice("a viewer of '\(stream)': \(note)") }
        let id = UUID().uuidString.lowercased()
        let webrtcbin: Element
        do { webrtcbin = try recipe.make("viewer-\(id)", in: pipeline) } catch {
            throw RunError("cannot set up the viewer's webrtcbin: \(error.message)")
        }
        var parts = ViewerAssembly(webrtcbin: webrtcbin)
        steps.done("plan and webrtcbin")
        do {
            return try await connect(&parts, id: id, plan: plan, outputs: available, steps: &steps)
        } catch {
            // One place undoes a half-made viewer, whatever step failed.
            dismantle(elements: parts.elements, teePads: parts.teePads, shared: parts.shared, seats: parts.seats, ladder: parts.ladder)
            encoderRate?.withdraw(id)
            count(removal: "failed")
            switch error {
            case let e as NegotiationError: throw RunError("negotiation with the viewer failed: \(e.message)")
            case let e as GstError: throw RunError("cannot attach a viewer: \(e.message)")
            default: throw RunError("cannot attach a viewer: \(error)")
            }
        }
    }

    /// The names of the video's layers (a ladder's renditions, a simulcast publisher's
    /// layers), best first; empty with one layer only.
    package var layerNames: [String] { outputs().first { !$0.renditions.isEmpty }?.renditions.map(\.rendition.name) ?? [] }

    /// Holds viewer `id` on the layer (or rung) named `layer`, or with nil lets its estimate
    /// choose again. False if there is no such viewer; throws `RunError` naming the layers
    /// when the stream has none or no layer of that name.
    package func pin(viewer id: String, to layer: String?) throws(RunError) -> Bool {
        guard let viewer = viewers.withLock({ $0[id] }) else { return false }
        guard let ladder = viewer.ladder else {
            throw RunError("'\(stream)' has one layer only: a layer can be chosen of a ladder's renditions or a simulcast publisher's layers")
        }
        guard let layer else {
            guard !ladder.joinedPinned else {
                throw RunError(
                    "this viewer joined held on layer '\(ladder.outputs[ladder.current].rendition.name)' (?layer=), without congestion feedback: "
                        + "it has no estimate to choose by. Ask for a layer by name, or join without ?layer= to let its estimate choose")
            }
            ladder.pin(to: nil)
            return true
        }
        let names = ladder.outputs.map(\.rendition.name)
        guard let rung = names.firstIndex(of: layer) else {
            throw RunError("'\(stream)' has no layer '\(layer.prefix(32))'; its layers are \(names.joined(separator: ", "))")
        }
        ladder.pin(to: rung)
        return true
    }

    /// `outputs` with the video's rung named `layer` as the one to start on and stay on.
    private static func pinning(_ outputs: [Output], to layer: String?, stream: String) throws(RunError) -> [Output] {
        guard let layer else { return outputs }
        guard let i = outputs.firstIndex(where: { !$0.renditions.isEmpty }) else {
            throw RunError("'\(stream)' has one layer only: 'layer' picks one of a ladder's renditions or a simulcast publisher's layers")
        }
        let names = outputs[i].renditions.map(\.rendition.name)
        guard let rung = names.firstIndex(of: layer) else {
            throw RunError("'\(stream)' has no layer '\(layer.prefix(32))'; its layers are \(names.joined(separator: ", "))")
        }
        var pinned = outputs
        pinned[i].startRendition = rung
        pinned[i].pinned = true
        return pinned
    }

    /// Builds the viewer's branches, answers its offer, links it to the stream and keeps it.
    private func connect(
        _ parts: inout ViewerAssembly, id: String, plan: ViewerPlan, outputs: [Output], steps: inout NegotiationSteps
    ) async throws -> (id: String, answer: String) {
        let health = ViewerHealth()
        health.watchRTCP(of: parts.webrtcbin)
        let traffic = ViewerTraffic()
        let byMedium = Dictionary(outputs.map { ($0.media, $0) }, uniquingKeysWith: { a, _ in a })
        for track in plan.tracks {
            guard let output = byMedium[track.media] else { continue }
            try addTrack(track, from: output, to: &parts, viewer: id, traffic: traffic)
        }
        steps.done("branches")
        for e in parts.elements.reversed() { e.syncStateWithParent() }
        steps.done("states")
        // Linked only once the answer exists. Linked before (so that the keyframe would be
        // asked for at the POST), a High-profile H.264 camera no longer played in Chromium
        // (H264ProfileEndToEndTests): caps reached the viewer's webrtcbin before the offer.
        let peer = recipe.peer(parts.webrtcbin, label: "viewer")
        let answer = try await peer.answer(offer: plan.offerToApply, steps: &steps)
        try parts.link { flow in health.fail("its branch stopped (\(flow))") }
        parts.holdStarts()
        steps.done("linked, keyframe asked")
        Self.logger.debug("a viewer of '\(stream)' (session \(id)) answered: \(steps)")
        let opener = parts.opener(for: peer, connectTimeout: limits.connectTimeout, then: connected.withLock { $0 })
        let viewer = Viewer(
            webrtcbin: parts.webrtcbin, peer: peer, elements: parts.elements, teePads: parts.teePads,
            health: health, traffic: traffic, opener: opener, ladder: parts.ladder,
            shared: parts.shared, seats: parts.seats)
        viewers.withLock { $0[id] = viewer }
        startReaper()
        events?.post("session-start", ["viewer": .text(id)])
        return (id, SDPRewrite.addingMediaMsid(SDPRewrite.rejectingInactive(answer)))
    }

    /// One track of the viewer: its branch (queue, payloader) into its webrtcbin, fed by the
    /// medium's tee, or by the stream's rungs through a funnel for a ladder.
    private func addTrack(
        _ track: ViewerPlan.Track, from output: Output, to parts: inout ViewerAssembly,
        viewer id: String, traffic: ViewerTraffic
    ) throws {
        // On lanes unless it needs a branch of its own (a stream encoded again has a tee of
        // its own). A ladder's or a simulcast publisher's rungs each have their lanes, whose
        // threads push through the viewer's funnel (it lets one push at a time).
        let onLane = limits.lanes > 0 && track.transcodedTo == nil
        let branch = try ViewerBranch.build(
            track.parameters, into: pipeline, webrtcbin: parts.webrtcbin, msid: "sluice-\(stream)", ownQueue: !onLane,
            opaqueFrames: output.opaqueFrames && track.transcodedTo == nil)
        parts.elements += branch.elements
        if let queue = branch.queue { traffic.countOverruns(of: queue) }
        let adaptive = track.parameters.twccExtensionID != nil ? branch.payloader.staticPad("src") : nil
        if !output.renditions.isEmpty {
            try addRungs(
                output, to: &parts, branch: branch, viewer: id, estimateAt: adaptive,
                webrtcbin: parts.webrtcbin, traffic: onLane ? traffic : nil)
            return
        }
        let seat = onLane ? try seat(on: output.tee) : nil
        if let seat {
            parts.seats.append(seat)
            traffic.countOverruns(of: seat.lane)
        }
        let tee = try seat?.tee ?? track.transcodedTo.map { try transcodedTee(of: output, in: $0, for: &parts) } ?? output.tee
        guard let teePad = tee.requestPad("src_%u") else { return }
        parts.teePads.append((tee, teePad))
        // This viewer's estimate, a vote on the shared encoder's rate (the probe it installs
        // on the payloader keeps it alive as long as the branch).
        if let rate = encoderRate, let adaptive {
            _ = CongestionControl(limits: rate.limitsForNewViewer, watching: adaptive) { target in
                rate.vote(id, bitsPerSecond: target)
            }
        }
        // Closed until this viewer's connection carries media, then from a keyframe: the
        // cached group's (passthrough), else one asked for.
        let cache = track.transcoded ? nil : output.cache
        parts.gates.append(
            StartGate(
                on: branch.entrance, waitForKeyframe: track.media == .video, cache: cache,
                replayInto: branch.payloader.staticPad("sink"), askForKeyframe: true))
        parts.pending.append(ViewerAssembly.PendingLink(teePad: teePad, queueSink: branch.entrance))
        if cache == nil { parts.entrances.append(branch.entrance) }
    }

    /// The tee of `output` encoded again in `codec` for viewers, made now if it is not yet;
    /// the viewer holds it until it leaves.
    private func transcodedTee(of output: Output, in codec: Codec, for parts: inout ViewerAssembly) throws(RunError) -> Element {
        guard let branch = output.transcode?(codec) else { throw RunError("the stream is not encoded again for viewers") }
        let tee = try branch.acquire()
        parts.shared.append(branch)
        return tee
    }

    /// A seat on one of the lanes off `tee`, whose lanes are made now if they are not yet.
    private func seat(on tee: Element) throws(GstError) -> FanoutLanes.Seat {
        try lanesByTee.withLock { table throws(GstError) in
            let lanes = table[tee] ?? FanoutLanes(tee: tee, in: pipeline, count: limits.lanes)
            table[tee] = lanes
            return try lanes.join()
        }
    }

    /// Gives `seats` back. A tee's lanes are forgotten once nobody sits on them, so no tee is
    /// kept after it goes (a relay makes a new tee for each track its publisher sends).
    private func leave(_ seats: [FanoutLanes.Seat]) {
        guard !seats.isEmpty else { return }
        lanesByTee.withLock { table in
            for seat in seats { seat.leave() }
            table = table.filter { !$0.value.isEmpty }
        }
    }

    /// Lanes (threads) carrying viewers now, over all of the stream's tees.
    package var lanesInUse: Int { lanesByTee.withLock { $0.values.reduce(0) { $0 + $1.occupancy.filter { $0 > 0 }.count } } }

    /// Viewers that get the stream encoded again (`passthrough: auto`).
    package var transcodedCount: Int { viewers.withLock { $0.values.filter(\.transcoded).count } }

    /// A ladder: every rung into a funnel; this viewer's estimate picks the one that passes.
    /// With `traffic` the viewer sits on each rung's lanes (whose overruns it counts), else
    /// its funnel takes the rungs' tees and its branch has a queue of its own.
    private func addRungs(
        _ output: Output, to parts: inout ViewerAssembly, branch: ViewerBranch.Built,
        viewer id: String, estimateAt adaptive: Pad?, webrtcbin: Element, traffic: ViewerTraffic?
    ) throws {
        let events = events
        let feed = traffic.map { laneFeed(of: output.renditions, traffic: $0) }
        let rungs = try RenditionSwitch(
            outputs: output.renditions, feed: feed, start: output.startRendition, pinned: output.pinned, into: pipeline, viewer: id,
            prober: adaptive.map { RTXProber(on: $0, webrtcbin: webrtcbin) }
        ) { from, to in
            events?.post("rendition", ["viewer": .text(id), "from": .text(from.rendition.name), "to": .text(to.rendition.name)])
        }
        parts.elements.append(rungs.funnel)
        guard let funnelOutput = rungs.funnel.staticPad("src") else { throw GstError("the funnel has no output") }
        try funnelOutput.link(branch.entrance)
        if let toWebRTC = branch.elements.last?.staticPad("src") { RenditionSwitch.keepFirstCaps(on: toWebRTC) }
        // A viewer that joined held on a rung (`?layer=`) negotiated no congestion feedback: it
        // has no estimate, and 1.22's rtpsession spends nothing on TWCC for it.
        if let adaptive {
            // The estimate's probe on the payloader keeps it alive as long as the branch.
            _ = CongestionControl(limits: rungs.estimatorLimits, watching: adaptive, range: rungs.estimatorRange) { [weak rungs] in
                rungs?.update(with: $0)
            }
            rungs.expectFeedback()
        }
        parts.ladder = rungs
        // A viewer starting on a passed-through source starts from its cached group of
        // pictures: nothing can ask the source for a keyframe.
        let cache = output.renditions[rungs.current].isPassthrough ? output.cache : nil
        parts.gates.append(
            StartGate(
                on: branch.entrance, waitForKeyframe: true, cache: cache,
                replayInto: branch.payloader.staticPad("sink"), askForKeyframe: true))
        if cache == nil { parts.entrances.append(branch.entrance) }
    }

    /// A seat on a rung's lanes each time a viewer takes that rung (its lane's drops counted
    /// as the viewer's), given back when it leaves it.
    private func laneFeed(of renditions: [RenditionOutput], traffic: ViewerTraffic) -> RenditionSwitch.FeedSource {
        let feed: RenditionSwitch.FeedSource = { [weak self] rung throws(GstError) in
            guard let self else { throw GstError("the stream is gone") }
            let seat = try self.seat(on: renditions[rung].tee)
            traffic.countOverruns(of: seat.lane)
            return RenditionSwitch.Feed(tee: seat.tee) { [weak self] in self?.leave([seat]) }
        }
        return feed
    }

    /// Adds trickled remote candidates to a viewer. False if the viewer is unknown.
    package func addCandidates(_ candidates: [(mid: String?, candidate: String)], toViewer id: String) -> Bool {
        guard let viewer = viewers.withLock({ $0[id] }) else { return false }
        for c in candidates { viewer.peer.addRemoteCandidate(ICECandidate(mlineIndex: 0, candidate: c.candidate)) }
        return true
    }

    /// Ends a viewer's session. False if unknown. Its elements go once no read of its
    /// statistics is under way (`StatsGate`: at once, or when that read ends); `then` runs
    /// after.
    @discardableResult
    package func removeViewer(_ id: String, reason: String = "deleted", then removed: @escaping @Sendable () -> Void = {}) -> Bool {
        guard let viewer = viewers.withLock({ $0.removeValue(forKey: id) }) else { return false }
        viewer.opener.cancel()
        viewer.traffic.gate.close { [self] in
            dismantle(elements: viewer.elements, teePads: viewer.teePads, shared: viewer.shared, seats: viewer.seats, ladder: viewer.ladder)
            removed()
        }
        encoderRate?.withdraw(id)
        if let moves = viewer.ladder?.moves { departedMoves.withLock { $0 = ($0.up + moves.up, $0.down + moves.down) } }
        count(removal: reason)
        let last = viewer.traffic.totals
        departed.withLock { $0 = $0 + last }
        events?.post("session-end", ["viewer": .text(id), "reason": .text(reason)])
        if let why = Self.removalWarning[reason] {
            Self.logger.warning("viewer \(id) of '\(stream)' removed: \(why)", metadata: ["reason": "\(reason)"])
        }
        return true
    }

    package static let logger = Logger(label: "sluice.serve")

    /// What the log says when a viewer is removed for a reason other than its DELETE.
    package static let removalWarning: [String: String] = [
        "ice-failed": "ICE failed (no candidate pair worked; behind NAT, give --ice-public-address and --ice-port-range, or TURN)",
        "never-connected": "ICE did not connect in time (behind NAT, give --ice-public-address and --ice-port-range, or TURN)",
        "silent": "it sent nothing for too long (it went away without DELETE)",
        "failed": "its branch failed"
    ]

    private func count(removal reason: String) {
        removals.withLock { $0[reason, default: 0] += 1 }
    }

    /// Takes a viewer's elements out of the pipeline and gives back what it held: the shared
    /// branches it used and its seats on the lanes. The one teardown of a viewer, whole or
    /// half-made.
    private func dismantle(
        elements: [Element], teePads: [(tee: Element, pad: Pad)], shared: [SharedBranch], seats: [FanoutLanes.Seat],
        ladder: RenditionSwitch?
    ) {
        ladder?.detachAll()
        pipeline.removeBranch(elements, teePads: teePads)
        for branch in shared { branch.release() }
        leave(seats)
    }

    /// Checks each viewer about once a second (see `ViewerReaper`), and reads their
    /// statistics every `limits.statsInterval`.
    private func startReaper() {
        reaper.withLock { task in
            guard task == nil else { return }
            let interval = limits.checkInterval, statsInterval = limits.statsInterval
            task = Task.detached { [weak self] in
                var lastPoll = ContinuousClock.now
                while !Task.isCancelled {
                    try? await Task.sleep(for: .milliseconds(Int(interval * 1000)))
                    guard let self else { return }
                    self.reap()
                    if statsInterval > 0, (ContinuousClock.now - lastPoll).seconds >= statsInterval * 0.9 {
                        lastPoll = .now
                        await self.pollTraffic()
                    }
                }
            }
        }
    }

    /// Reads every viewer's webrtcbin statistics, all at once (each bounded by
    /// `WebRTCPeer.stats`' timeout, so one stuck viewer delays no other's figures).
    package func pollTraffic() async {
        let current = viewers.withLock { $0.values.map { ($0.peer, $0.webrtcbin, $0.traffic) } }
        await withTaskGroup(of: Void.self) { group in
            for (peer, webrtcbin, traffic) in current {
                group.addTask { await traffic.poll(peer: peer, webrtcbin: webrtcbin) }
            }
        }
    }

    /// The viewers' traffic: totals since the stream started, and each current viewer's
    /// round trip and jitter (seconds).
    package var traffic: ViewerTrafficReport {
        let current = viewers.withLock { $0.values.map(\.traffic) }
        var report = ViewerTrafficReport()
        report.totals = current.reduce(departed.withLock { $0 }) { $0 + $1.totals }
        for t in current {
            let r = t.lastReport
            if let rtt = r.roundTripMs { report.roundTrips.append(rtt / 1000) }
            if let j = r.jitterMs { report.jitters.append(j / 1000) }
        }
        return report
    }

    /// How many viewers each of the ladder's `rungs` has now (best first), and the moves
    /// between rungs so far.
    package func renditionFigures(rungs: Int) -> (viewers: [Int], up: Int, down: Int) {
        var perRung = Array(repeating: 0, count: rungs)
        for l in viewers.withLock({ $0.values.compactMap(\.ladder) }) where perRung.indices.contains(l.current) { perRung[l.current] += 1 }
        let moves = rungMoves
        return (perRung, moves.up, moves.down)
    }

    /// How many viewers each rung has now, by the rung's name (viewers of one relay may have
    /// ranked its layers at different times: names, not places, are what they share).
    package func viewersByRung() -> [String: Int] {
        viewers.withLock { v in
            v.values.compactMap(\.ladder).reduce(into: [:]) { counts, ladder in
                counts[ladder.outputs[ladder.current].rendition.name, default: 0] += 1
            }
        }
    }

    /// Moves between rungs so far, those of viewers that left included.
    package var rungMoves: (up: Int, down: Int) {
        viewers.withLock { $0.values.compactMap(\.ladder) }.reduce(departedMoves.withLock { $0 }) { total, ladder in
            let m = ladder.moves
            return (total.up + m.up, total.down + m.down)
        }
    }

    /// Removes the viewers `ViewerReaper` finds dead, with the reason, moves viewers off
    /// rungs that stopped and down from paths whose feedback stopped, and asks again for the
    /// keyframes of moves still waiting.
    package func reap(now: ContinuousClock.Instant = .now) {
        let ladders = viewers.withLock { $0.values.compactMap(\.ladder) }, nowNs = StageTimer.now()
        for ladder in ladders {
            if !ladder.leaveStoppedRung(nowNs: nowNs), !ladder.leaveSilentPath(nowNs: nowNs) {
                ladder.askAgainIfStillPending(nowNs: nowNs)
            }
            ladder.detachIdle()
        }
        let verdicts = viewers.withLock { v in
            v.compactMap { id, viewer in
                ViewerReaper.verdict(health: viewer.health, states: viewer.peer.states, now: now, limits: limits).map { (id, $0) }
            }
        }
        for (id, reason) in verdicts { removeViewer(id, reason: reason) }
    }
}
