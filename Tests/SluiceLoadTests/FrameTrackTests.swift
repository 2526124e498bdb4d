import Foundation
import XCTest
@testable import SluiceLoad
@testable import SluiceMeasure
@testable import SluiceRun

/// A load client's frame record: counts, per-second counts, the steady rate and WebRTC's
/// freeze definition.
final class FrameTrackTests: XCTestCase {
    /// Frames at `fps` from `from` for `seconds`, then one more after `gap` seconds, then the
    /// stream again for `seconds`.
    private func streamWithGap(fps: Double, seconds: Double, gap: Double) -> FrameTrack {
        var track = FrameTrack()
        var rng = LoadRandom(state: 1)
        LoadFixtures.stream(&track, from: 0, to: seconds, fps: fps, rng: &rng)
        LoadFixtures.stream(&track, from: track.lastAt! + gap, to: track.lastAt! + gap + seconds, fps: fps, rng: &rng)
        return track
    }

    func testCountsBytesAndPerSecond() {
        var track = FrameTrack()
        XCTAssertNil(track.firstAt)
        XCTAssertEqual(track.framesPerSecond(from: 0, to: 5), 0, "no frame: no rate")
        var rng = LoadRandom(state: 1)
        LoadFixtures.stream(&track, from: 0.25, to: 10.25, rng: &rng)
        XCTAssertEqual(track.count, 300)
        XCTAssertEqual(track.keyframes, 10)
        XCTAssertEqual(track.bytes, 10 * 6000 + 290 * 1200)
        XCTAssertEqual(track.firstAt, 0.25)
        XCTAssertEqual(track.lastAt!, 0.25 + 299.0 / 30, accuracy: 1e-9)
        XCTAssertEqual(track.perSecond.count, 11)
        XCTAssertEqual(track.perSecond.reduce(0, +), 300)
        XCTAssertEqual(Array(track.perSecond[1...9]), Array(repeating: 30, count: 9))
        XCTAssertEqual(track.perSecond[0] + track.perSecond[10], 30, "the edges share one second's frames")
        XCTAssertEqual(track.bytesPerSecond.reduce(0, +), track.bytes)
        XCTAssertEqual(track.freezeStartsPerSecond, Array(repeating: 0, count: 11))
        XCTAssertEqual(track.freezes, 0)
    }

    func testFramesPerSecondOverAWindow() {
        var track = FrameTrack()
        var rng = LoadRandom(state: 1)
        LoadFixtures.stream(&track, from: 0, to: 10, fps: 30, rng: &rng)
        LoadFixtures.stream(&track, from: 10, to: 20, fps: 15, rng: &rng)
        XCTAssertEqual(track.framesPerSecond(from: 1, to: 9), 30, accuracy: 1e-9)
        XCTAssertEqual(track.framesPerSecond(from: 2.5, to: 7.5), 30, accuracy: 1e-9, "partial seconds count by their share")
        XCTAssertEqual(track.framesPerSecond(from: 11, to: 19), 15, accuracy: 1e-9)
        XCTAssertEqual(track.framesPerSecond(from: 5, to: 15), 22.5, accuracy: 1e-9, "half at 30, half at 15")
        XCTAssertEqual(track.framesPerSecond(from: 20, to: 30), 0, "after the last frame")
        XCTAssertEqual(track.framesPerSecond(from: 15, to: 25), 7.5, accuracy: 1e-9, "five seconds at 15 fps over ten")
        XCTAssertEqual(track.framesPerSecond(from: 4, to: 4), 0, "an empty window")
    }

    func testA400msGapIsOneFreeze() {
        let track = streamWithGap(fps: 30, seconds: 5, gap: 0.4)
        XCTAssertEqual(track.freezes, 1)
        XCTAssertEqual(track.freezeSeconds, 0.4, accuracy: 1e-9, "the freeze lasts the whole interval")
        XCTAssertEqual(track.longestFreezeSeconds, 0.4, accuracy: 1e-9)
        let before = Int((149.0 / 30).rounded(.down))
        XCTAssertEqual(track.freezeStartsPerSecond[before], 1, "counted in the second of the frame before the gap")
        XCTAssertEqual(track.freezeStartsPerSecond.reduce(0, +), 1)
        XCTAssertEqual(track.count, 300)
    }

    /// Two freezes: the longest is the one reported, the total their sum.
    func testTheLongestOfTwoFreezesIsKept() {
        var track = FrameTrack()
        var rng = LoadRandom(state: 7)
        LoadFixtures.stream(&track, from: 0, to: 5, fps: 30, jitter: 0, rng: &rng)
        LoadFixtures.stream(&track, from: 5.5, to: 10, fps: 30, jitter: 0, rng: &rng)
        LoadFixtures.stream(&track, from: 10.3, to: 15, fps: 30, jitter: 0, rng: &rng)
        XCTAssertEqual(track.freezes, 2)
        XCTAssertEqual(track.longestFreezeSeconds, 0.5 + 1.0 / 30, accuracy: 0.02)
        XCTAssertEqual(track.freezeSeconds, 0.8 + 2.0 / 30, accuracy: 0.04)
    }

    func testJitterOf10msIsNoFreeze() {
        var track = FrameTrack()
        var rng = LoadRandom(state: 99)
        LoadFixtures.stream(&track, from: 0, to: 60, fps: 30, jitter: 0.010, rng: &rng)
        XCTAssertEqual(track.count, 1800)
        XCTAssertEqual(track.freezes, 0)
        XCTAssertEqual(track.freezeSeconds, 0)
        XCTAssertEqual(track.longestFreezeSeconds, 0)
    }

    func testThresholdIsThreeTimesTheMeanOrTheMeanPlus150ms() {
        // 30 fps: mean ≈ 38 ms with the gap in the window, so mean + 150 ms (≈ 188 ms) decides.
        XCTAssertEqual(streamWithGap(fps: 30, seconds: 3, gap: 0.180).freezes, 0)
        XCTAssertEqual(streamWithGap(fps: 30, seconds: 3, gap: 0.200).freezes, 1)
        // 5 fps: mean ≈ 210 ms, so three times the mean (≈ 630 ms) decides, not mean + 150 ms.
        XCTAssertEqual(streamWithGap(fps: 5, seconds: 10, gap: 0.5).freezes, 0)
        XCTAssertEqual(streamWithGap(fps: 5, seconds: 10, gap: 0.7).freezes, 1)
    }

    func testFreezesNeedFiveIntervals() {
        var track = FrameTrack()
        for t in [0.0, 0.033, 1.0, 1.033, 1.066, 1.1, 1.133, 1.166] { track.record(at: t, keyframe: false, bytes: 1) }
        XCTAssertEqual(track.freezes, 0, "the gap came before five intervals were known (libwebrtc's minimum)")
        track.record(at: 3.0, keyframe: false, bytes: 1)
        XCTAssertEqual(track.freezes, 1, "with eight intervals in the window, a 1.8 s gap is a freeze")
    }

    func testCodableRoundTrip() throws {
        let track = streamWithGap(fps: 30, seconds: 2, gap: 0.5)
        let data = try JSONEncoder().encode(track)
        var back = try JSONDecoder().decode(FrameTrack.self, from: data)
        XCTAssertEqual(back, track)
        var original = track
        original.record(at: 10, keyframe: true, bytes: 5)
        back.record(at: 10, keyframe: true, bytes: 5)
        XCTAssertEqual(back, original, "the freeze window survives the round trip")
        XCTAssertEqual(back.freezes, 2)
    }
}
