import Foundation
import SluiceTestSupport
import XCTest

/// A camera whose H.264 is High profile, passed through by `sluice serve`
/// (`Pipelines/rtsp-camera.yaml`): a viewer is answered on a payload type whose decoder takes
/// High, and a viewer that offers none is refused with the profiles named, instead of being
/// sent a stream it was never offered.
final class H264ProfileEndToEndTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-h264-profile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    /// aiortc offers H.264 Baseline and Constrained Baseline only: refused with a 4xx that
    /// names the stream's High profile and what was offered. Chromium offers High: it plays
    /// the camera's red picture, passed through.
    func testAHighProfileCameraIsRefusedToABaselineViewerAndPlaysInChromium() throws {
        try CLI.requireBrowserTools()
        let port = 18678
        let script = """
            ip link set lo up
            \(RTSPCaptureEndToEndTests.startServer(port: 18677, "--pattern red --size 640x360 --gop 30 --profile high"))
            RTSP_URL=rtsp://127.0.0.1:18677/cam "$SLUICE" serve --port \(port) --pipeline Pipelines/rtsp-camera.yaml > "$TMP.serve" 2>&1 &
            server=$!
            i=0; until curl -s -m 1 -o /dev/null http://127.0.0.1:\(port)/status.json; do
              i=$((i+1)); [ $i -lt 300 ] || { echo "sluice serve did not answer" >&2; exit 90; }
              kill -0 $server 2>/dev/null || { echo "sluice serve exited: $(tail -c 2000 "$TMP.serve")" >&2; exit 91; }
              sleep 0.05
            done
            # The camera's frames (and so its caps, with the profile) have reached the stream.
            i=0; until curl -s http://127.0.0.1:\(port)/metrics | grep -qE '^sluice_stream_encoded_video_frames_total[{][^}]*[}] [1-9]'; do
              i=$((i+1)); [ $i -lt 300 ] || { echo "no frame from the camera" >&2; break; }; sleep 0.05
            done
            "$PYTHON" Tests/Interop/aiortc/aiortc_peer.py whep-play http://127.0.0.1:\(port)/whep/rtsp-camera \\
              --codec h264 --no-audio --seconds 2 --timeout 10 > "$TMP.view" 2> "$TMP.err"
            echo "AIORTC-STATUS: $?"; echo "AIORTC-ERR: $(tail -c 1200 "$TMP.err" | tr '\\n' ' ')"
            "$PYTHON" Tests/Browser/browser_check.py play http://127.0.0.1:\(port) rtsp-camera --min-frames 30 --measure 0 \\
              --timeout 40 --watch 2 > "$TMP.chromium" 2> "$TMP.cerr"
            echo "CHROMIUM-STATUS: $?"; echo "CHROMIUM: $(grep '^{' "$TMP.chromium" | tail -1)"
            echo "CHROMIUM-ERR: $(tail -c 800 "$TMP.cerr" | tr '\\n' ' ')"
            kill -INT $server; wait $server; echo "SERVE-STATUS: $?"
            kill $rtsp; wait $rtsp
            echo "SERVE-LOG: $(tail -c 1500 "$TMP.serve" | tr '\\n' ' ')"
            """
        let r = try CLI.execute(
            inNamespace: script,
            env: ["SLUICE": CLI.binary.path, "PYTHON": Repository.python, "TMP": dir.appendingPathComponent("profile").path],
            timeout: 150, reportPath: nil)
        let lines = r.keyedLines
        XCTAssertNotEqual(lines["AIORTC-STATUS"], "0", r.stdout)
        let refusal = lines["AIORTC-ERR"] ?? ""
        XCTAssertTrue(refusal.contains("answered 4"), "a client error: \(refusal)")
        XCTAssertTrue(refusal.contains("H264 High"), "the stream's profile is named: \(refusal)")
        XCTAssertTrue(refusal.contains("H264 Constrained Baseline 3.1 (42e01f)"), "what aiortc offered is named: \(refusal)")
        XCTAssertEqual(lines["CHROMIUM-STATUS"], "0", r.stdout)
        let chromium = (lines["CHROMIUM"].flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) } as? [String: Any]) ?? [:]
        let pictures = PictureTimeline((chromium["watched"] as? [String: Any])?["pictures"])
        XCTAssertEqual(pictures.sequence(), ["red"], "the camera's picture in Chromium: \(pictures.runs) \(r.stdout)")
        XCTAssertEqual(lines["SERVE-STATUS"], "0", r.stdout)
        print("High-profile camera: aiortc refused (\(refusal.prefix(300))); Chromium saw \(pictures.runs)")
    }
}
