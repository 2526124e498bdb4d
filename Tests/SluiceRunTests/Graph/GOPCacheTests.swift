import Foundation
import GStreamer
import Synchronization
import XCTest
@testable import SluiceRun

/// A passthrough stream's last group of pictures: a start gate opened in the middle of a
/// group sends the group's keyframe and the frames since, in order, before the frame it was
/// holding, so the peer starts at once instead of at the next keyframe.
final class GOPCacheTests: XCTestCase {
    /// One frame that passed the gate.
    private struct Frame: Sendable {
        var keyframe: Bool
        var pts: ClockTime
    }
    /// What passed the gate, in order.
    private final class Passed: Sendable {
        let frames = Mutex<[Frame]>([])
    }

    func testAGateOpenedMidGroupStartsFromTheCachedKeyframe() throws {
        let (pipeline, queue, sink) = try EncodedTestChain.make("gop-cache", frames: 50)

        let cache = GOPCache(watching: try XCTUnwrap(queue.staticPad("sink")))
        let gatePad = try XCTUnwrap(sink.staticPad("sink"))
        let (gate, frames) = run(pipeline, gateOn: gatePad) { StartGate(on: gatePad, waitForKeyframe: true, cache: cache) }

        XCTAssertEqual(frames.first?.keyframe, true, "the peer's first frame is the cached keyframe")
        XCTAssertEqual(gate.droppedBuffers, 11, "the 11 frames before the 12th met a closed gate")
        XCTAssertEqual(cache.replayedFrames, 11, "and reached the peer from the cache")
        XCTAssertEqual(frames.count, 50, "every frame reached the peer, once")
        XCTAssertEqual(frames.filter(\.keyframe).count, 2, "the cached keyframe and the second group's")
        let pts = frames.map(\.pts)
        XCTAssertEqual(pts, pts.sorted(), "the cached frames come before the frame the gate held, in order")
        XCTAssertEqual(Set(pts).count, pts.count, "no frame twice")
    }

    /// A group replayed into a pad past a queue whose thread has not yet forwarded the
    /// stream's sticky events (a viewer's payloader behind its leaky queue): the target gets
    /// stream-start, caps and segment first, from the gate's pad, then the cached frames;
    /// never data before stream-start ("Got data flow before stream-start event").
    func testAGroupReplayedPastAQueueGetsTheStickyEventsFirst() throws {
        let (pipeline, queue, sink) = try EncodedTestChain.make("gop-cache-past-queue", frames: 40)
        let gatePad = try XCTUnwrap(queue.staticPad("sink")), target = try XCTUnwrap(sink.staticPad("sink"))
        let cache = GOPCache(watching: gatePad)
        let arrived = Atomic<Int>(0)
        let gateBox = Mutex<StartGate?>(nil)
        gatePad.addProbe(.buffer) { _ in
            if arrived.add(1, ordering: .relaxed).newValue == 12 { gateBox.withLock { $0 }?.open() }
            return .ok
        }
        let gate = StartGate(on: gatePad, waitForKeyframe: true, cache: cache, replayInto: target)
        gateBox.withLock { $0 = gate }
        // The queue's thread does not pass the stream's first events on before the replay has
        // reached the sink: the sink has none when the replay starts. (Blocking the queue's
        // thread instead would also hold the encoder's allocation query.)
        let replayed = Atomic<Bool>(false)
        try XCTUnwrap(queue.staticPad("src")).addProbe(.eventDownstream) { (info: borrowing Pad.ProbeInfo) in
            if replayed.load(ordering: .acquiring) { return .remove }
            return info.event == .eos ? .ok : .drop
        }
        let seen = Mutex<[String]>([])
        let ended = expectation(description: "end of stream at the sink")
        let once = OnceFlag()
        target.addProbe([.buffer, .eventDownstream]) { (info: borrowing Pad.ProbeInfo) in
            if info.buffer != nil {
                seen.withLock { $0.append("buffer") }
                replayed.store(true, ordering: .releasing)
            } else if let name = info.eventTypeName {
                seen.withLock { $0.append(name) }
                if info.event == .eos, once.set() { ended.fulfill() }
            }
            return .ok
        }
        pipeline.setState(.playing)
        wait(for: [ended], timeout: 20)
        pipeline.setState(.null)
        let order = seen.withLock { $0 }
        let firstBuffer = try XCTUnwrap(order.firstIndex(of: "buffer"))
        XCTAssertEqual(Array(order[..<firstBuffer].prefix(3)), ["stream-start", "caps", "segment"], "\(order.prefix(8))")
        XCTAssertEqual(cache.replayedFrames, 11, "the group reached the sink from the cache")
        XCTAssertEqual(order.filter { $0 == "buffer" }.count, 40, "every frame once")
    }

