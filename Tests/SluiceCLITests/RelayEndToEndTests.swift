import Foundation
import XCTest

/// WHIP publish → WHEP play: one `sluice run` publishes to `sluice serve --relay`, another
/// plays the same stream; the server forwards it without decoding. Three processes, one
/// loopback-only namespace.
final class RelayEndToEndTests: XCTestCase {
    func testPublishedStreamIsPlayedThroughTheRelay() throws {
        let report = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-relay-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: report) }
        let script = """
            ip link set lo up
            "$SLUICE" serve --port 18480 --relay >/dev/null 2>&1 &
            server=$!
            i=0; until curl -s -m 1 -o /dev/null http://127.0.0.1:18480/status.json; do i=$((i+1)); [ $i -lt 200 ] || exit 90; sleep 0.05; done
            echo "BEFORE: $(curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Content-Type: application/sdp' --data-binary @/dev/null http://127.0.0.1:18480/whep/live)"
            SLUICE_WHIP=http://127.0.0.1:18480/whip/live "$SLUICE" run Pipelines/whip-publish.yaml --duration 30 --quiet >/dev/null 2>&1 &
            publisher=$!
            # Bounded wait until the publisher's media flows through the relay.
            i=0; until curl -s -m 1 http://127.0.0.1:18480/streams.json | grep -q '"live":true'; do i=$((i+1)); [ $i -lt 300 ] || exit 91; sleep 0.05; done
            SLUICE_WHIP=http://127.0.0.1:18480/whip/live "$SLUICE" run Pipelines/whip-publish.yaml --duration 2 --quiet >/dev/null 2>"$TMPDIR_SECOND"
            echo "SECOND: $?"
            SLUICE_WHEP=http://127.0.0.1:18480/whep/live "$SLUICE" run Pipelines/whep-play.yaml --duration 4 --quiet --report '\(report)'
            status=$?
            kill -INT $publisher; wait $publisher
            echo "AFTER: $(curl -s -m 5 http://127.0.0.1:18480/whip.json)"
            kill -INT $server; wait $server
            exit $status
            """
        let second = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-relay-second-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: second) }
        let r = try CLI.execute(
            inNamespace: script,
            env: ["SLUICE": CLI.binary.path, "TMPDIR_SECOND": second], timeout: 90, reportPath: report)
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.contains("BEFORE: 400") || r.stdout.contains("BEFORE: 404"), "nothing to play before a publisher: \(r.stdout)")
        XCTAssertTrue(r.stdout.contains("SECOND: 3"), "a second publisher on the same name is refused: \(r.stdout)")
        let secondError = (try? String(contentsOfFile: second, encoding: .utf8)) ?? ""
        XCTAssertTrue(secondError.contains("409") && secondError.contains("already has a publisher"), secondError)
        XCTAssertGreaterThan(r.int("receive.video.frames") ?? 0, 60, "the relayed stream plays: \(r.stdout)")
        XCTAssertEqual(r.int("receive.video.width"), 1280)
        XCTAssertEqual(r.value("receive.video.codec") as? String, "vp8")
        XCTAssertGreaterThan(r.int("receive.audio.buffers") ?? 0, 50, "audio is relayed too")
        let after = try XCTUnwrap(r.stdout.components(separatedBy: "AFTER: ").last)
        XCTAssertTrue(after.contains(#""relays":[]"#), "the relay ends with its publisher: \(after)")
        XCTAssertTrue(after.contains(#""live":{"audio_buffers":0,"sessions":1"#), after)
    }
}
