import Foundation
import SluiceTestSupport
import XCTest

/// `plugin: audiobridge`: `sluice run` joins a room of Janus's AudioBridge, speaks into the
/// mix and plays the mix of the others.
extension JanusEndToEndTests {
    /// Two runs of Pipelines/janus-audiobridge.yaml in room 1234: each hears the other's
    /// stamped tone through Janus's mixer, and reads its stamps (each alone in the mix it
    /// hears: Janus leaves a participant out of its own).
    func testTwoParticipantsHearEachOtherThroughTheAudioBridge() throws {
        try Janus.requireInstalled()
        let janus = Janus(httpPort: 18092, wsPort: 18192)
        let t = FileManager.default.temporaryDirectory.appendingPathComponent("janus-bridge-\(UUID().uuidString.prefix(6))").path
        defer { for e in ["a.json", "b.json", "a.err", "b.err"] { try? FileManager.default.removeItem(atPath: "\(t).\(e)") } }
        let (lines, raw) = try inRoom(
            janus,
            """
            run() { "$SLUICE" run Pipelines/janus-audiobridge.yaml --duration 10 --set transport.display=$1 --report \(t).$1.json > /dev/null 2> \(t).$1.err; }
            run a & a=$!
            run b & b=$!
            wait $a; echo "A-STATUS: $?"; wait $b; echo "B-STATUS: $?"
            echo "ERR: $(cat \(t).a.err \(t).b.err | tr '\\n' '|' | cut -c1-1500)"
            """)
        for p in ["a", "b"] {
            XCTAssertEqual(lines["\(p.uppercased())-STATUS"], "0", raw)
            let filters = report("\(t).\(p).json")["filters"] as? [[String: Any]] ?? []
            let reader = try XCTUnwrap(filters.first { $0["filter"] as? String == "audiostamp-read" }, "\(p): \(filters) \(raw)")
            let events = reader["events"] as? [String: Int] ?? [:]
            // About 9 s heard with a stamp a second from the other.
            XCTAssertGreaterThanOrEqual(events["audiostamp"] ?? 0, 6, "\(p) read the other's stamps: \(reader)")
            let last = (reader["last_event_fields"] as? [String: Any])?["audiostamp"] as? [String: Any]
            let delay = try XCTUnwrap(last?["delay_ms"] as? Double, "\(reader)")
            XCTAssertGreaterThan(delay, 10, "\(reader)")
            XCTAssertLessThan(delay, 500, "\(reader)")
            print("\(p) heard \(events["audiostamp"] ?? 0) stamps through the AudioBridge, the last \(delay) ms after capture")
        }
    }
}
