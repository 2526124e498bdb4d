import GStreamer
import Synchronization
import XCTest
@testable import SluiceRun

/// One viewer's switch between two rungs of a ladder, without WebRTC: a live test picture
/// encoded at 320x240 and 160x120 (keyframes only on request), both into a
/// `RenditionSwitch`, whose output a fakesink records.
final class RenditionSwitchTests: XCTestCase {
    /// What reached the sink: each buffer's picture width and whether it was a keyframe.
    private final class Seen: Sendable {
        let frames = Mutex<[(width: Int, keyframe: Bool)]>([])
        func count(width: Int) -> Int { frames.withLock { $0.filter { $0.width == width }.count } }
    }

    /// Keyframes each rung's encoder made.
    private final class Keyframes: Sendable {
        let made = Mutex<[Int]>([0, 0])
        subscript(rung: Int) -> Int { made.withLock { $0[rung] } }
    }

    private func ladder() throws -> (Pipeline, [RenditionOutput], Keyframes) {
        let keyframes = Keyframes()
        Gst.initialize()
        let pipeline = Pipeline(name: "ladder-switch")
        let src = try Element.make("videotestsrc")
        try src.set("is-live", true)
        try src.set("pattern", fromString: "ball")
        let caps = try Element.make("capsfilter")
        try caps.set("caps", fromString: "video/x-raw,width=320,height=240,framerate=30/1")
        let split = try Element.make("tee")
        try pipeline.add([src, caps, split])
        try Element.link([src, caps, split])
        var outputs: [RenditionOutput] = []
        for (i, width) in [320, 160].enumerated() {
            let queue = try Element.make("queue")
            let scale = try Element.make("videoscale")
            let size = try Element.make("capsfilter")
            try size.set("caps", fromString: "video/x-raw,width=\(width),height=\(width * 3 / 4)")
            let enc = try Element.make("x264enc")
            try enc.set("tune", fromString: "zerolatency")
            try enc.set("speed-preset", fromString: "ultrafast")
            try enc.set("key-int-max", UInt32(100_000)) // keyframes only when asked
            let parse = try Element.make("h264parse")
            let tee = try Element.make("tee")
            try tee.set("allow-not-linked", true)
            try pipeline.add([queue, scale, size, enc, parse, tee])
            try Element.link([queue, scale, size, enc, parse, tee])
            let branch = try XCTUnwrap(split.requestPad("src_%u"))
            try branch.link(try XCTUnwrap(queue.staticPad("sink")))
            let output = RenditionOutput(
                rendition: Rendition(name: "\(width)", width: width, height: width * 3 / 4, bitrateKbps: 1000 - i * 500),
                index: i, tee: tee, encoder: enc, keyframeRequests: nil)
            output.meter.count(at: tee)
            // Counted apart from `output`, which holds the tee: the tee's pad owns this probe.
            tee.staticPad("sink")?.addProbe { (info: borrowing Pad.ProbeInfo) in
                if !(info.buffer?.isDeltaUnit ?? true) { keyframes.made.withLock { $0[i] += 1 } }
                return .ok
            }
            outputs.append(output)
        }
        return (pipeline, outputs, keyframes)
    }

    /// Links `rungs` to a fakesink, attaches it and plays `pipeline`; returns what stops it all.
    private func play(_ rungs: RenditionSwitch, in pipeline: Pipeline) throws -> () -> Void {
        let sink = try Element.make("fakesink")
        try sink.set("sync", false)
        try pipeline.add([sink])
        try rungs.funnel.link(sink)
        let stopping = StopFlag()
        try rungs.attach { flow in Self.rungStopped(flow, stopping: stopping) }
        XCTAssertTrue(pipeline.setState(.playing) != .failure)
        return {
            stopping.set()
            pipeline.setState(.null)
            rungs.detachAll()
        }
    }

