import Foundation
import SluiceTestSupport
import XCTest

/// aiortc as an echo peer (aiortc's MediaRelay, `aiortc_peer.py room-echo`): what Sluice sends
/// comes back through aiortc's decoders and encoders, and `sluice measure --round-trip` measures
/// that round trip for picture and sound.
extension InteropAiortcTests {
    func testMeasureTheRoundTripThroughAnAiortcEcho() throws {
        let trip = try CLI.roundTrip(through: "aiortc", port: 18610, warmup: 2, timeout: 120)
        let r = trip.result
        XCTAssertEqual(r.status, 0, "the echo peer answered and left cleanly on the bye: " + r.stdout + r.stderr.suffix(4000))
        let video = try XCTUnwrap(r.double("latency.p50_ms"), r.stdout)
        let audio = try XCTUnwrap(r.double("audio.mouth_to_ear.p50_ms"), "\(r.value("audio") ?? r.stdout)")
        print("through aiortc's MediaRelay and back: video p50 \(video) ms, audio p50 \(audio) ms, A/V \(r.double("audio.av_offset.p50_ms") ?? .nan) ms")
        XCTAssertGreaterThan(r.double("frames.received") ?? 0, 100, "the picture came back, re-encoded by aiortc")
        XCTAssertEqual(r.double("width"), 640)
        XCTAssertGreaterThan(video, 0)
        XCTAssertLessThan(video, 500)
        XCTAssertGreaterThanOrEqual(
            r.double("audio.stamps_read") ?? 0, 12, "the sound's stamps survived aiortc's Opus decode and encode: \(r.value("audio") ?? r.stdout)")
        XCTAssertGreaterThan(audio, 0)
        XCTAssertLessThan(audio, 500)
    }
}
