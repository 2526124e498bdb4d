import Foundation
import SluiceTestSupport
import XCTest

/// Headless Chromium as an echo peer (Tests/Browser/browser_echo.py): every track Sluice sends
/// comes back through Chromium's own jitter buffers, decoders and encoders (NetEq for the
/// sound), so `sluice measure --round-trip` measures the round trip through a browser.
extension BrowserEndToEndTests {
    func testMeasureTheRoundTripThroughChromium() throws {
        try CLI.requireBrowserTools()
        let t = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-chromium-echo-\(UUID().uuidString.prefix(6))").path
        defer { for e in ["json", "peer"] { try? FileManager.default.removeItem(atPath: "\(t).\(e)") } }
        let script = """
            ip link set lo up
            "$SLUICE" serve --port 18621 >/dev/null 2>&1 &
            server=$!
            i=0; until curl -s -m 1 -o /dev/null http://127.0.0.1:18621/status.json; do i=$((i+1)); [ $i -lt 300 ] || exit 90; sleep 0.05; done
            SLUICE_ROOM_SERVER=http://127.0.0.1:18621 SLUICE_ROOM=browser "$SLUICE" measure Pipelines/room-echo.yaml --round-trip \\
              --duration 10 --warmup 3 --quiet --json '\(t).json' \\
              --set 'send.audio.filters=[{filter: audiostamp, interval_ms: 400}]' </dev/null &
            run=$!
            i=0; until curl -s -m 1 http://127.0.0.1:18621/status.json | grep -q '"clients":1'; do i=$((i+1)); [ $i -lt 300 ] || exit 91; sleep 0.05; done
            "$PYTHON" \(Repository.path("Tests/Browser/browser_echo.py")) http://127.0.0.1:18621 --room browser --seconds 40 > '\(t).peer' &
            peer=$!
            wait $run; status=$?
            wait $peer; echo "PEER-STATUS: $?"
            echo "PEER: $(cat '\(t).peer')"
            kill -INT $server; wait $server
            exit $status
            """
        let r = try CLI.execute(
            inNamespace: script, env: ["SLUICE": CLI.binary.path, "PYTHON": Repository.python], timeout: 150, reportPath: "\(t).json")
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr.suffix(4000))
        XCTAssertEqual(r.keyedLines["PEER-STATUS"], "0", "Chromium answered, echoed and left on the bye: \(r.stderr.suffix(3000))")
        let peer = (r.keyedLines["PEER"].flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) } as? [String: Any]) ?? [:]
        let heard = peer["in_audio"] as? [String: Any] ?? [:]
        let video = try XCTUnwrap(r.double("latency.p50_ms"), r.stdout)
        let audio = try XCTUnwrap(r.double("audio.mouth_to_ear.p50_ms"), "\(r.value("audio") ?? r.stdout)")
        print(
            "through Chromium and back: video p50 \(video) ms, audio p50 \(audio) ms, A/V \(r.double("audio.av_offset.p50_ms") ?? .nan) ms; "
                + "Chromium's jitter buffer \(heard["jitter_buffer_delay_ms"] ?? "?") ms, concealed \(heard["concealed_samples"] ?? "?") of \(heard["total_samples"] ?? "?") samples"
        )
        XCTAssertGreaterThan(r.double("frames.received") ?? 0, 100, "the picture came back, re-encoded by Chromium")
        XCTAssertGreaterThan(video, 0)
        XCTAssertLessThan(video, 500)
        XCTAssertGreaterThanOrEqual(r.double("audio.stamps_read") ?? 0, 8, "the sound's stamps survived NetEq, Chromium's decode and encode")
        XCTAssertGreaterThan(audio, 0)
        XCTAssertLessThan(audio, 500)
        XCTAssertGreaterThan((heard["packets"] as? NSNumber)?.intValue ?? 0, 300, "Chromium's own figures: it received the sound \(peer)")
    }
}
