import Foundation
import SluiceTestSupport
import XCTest

/// aiortc as an echo peer (aiortc's MediaRelay, `aiortc_peer.py room-echo`): what Sluice sends
/// comes back through aiortc's decoders and encoders, and `sluice measure --round-trip` measures
/// that round trip for picture and sound.
extension InteropAiortcTests {
    func testMeasureTheRoundTripThroughAnAiortcEcho() throws {
        let json = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-echo-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: json) }
        let script = """
            ip link set lo up
            "$SLUICE" serve --port 18610 >/dev/null 2>&1 &
            server=$!
            i=0; until curl -s -m 1 -o /dev/null http://127.0.0.1:18610/status.json; do i=$((i+1)); [ $i -lt 300 ] || exit 90; sleep 0.05; done
            SLUICE_ROOM_SERVER=http://127.0.0.1:18610 SLUICE_ROOM=echo "$SLUICE" measure Pipelines/room-echo.yaml --round-trip \\
              --duration 10 --warmup 2 --quiet --json '\(json)' \\
              --set 'send.audio.filters=[{filter: audiostamp, interval_ms: 400}]' </dev/null &
            run=$!
            i=0; until curl -s -m 1 http://127.0.0.1:18610/status.json | grep -q '"clients":1'; do i=$((i+1)); [ $i -lt 300 ] || exit 91; sleep 0.05; done
            "$PYTHON" \(Self.peer) room-echo http://127.0.0.1:18610 --room echo --seconds 40 > /dev/null &
            peer=$!
            wait $run; status=$?
            wait $peer; peerStatus=$?
            kill -INT $server; wait $server
            echo "PEER-STATUS: $peerStatus"
            exit $status
            """
        let r = try CLI.execute(
            inNamespace: script, env: ["SLUICE": CLI.binary.path, "PYTHON": Repository.python], timeout: 120, reportPath: json)
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr.suffix(4000))
        XCTAssertEqual(r.keyedLines["PEER-STATUS"], "0", "the echo peer left cleanly on the bye: \(r.stderr.suffix(2000))")
        let video = try XCTUnwrap(r.double("latency.p50_ms"), r.stdout)
        let audio = try XCTUnwrap(r.double("audio.mouth_to_ear.p50_ms"), "\(r.value("audio") ?? r.stdout)")
        print("through aiortc's MediaRelay and back: video p50 \(video) ms, audio p50 \(audio) ms, A/V \(r.double("audio.av_offset.p50_ms") ?? .nan) ms")
        XCTAssertGreaterThan(r.double("frames.received") ?? 0, 100, "the picture came back, re-encoded by aiortc")
        XCTAssertEqual(r.double("width"), 640)
        XCTAssertGreaterThan(video, 0)
        XCTAssertLessThan(video, 500)
        XCTAssertGreaterThanOrEqual(r.double("audio.stamps_read") ?? 0, 12, "the sound's stamps survived aiortc's Opus decode and encode")
        XCTAssertGreaterThan(audio, 0)
        XCTAssertLessThan(audio, 500)
    }
}
