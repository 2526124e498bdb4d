import Dispatch
import Foundation
import GStreamer
import Synchronization
import XCTest
@testable import SluiceRun

/// A start gate readied while the connection comes up keeps the keyframe asked for then and
/// the frames after it, and sends them, in order and once each, when it opens from another
/// thread while the stream keeps flowing; a hold older than `StartHold.maxAge` is not sent.
final class StartGateTests: XCTestCase {
    private struct Frame: Sendable {
        var keyframe: Bool
        var pts: ClockTime
    }

    /// What a run saw: the frames that reached the sink, in order, and how the gate opened.
    private struct Outcome {
        var frames: [Frame]
        var opening: StartGate.Opening?
        var dropped: Int
    }

    func testAReadiedGateStartsFromTheKeyframeItHeldWithNothingLostAfterIt() throws {
        for pastQueue in [false, true] {
            let outcome = try run("held-\(pastQueue)", pastQueue: pastQueue, readyAt: 8, openAt: 12)
            let frames = outcome.frames
            XCTAssertEqual(outcome.opening, .fromHeldKeyframe, "past a queue \(pastQueue)")
            XCTAssertEqual(frames.first?.keyframe, true, "past a queue \(pastQueue): the peer starts at the held keyframe")
            let pts = frames.map(\.pts)
            XCTAssertEqual(pts, pts.sorted(), "past a queue \(pastQueue): held frames first, then the live ones, in order")
            XCTAssertEqual(Set(pts).count, pts.count, "past a queue \(pastQueue): no frame twice")
            // Every frame from the requested keyframe on arrives: 60 frames in all, minus those
            // before it (at least the 8 before the gate was readied), and nothing in between.
            XCTAssertEqual(frames.count + outcome.dropped, 60, "past a queue \(pastQueue): a frame was lost after the keyframe")
            XCTAssertGreaterThanOrEqual(outcome.dropped, 8)
            XCTAssertLessThan(outcome.dropped, 12, "past a queue \(pastQueue): the keyframe was made before the gate opened")
        }
    }

    func testAHoldOlderThanItsAgeLimitIsNotSentAndTheGateAsksAgain() throws {
        // Readied at the 3rd frame, opened at the 20th: over half a second later at 30 fps.
        let outcome = try run("stale", pastQueue: false, readyAt: 3, openAt: 20)
        XCTAssertEqual(outcome.opening, .needsKeyframe)
        XCTAssertEqual(outcome.frames.first?.keyframe, true, "the peer still starts at a keyframe: the one asked for at opening")
        let firstPTS = try XCTUnwrap(outcome.frames.first?.pts)
        XCTAssertGreaterThanOrEqual(firstPTS, 19 * 1_000_000_000 / 30, "no frame from before the gate opened was sent")
    }

    /// 60 live frames at 30 fps (x264, a keyframe every 300: only asked-for keyframes come)
    /// through a gate on the sink's pad, or on a queue before it with the replay going past
    /// the queue. The gate is readied (and a keyframe asked for) when the `readyAt`th frame
    /// reaches it, and opened from another thread when the `openAt`th does.
    private func run(_ name: String, pastQueue: Bool, readyAt: Int, openAt: Int) throws -> Outcome {
        let (pipeline, queue, sink) = try EncodedTestChain.make(name, frames: 60, live: true, keyframeEvery: 300)
        let target = try XCTUnwrap(sink.staticPad("sink"))
        let gatePad = pastQueue ? try XCTUnwrap(queue.staticPad("sink")) : target
        let gateBox = Mutex<StartGate?>(nil)
        let opening = Mutex<StartGate.Opening?>(nil)
        let opened = expectation(description: "the gate opened")
        let arrived = Atomic<Int>(0)
        // Added before the gate's own probe: it sees every frame.
        gatePad.addProbe(.buffer) { (info: borrowing Pad.ProbeInfo) in
            let n = arrived.add(1, ordering: .relaxed).newValue
            guard let gate = gateBox.withLock({ $0 }) else { return .ok }
            let pad = info.padReference
            if n == readyAt, gate.ready() { pad.pushEvent(.forceKeyUnit(origin: KeyframeRequestLimiter.ownOrigin)) }
            if n == openAt {
                DispatchQueue.global().async {
                    let how = gate.open(at: pad)
                    if how == .needsKeyframe { pad.pushEvent(.forceKeyUnit(origin: KeyframeRequestLimiter.ownOrigin)) }
                    opening.withLock { $0 = how }
                    opened.fulfill()
                }
            }
            return .ok
        }
        let gate = StartGate(on: gatePad, waitForKeyframe: true, replayInto: pastQueue ? target : nil)
        gateBox.withLock { $0 = gate }
        let frames = Mutex<[Frame]>([])
        target.addProbe(.buffer) { (info: borrowing Pad.ProbeInfo) in
            if let b = info.buffer { frames.withLock { $0.append(Frame(keyframe: !b.isDeltaUnit, pts: b.pts ?? 0)) } }
            return .ok
        }
        let ended = expectation(description: "end of stream at the sink")
        let once = OnceFlag()
        target.addProbe(.eventDownstream) { info in
            if info.event == .eos, once.set() { ended.fulfill() }
            return .ok
        }
        pipeline.setState(.playing)
        wait(for: [opened, ended], timeout: 20)
        pipeline.setState(.null)
        return Outcome(frames: frames.withLock { $0 }, opening: opening.withLock { $0 }, dropped: gate.droppedBuffers)
    }
}