    private func waitFor(_ what: String, seconds: Double = 10, _ done: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while !done() {
            guard ContinuousClock.now < deadline else { XCTFail("timed out waiting for \(what)"); return }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    func testAMoveSwitchesAtTheNewRungsKeyframeAndKeyframeRequestsGoToOneRung() async throws {
        let (pipeline, outputs, keyframes) = try ladder()
        let moves = Mutex<[(String, String)]>([])
        let rungs = try RenditionSwitch(outputs: outputs, start: 0, into: pipeline) { from, to in
            moves.withLock { $0.append((from.rendition.name, to.rendition.name)) }
        }
        let sink = try Element.make("fakesink")
        try sink.set("sync", false)
        try pipeline.add([sink])
        try rungs.funnel.link(sink)
        let seen = Seen()
        let sinkPad = try XCTUnwrap(sink.staticPad("sink"))
        sinkPad.addProbe { (info: borrowing Pad.ProbeInfo) in
            let width = info.currentCaps?.structure(at: 0)?.get("width", as: Int32.self).map(Int.init) ?? 0
            let key = !(info.buffer?.isDeltaUnit ?? true)
            seen.frames.withLock { $0.append((width, key)) }
            return .ok
        }
        let stopping = StopFlag()
        try rungs.attach { flow in Self.rungStopped(flow, stopping: stopping) }
        XCTAssertEqual(rungs.linkedRungs, [0], "only the rung the viewer starts on is linked")
        let started = pipeline.setState(.playing)
        XCTAssertTrue(started != .failure)
        defer {
            stopping.set()
            pipeline.setState(.null)
        }

        try await waitFor("30 frames of the best rung") { seen.count(width: 320) >= 30 }
        XCTAssertEqual(seen.count(width: 160), 0, "only the current rung gets through")
        XCTAssertEqual(rungs.current, 0)
        let keyframesBefore = [keyframes[0], keyframes[1]]

        // Move down: the lesser rung's encoder is asked for a keyframe, and the switch is there.
        rungs.move(to: 1)
        try await waitFor("30 frames of the lesser rung") { seen.count(width: 160) >= 30 }
        XCTAssertEqual(rungs.current, 1)
        XCTAssertEqual(rungs.moves.down, 1)
        XCTAssertEqual(moves.withLock { $0.map { "\($0.0)→\($0.1)" } }, ["320→160"])
        let frames = seen.frames.withLock { $0 }
        let first = try XCTUnwrap(frames.firstIndex { $0.width == 160 })
        XCTAssertTrue(frames[first].keyframe, "the new rung starts at a keyframe")
        XCTAssertFalse(frames[first...].contains { $0.width == 320 }, "no frame of the old rung after the switch")
        XCTAssertEqual(keyframes[1], keyframesBefore[1] + 1, "one keyframe asked of the new rung")
        XCTAssertEqual(keyframes[0], keyframesBefore[0], "none of the old one")
        XCTAssertEqual(rungs.linkedRungs, [0, 1], "the rung it left stays linked until the next check")
        rungs.detachIdle()
        XCTAssertEqual(rungs.linkedRungs, [1], "then only the rung it gets")

        // A viewer's keyframe request (a PLI arrives as an upstream force-key-unit) reaches the
        // rung it gets, not every rung.
        XCTAssertTrue(sinkPad.pushEvent(.forceKeyUnit()))
        try await waitFor("the current rung's keyframe") { keyframes[1] == keyframesBefore[1] + 2 }
        let settle = seen.count(width: 160) + 30
        try await waitFor("30 more frames") { seen.count(width: 160) >= settle }
        XCTAssertEqual(keyframes[0], keyframesBefore[0], "the other rung's encoder was not asked")

        // Back up: the same at the best rung's keyframe.
        let before = seen.frames.withLock { $0.count }
        rungs.move(to: 0)
        try await waitFor("the best rung again") { seen.frames.withLock { $0[before...].filter { $0.width == 320 }.count } >= 10 }
        let after = seen.frames.withLock { Array($0[before...]) }
        let back = try XCTUnwrap(after.firstIndex { $0.width == 320 })
        XCTAssertTrue(after[back].keyframe)
        XCTAssertFalse(after[back...].contains { $0.width == 160 })
        XCTAssertEqual(rungs.moves.up, 1)
        rungs.detachAll()
    }

    /// A move up to a rung whose keyframe is late (a passed-through source makes one only when
    /// it will): the estimator is told to expect the new rate when the viewer is on it, not
    /// when the move is decided; readings in between are not used; and a keyframe that does
    /// not come within 5 s calls the move off.
    func testAMoveUpIsExpectedWhenItsKeyframeArrivesAndCalledOffWithoutOne() async throws {
        let (pipeline, outputs, _) = try ladder()
        let rungs = try RenditionSwitch(outputs: outputs, start: 1, into: pipeline)
        // Rung 0 stands for a passed-through source: requests for its keyframe go nowhere.
        let answers = Atomic<Bool>(false)
        outputs[0].tee.staticPad("sink")?.addProbe(.eventUpstream) { (info: borrowing Pad.ProbeInfo) in
            info.eventName == "GstForceKeyUnit" && !answers.load(ordering: .relaxed) ? .drop : .ok
        }
        let stop = try play(rungs, in: pipeline)
        defer { stop() }
        let t0 = StageTimer.now()
        func reading(at seconds: Double) -> CongestionControl.Reading {
            .init(target: 100_000_000, received: 400_000, state: .increase, nowNs: t0 + UInt64(seconds * 1e9))
        }
        XCTAssertNil(rungs.update(with: reading(at: 0)))
        XCTAssertNil(rungs.update(with: reading(at: 1.1)), "the move up is decided, not made: nothing to expect yet")
        XCTAssertEqual(rungs.current, 1)
        XCTAssertNil(rungs.update(with: reading(at: 3)), "waiting for the keyframe, readings are not used")
        XCTAssertNil(rungs.update(with: reading(at: 6.2)), "no keyframe in 5 s: the move is called off")
        XCTAssertEqual(rungs.current, 1)

        // Now the source answers: the next try's move is made at its keyframe, and the first
        // reading after it tells the estimator to expect rung 0's rate.
        answers.store(true, ordering: .relaxed)
        var change: CongestionControl.RateChange?
        var at = 7.4
        let deadline = ContinuousClock.now + .seconds(10)
        while change == nil, ContinuousClock.now < deadline {
            change = rungs.update(with: reading(at: at))
            at += 0.1
            try await Task.sleep(for: .milliseconds(20))
        }
        XCTAssertEqual(rungs.current, 0, "on the best rung once its keyframe went out")
        // (Its rate is measured over these readings' made-up times, so its value says nothing here.)
        guard case .expect = change else { return XCTFail("expected an expect, got \(String(describing: change))") }
    }

    /// A viewer whose congestion feedback stops (a path its rung overfills lost every packet
    /// its receiver reports after) is moved one rung down once 1.5 s pass without a report;
    /// never before a first report, never while pinned, and not below the last rung (this
    /// ladder has two).
    func testAViewerWhoseFeedbackStopsIsMovedDownARungAtATime() async throws {
        let (pipeline, outputs, _) = try ladder()
        let rungs = try RenditionSwitch(outputs: outputs, start: 0, into: pipeline)
        let stop = try play(rungs, in: pipeline)
        defer { stop() }
        try await waitFor("the first rung's frames") { outputs[0].frames > 10 }
        let t0 = StageTimer.now()
        XCTAssertFalse(rungs.leaveSilentPath(nowNs: t0 + 10 * RenditionSwitch.silentAfterNs), "no report yet: nothing is known")
        // Told it has an estimate, a first report that never comes counts after the grace.
        let grace = RenditionSwitch.firstReportGraceNs + RenditionSwitch.silentAfterNs
        rungs.expectFeedback(nowNs: t0 - grace - 2)
        XCTAssertTrue(rungs.leaveSilentPath(nowNs: t0 - 1), "no first report within the grace")
        try await waitFor("the move to rung 1") { rungs.current == 1 }
        rungs.pin(to: 0)
        try await waitFor("the pinned move back to rung 0") { rungs.current == 0 }
        rungs.pin(to: nil)
        // A report the estimate stays on rung 0 with.
        _ = rungs.update(with: .init(target: 100_000_000, received: 400_000, state: .hold, nowNs: t0))
        XCTAssertFalse(rungs.leaveSilentPath(nowNs: t0 + RenditionSwitch.silentAfterNs), "not silent for long enough yet")
        XCTAssertTrue(rungs.leaveSilentPath(nowNs: t0 + RenditionSwitch.silentAfterNs + 1))
        try await waitFor("the move to rung 1") { rungs.current == 1 }
        let t1 = t0 + RenditionSwitch.silentAfterNs + 1
        XCTAssertFalse(rungs.leaveSilentPath(nowNs: t1 + 10 * RenditionSwitch.silentAfterNs), "no rung below the last")
        rungs.pin(to: 0)
        try await waitFor("the pinned move to rung 0") { rungs.current == 0 }
        XCTAssertFalse(rungs.leaveSilentPath(nowNs: t1 + 20 * RenditionSwitch.silentAfterNs), "a pinned viewer stays")
    }

    /// A pinned viewer's move whose keyframe request is lost (a relayed browser publisher
    /// ignores a request that comes within 300 ms of another's): nothing moves until the
    /// request is asked again, which happens only once it has waited `reaskAfterNs`.
    func testALostKeyframeRequestOfAPendingMoveIsAskedAgain() async throws {
        let (pipeline, outputs, keyframes) = try ladder()
        let rungs = try RenditionSwitch(outputs: outputs, start: 0, pinned: true, into: pipeline)
        // The first request for rung 1's keyframe is lost on its way.
        let lost = Atomic<Int>(0)
        outputs[1].tee.staticPad("sink")?.addProbe(.eventUpstream) { (info: borrowing Pad.ProbeInfo) in
            guard info.eventName == "GstForceKeyUnit" else { return .ok }
            return lost.add(1, ordering: .relaxed).oldValue == 0 ? .drop : .ok
        }
        let stop = try play(rungs, in: pipeline)
        defer { stop() }
        try await waitFor("the first rung's frames") { outputs[0].frames > 10 }
        rungs.pin(to: 1)
        XCTAssertEqual(lost.load(ordering: .relaxed), 1, "the move asked once")
        let now = StageTimer.now()
        XCTAssertFalse(rungs.askAgainIfStillPending(nowNs: now), "not asked again at once")
        try await Task.sleep(for: .milliseconds(300))
        XCTAssertEqual(rungs.current, 0, "no keyframe of rung 1 came: still on rung 0")
        XCTAssertEqual(keyframes[1], 1, "rung 1 made only its first keyframe")
        XCTAssertTrue(rungs.askAgainIfStillPending(nowNs: now + RenditionSwitch.reaskAfterNs + 1))
        try await waitFor("the move to rung 1") { rungs.current == 1 }
        XCTAssertEqual(keyframes[1], 2, "the request asked again made the keyframe the move waited for")
        XCTAssertFalse(rungs.askAgainIfStillPending(nowNs: now + 10 * RenditionSwitch.reaskAfterNs), "nothing waits any more")
    }

    /// A ladder whose best rung is a passed-through source that has not sent half a second
    /// yet: 1 Mbit/s stands in for its rate, so a viewer joining now starts with an estimator
    /// ceiling of 1.25 Mbit/s. Once the source is measured sending 2 Mbit/s, the ceiling
    /// follows (a quarter above it); held at 1.25 Mbit/s, the estimate could never reach
    /// the 80% of the source's rate that keeps a viewer on it.
    func testTheEstimatorCeilingFollowsAPassedThroughSourcesMeasuredRate() throws {
        Gst.initialize()
        let pipeline = Pipeline(name: "ladder-ceiling")
        let tees = try [Element.make("tee"), Element.make("tee")]
        try pipeline.add(tees)
        let outputs = [
            RenditionOutput(
                rendition: Rendition(name: "source", width: 854, height: 480, bitrateKbps: 0), index: 0, tee: tees[0],
                encoder: nil, keyframeRequests: nil),
            RenditionOutput(
                rendition: Rendition(name: "360p", width: 640, height: 360, bitrateKbps: 700), index: 1, tee: tees[1],
                encoder: nil, keyframeRequests: nil)
        ]
        let rungs = try RenditionSwitch(outputs: outputs, start: 1, into: pipeline)
        XCTAssertEqual(rungs.estimatorLimits.max, 1_250_000, "1 Mbit/s stands in for the unmeasured source")
        let t0 = StageTimer.now()
        var ceiling = 0
        for k in 0...30 { // 3 s of the source at 2 Mbit/s, read at each 100 ms report
            outputs[0].meter.bytes.add(25_000, ordering: .relaxed)
            ceiling = rungs.estimatorRange(nowNs: t0 + UInt64(k) * 100_000_000).upperBound
        }
        XCTAssertEqual(Double(ceiling), 2_500_000, accuracy: 150_000, "a quarter above the measured 2 Mbit/s")
    }

    /// A relay's simulcast layers (all passed through) before their first half second: 1 Mbit/s
    /// stands in for each, so a viewer joining then starts with an estimator floor of
    /// 500 kbit/s, which kept a viewer behind 250 kbit/s on the 300 kbit/s layer (CI,
    /// `RelaySimulcastEndToEndTests`). Once the layers are measured (about 1 Mbit/s, 300 and
    /// 100 kbit/s), the floor is half the least; a layer that stopped counts for none.
    func testTheEstimatorFloorFollowsTheLeastLayersMeasuredRate() throws {
        Gst.initialize()
        let pipeline = Pipeline(name: "ladder-floor")
        let names = ["h", "m", "l"]
        let tees = try names.map { _ in try Element.make("tee") }
        try pipeline.add(tees)
        let outputs = names.indices.map {
            RenditionOutput(
                rendition: Rendition(name: names[$0], width: 640 >> $0, height: 360 >> $0, bitrateKbps: 0), index: $0, tee: tees[$0],
                encoder: nil, keyframeRequests: nil)
        }
        let rungs = try RenditionSwitch(outputs: outputs, start: 1, into: pipeline)
        XCTAssertEqual(rungs.estimatorLimits.min, 500_000, "1 Mbit/s stands in for each unmeasured layer")
        let now = StageTimer.now()
        XCTAssertEqual(rungs.estimatorRange(nowNs: now).lowerBound, 500_000)
        // Two seconds of each layer, the last frame just now.
        for (output, bps) in zip(outputs, [1_000_000, 300_000, 100_000]) {
            output.meter.firstFrameNs.store(now - 2_000_000_000, ordering: .relaxed)
            output.meter.lastFrameNs.store(now, ordering: .relaxed)
            output.meter.bytes.store(bps * 2 / 8, ordering: .relaxed)
        }
        XCTAssertEqual(Double(rungs.estimatorRange(nowNs: now).lowerBound), 50_000, accuracy: 2_000, "half the least layer's 100 kbit/s")
        XCTAssertEqual(
            rungs.estimatorRange(nowNs: now + 1_000_000_000).lowerBound, RenditionSwitch.estimatorFloor, "every layer stopped")
        outputs[2].meter.lastFrameNs.store(now - 1_000_000_000, ordering: .relaxed)
        XCTAssertEqual(Double(rungs.estimatorRange(nowNs: now).lowerBound), 150_000, accuracy: 5_000, "l stopped: half of m's 300 kbit/s")
    }

    /// A rung's branch stopped: a failure while the pipeline runs; `flushing` once the test
    /// has begun stopping it is the teardown itself (a buffer in flight when the pipeline goes
    /// to NULL; CI once caught one, 2026-11-27).
    private static func rungStopped(_ flow: FlowReturn, stopping: StopFlag) {
        if flow == .flushing, stopping.isSet { return }
        XCTFail("a rung stopped: \(flow)")
    }

}
