import Foundation
import SluiceTestSupport
import XCTest

/// A crowd in one room of Janus's AudioBridge (Debian's janus 1.1), which decodes, mixes and
/// re-encodes: members speak in turns, one stamp each, and measure each other through the mixer.
extension LoadJanusEndToEndTests {
    /// 4 members ramped at 10/s stay 12 s in room 1234, stamps every 400 ms (each member
    /// speaks every fourth). Every member joins, hears the others (and never itself: Janus
    /// leaves each participant out of its own mix), and reads their stamps through the mix:
    /// one speaker at a time reads, where four at once would not.
    func testACrowdSpeaksInTurnsAndHearsEachOtherThroughTheAudioBridge() throws {
        try Janus.requireInstalled()
        let janus = Janus(httpPort: 18093, wsPort: 18193)
        let t = FileManager.default.temporaryDirectory.appendingPathComponent("load-bridge-\(UUID().uuidString.prefix(6))").path
        defer { try? FileManager.default.removeItem(atPath: "\(t).json") }
        let r = try withJanus(
            janus, reportPath: "\(t).json",
            """
            "$SLUICE" load Pipelines/load-janus-audiobridge.yaml --clients 4 --duration 12 --json \(t).json
            status=$?
            """)
        let context = "\(r.stdout.suffix(3000))\n\(r.stderr.suffix(2000))"
        XCTAssertEqual(r.status, 0, context)
        XCTAssertEqual(r.int("overall.succeeded"), 4, context)
        let clients = try rows(r.report, context)
        XCTAssertEqual(clients.count, 4, context)
        var seen: [String] = []
        for c in clients {
            let id = c["id"] as? Int ?? -1
            let audio = try XCTUnwrap(c["audio"] as? [String: Any], "client \(id) heard audio: \(c)")
            let number = { (k: String) in (audio[k] as? NSNumber)?.doubleValue }
            // About 11 s heard, stamps every 400 ms, 3 of every 4 another member's: about 20.
            XCTAssertGreaterThanOrEqual(number("mouth_to_ear_samples") ?? 0, 12, "client \(id) read the others' stamps: \(audio)")
            let delay = try XCTUnwrap(number("mouth_to_ear_p50_ms"), "client \(id): \(audio)")
            XCTAssertGreaterThan(delay, 20, "through a mixer's jitter buffer, decode and encode: \(audio)")
            XCTAssertLessThan(delay, 500, "client \(id): \(audio)")
            XCTAssertLessThan(number("time_to_first_audio_ms") ?? .infinity, 5000, "client \(id): \(audio)")
            seen.append(String(format: "%d: %.0f stamps, p50 %.1f ms", id, number("mouth_to_ear_samples") ?? 0, delay))
        }
        print("AudioBridge members: \(seen.joined(separator: "; "))")
        XCTAssertTrue(r.stdout.contains("mouth-to-ear"), r.stdout)
    }
}
