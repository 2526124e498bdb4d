import Foundation
import SluiceTestSupport
import XCTest

/// `plugin: echotest`: Janus's EchoTest (Debian's janus ships it) sends Sluice's picture and
/// tone back on the same PeerConnection, so `sluice measure` gets the round trip through Janus.
extension JanusEndToEndTests {
    func testMeasureTheRoundTripOfPictureAndSoundThroughJanusEchoTest() throws {
        try Janus.requireInstalled()
        let janus = Janus(httpPort: 18099, wsPort: 18199)
        let t = FileManager.default.temporaryDirectory.appendingPathComponent("janus-echo-\(UUID().uuidString.prefix(6))").path
        defer { for e in ["json", "out", "err"] { try? FileManager.default.removeItem(atPath: "\(t).\(e)") } }
        let (lines, raw) = try inRoom(
            janus,
            """
            "$SLUICE" measure Pipelines/janus-echo.yaml --duration 8 --warmup 1 --json \(t).json > \(t).out 2> \(t).err
            echo "STATUS: $?"; echo "OUT: $(tr '\\n' '|' < \(t).out)"; echo "ERR: $(tr '\\n' '|' < \(t).err)"
            """)
        XCTAssertEqual(lines["STATUS"], "0", raw)
        let o = report("\(t).json")
        func number(_ path: String) -> Double? {
            var cur: Any? = o
            for k in path.split(separator: ".") { cur = (cur as? [String: Any])?[String(k)] }
            return (cur as? NSNumber)?.doubleValue
        }
        print(
            "through Janus's EchoTest: video p50 \(number("latency.p50_ms") ?? -1) ms, audio p50 \(number("audio.mouth_to_ear.p50_ms") ?? -1) ms, A/V \(number("audio.av_offset.p50_ms") ?? -1) ms"
        )
        XCTAssertGreaterThan(number("frames.received") ?? 0, 150, "the picture came back: \(raw)")
        XCTAssertEqual(number("width"), 640, "at the size sent")
        let video = try XCTUnwrap(number("latency.p50_ms"), raw)
        XCTAssertGreaterThan(video, 0)
        XCTAssertLessThan(video, 200)
        XCTAssertGreaterThanOrEqual(number("audio.stamps_read") ?? 0, 5, "the tone's stamps came back: \(o["audio"] ?? raw)")
        let audio = try XCTUnwrap(number("audio.mouth_to_ear.p50_ms"), raw)
        XCTAssertGreaterThan(audio, 0)
        XCTAssertLessThan(audio, 200)
        XCTAssertGreaterThanOrEqual(number("audio.av_offset.samples") ?? 0, 5, "each stamp found its video frame")
        XCTAssertTrue(lines["OUT"]?.contains("mouth-to-ear") ?? false, raw)
    }
}