    /// A gate with a cache asks for a keyframe only when the cache cannot start the peer: one
    /// whose cache holds the group starts from it and asks nobody; one whose cache holds no
    /// group (it outgrew the limits, or the cache has seen no keyframe) asks upstream once
    /// (Sluice's own request) and starts at the keyframe that request makes, long before the
    /// encoder's next regular one.
    func testAGateAsksForAKeyframeOnlyWhenItsCacheCannotStartThePeer() throws {
        for cached in [true, false] {
            // Live, 30 fps, a keyframe every 90 frames: the gate opens at the 12th frame.
            let (pipeline, queue, sink) = try EncodedTestChain.make("gop-ask-\(cached)", frames: 60, live: true, keyframeEvery: 90)
            // Without the group: a cache on a pad the stream never crosses.
            let elsewhere = try Element.make("fakesink")
            let cache = GOPCache(watching: try XCTUnwrap(cached ? queue.staticPad("sink") : elsewhere.staticPad("sink")))
            let gatePad = try XCTUnwrap(sink.staticPad("sink"))
            let requests = Mutex<[String?]>([])
            try XCTUnwrap(queue.staticPad("sink")).addProbe(.eventUpstream) { (info: borrowing Pad.ProbeInfo) in
                if info.eventName == "GstForceKeyUnit" {
                    let origin = info.eventStructure?.get(Event.originField, as: String.self)
                    requests.withLock { $0.append(origin) }
                }
                return .ok
            }
            let frames = run(pipeline, gateOn: gatePad) {
                StartGate(on: gatePad, waitForKeyframe: true, cache: cache, askForKeyframe: true)
            }.frames
            let asked = requests.withLock { $0 }
            XCTAssertEqual(frames.first?.keyframe, true, "cached \(cached): the peer starts at a keyframe")
            if cached {
                XCTAssertEqual(cache.replayedFrames, 11, "the cached group started the peer")
                XCTAssertEqual(asked, [], "and no keyframe was asked for")
                XCTAssertEqual(frames.count, 60, "every frame reached the peer")
            } else {
                XCTAssertEqual(cache.replayedFrames, 0, "nothing to replay")
                XCTAssertEqual(asked, [KeyframeRequestLimiter.ownOrigin], "the gate asked once, as Sluice")
                // The requested keyframe comes within a few frames of the 12th; the regular
                // one would be the 91st, after the stream's end.
                XCTAssertGreaterThan(frames.count, 40, "the requested keyframe started the peer (\(frames.count) frames)")
            }
        }
    }

    /// Plays `pipeline` to its end with the gate `makeGate` puts on `gatePad`, opening it as
    /// the 12th frame reaches the pad; returns the gate and the frames that passed it, in order.
    private func run(
        _ pipeline: Pipeline, gateOn gatePad: Pad, _ makeGate: () -> StartGate
    ) -> (gate: StartGate, frames: [Frame]) {
        // Added before the gate's own probe, so it runs first: the gate opens for this frame.
        let arrived = Atomic<Int>(0)
        let gateBox = Mutex<StartGate?>(nil)
        gatePad.addProbe(.buffer) { _ in
            if arrived.add(1, ordering: .relaxed).newValue == 12 { gateBox.withLock { $0 }?.open() }
            return .ok
        }
        let gate = makeGate()
        gateBox.withLock { $0 = gate }
        let passed = Passed()
        gatePad.addProbe(.buffer) { (info: borrowing Pad.ProbeInfo) in
            if let b = info.buffer { passed.frames.withLock { $0.append(Frame(keyframe: !b.isDeltaUnit, pts: b.pts ?? 0)) } }
            return .ok
        }
        let ended = expectation(description: "end of stream at the sink")
        let once = OnceFlag()
        gatePad.addProbe(.eventDownstream) { info in
            if info.event == .eos, once.set() { ended.fulfill() }
            return .ok
        }
        pipeline.setState(.playing)
        wait(for: [ended], timeout: 20)
        pipeline.setState(.null)
        return (gate, passed.frames.withLock { $0 })
    }
}
