import Foundation
import SluiceTestSupport
import XCTest

/// A camera whose H.264 is High profile, passed through by `sluice serve`
/// (`Pipelines/rtsp-camera.yaml`): a viewer is answered on a payload type whose decoder takes
/// High (Chromium's is below 96, where GStreamer's payloaders cannot write), and a viewer that offers none is refused with the profiles named, instead of being
/// sent a stream it was never offered.
final class H264ProfileEndToEndTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-h264-profile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    /// aiortc offers H.264 Baseline and Constrained Baseline only: refused with a 4xx that
    /// names the stream's High profile and what was offered. Chromium offers High 4:4:4 at a
    /// payload type below 96: it plays the camera's red picture, passed through, on that one.
    func testAHighProfileCameraIsRefusedToABaselineViewerAndPlaysInChromium() throws {
        try CLI.requireBrowserTools()
        let port = 18678
        let script = """
            ip link set lo up
            \(RTSPCaptureEndToEndTests.startServer(port: 18677, "--pattern red --size 640x360 --gop 30 --profile high"))
            RTSP_URL=rtsp://127.0.0.1:18677/cam "$SLUICE" serve --port \(port) --pipeline Pipelines/rtsp-camera.yaml > "$TMP.serve" 2>&1 &
            server=$!
            \(CLI.waitForServe(port: port))
            # The camera's frames (and so its caps, with the profile) have reached the stream.
            \(CLI.waitForMetric(port: port, "sluice_stream_encoded_video_frames_total[{][^}]*[}] [1-9]"))
            "$PYTHON" Tests/Interop/aiortc/aiortc_peer.py whep-play http://127.0.0.1:\(port)/whep/rtsp-camera \\
              --codec h264 --no-audio --seconds 2 --timeout 10 > "$TMP.view" 2> "$TMP.err"
            echo "AIORTC-STATUS: $?"; echo "AIORTC-ERR: $(tail -c 1200 "$TMP.err" | tr '\\n' ' ')"
            "$PYTHON" Tests/Browser/browser_check.py play http://127.0.0.1:\(port) rtsp-camera --min-frames 30 --measure 0 \\
              --timeout 40 --watch 2 > "$TMP.chromium" 2> "$TMP.cerr"
            echo "CHROMIUM-STATUS: $?"; echo "CHROMIUM: $(grep '^{' "$TMP.chromium" | tail -1)"
            echo "CHROMIUM-ERR: $(tail -c 800 "$TMP.cerr" | tr '\\n' ' ')"
            kill -INT $server; wait $server; echo "SERVE-STATUS: $?"
            stop_rtsp
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
        // Chromium's only decoder for High is High 4:4:4, offered below 96: the stream went
        // out there (`PayloadTypeRewrite`), not on a narrower profile's number.
        let payloadType = (chromium["payloadType"] as? NSNumber)?.intValue ?? -1
        XCTAssertTrue((35...95).contains(payloadType), "payload type \(payloadType): \(chromium)")
        XCTAssertTrue((chromium["fmtp"] as? String ?? "").contains("profile-level-id=f4001f"), "\(chromium)")
        XCTAssertEqual(lines["SERVE-STATUS"], "0", r.stdout)
        print(
            "High-profile camera: aiortc refused (\(refusal.prefix(300))); Chromium saw \(pictures.runs) on payload type \(payloadType) (\(chromium["fmtp"] ?? ""))"
        )
    }

    /// The same High camera with `passthrough: auto` (`Pipelines/rtsp-camera-any-viewer.yaml`):
    /// aiortc, refused above, now plays the camera's red picture, encoded again as Constrained
    /// Baseline; Chromium plays it too (its decoder takes High). `/metrics` counts one
    /// transcoded viewer while aiortc watches, and the server says it is encoding again. Once
    /// aiortc leaves, the encoder is stopped; a second aiortc viewer starts it again.
    func testWithPassthroughAutoABaselineViewerGetsTheCameraEncodedAgain() throws {
        try CLI.requireBrowserTools()
        let port = 18679
        let script = """
            ip link set lo up
            \(RTSPCaptureEndToEndTests.startServer(port: 18680, "--pattern red --size 640x360 --gop 60 --profile high"))
            RTSP_URL=rtsp://127.0.0.1:18680/cam "$SLUICE" serve --log-level notice --port \(port) --pipeline Pipelines/rtsp-camera-any-viewer.yaml > "$TMP.serve" 2>&1 &
            server=$!
            \(CLI.waitForServe(port: port))
            \(CLI.waitForMetric(port: port, "sluice_stream_encoded_video_frames_total[{][^}]*[}] [1-9]"))
            "$PYTHON" Tests/Interop/aiortc/aiortc_peer.py whep-play http://127.0.0.1:\(port)/whep/rtsp-camera-any-viewer \\
              --codec h264 --no-audio --seconds 4 --timeout 15 --pictures > "$TMP.view" 2> "$TMP.err" &
            viewer=$!
            \(CLI.waitForMetric(port: port, "sluice_stream_transcoded_viewers[{][^}]*[}] 1", whileRunning: "viewer"))
            echo "TRANSCODED-WHILE: $(curl -s http://127.0.0.1:\(port)/metrics | grep -E '^sluice_stream_transcoded_viewers' | tr '\\n' ' ')"
            wait $viewer; echo "AIORTC-STATUS: $?"; echo "AIORTC: $(grep '^{' "$TMP.view" | tail -1)"
            echo "AIORTC-ERR: $(tail -c 1200 "$TMP.err" | tr '\\n' ' ')"
            \(CLI.waitForMetric(port: port, "sluice_stream_transcoding[{][^}]*codec=\"h264\"[}] 0", tries: 200))
            echo "AFTER-LEAVING: $(curl -s http://127.0.0.1:\(port)/metrics | grep -E '^sluice_stream_transcod' | tr '\\n' ' ')"
            "$PYTHON" Tests/Interop/aiortc/aiortc_peer.py whep-play http://127.0.0.1:\(port)/whep/rtsp-camera-any-viewer \\
              --codec h264 --no-audio --seconds 2 --timeout 15 --pictures > "$TMP.again" 2> "$TMP.again-err"
            echo "AGAIN-STATUS: $?"; echo "AGAIN: $(grep '^{' "$TMP.again" | tail -1)"
            echo "AGAIN-METRICS: $(curl -s http://127.0.0.1:\(port)/metrics | grep -E '^sluice_stream_transcode_starts_total' | tr '\\n' ' ')"
            "$PYTHON" Tests/Browser/browser_check.py play http://127.0.0.1:\(port) rtsp-camera-any-viewer --min-frames 30 --measure 0 \\
              --timeout 40 --watch 2 > "$TMP.chromium" 2> "$TMP.cerr"
            echo "CHROMIUM-STATUS: $?"; echo "CHROMIUM: $(grep '^{' "$TMP.chromium" | tail -1)"
            echo "CHROMIUM-ERR: $(tail -c 800 "$TMP.cerr" | tr '\\n' ' ')"
            kill -INT $server; wait $server; echo "SERVE-STATUS: $?"
            stop_rtsp
            echo "SERVE-STOPPED: $(grep -c 'its encoder is stopped' "$TMP.serve")"
            echo "SERVE-LOG: $(grep -c 'encoding it again as Constrained Baseline' "$TMP.serve") $(tail -c 1500 "$TMP.serve" | tr '\\n' ' ')"
            """
        let r = try CLI.execute(
            inNamespace: script,
            env: ["SLUICE": CLI.binary.path, "PYTHON": Repository.python, "TMP": dir.appendingPathComponent("auto").path],
            timeout: 150, reportPath: nil)
        let lines = r.keyedLines
        XCTAssertEqual(lines["AIORTC-STATUS"], "0", "\(lines["AIORTC-ERR"] ?? "") \(r.stdout)")
        let view = (lines["AIORTC"].flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) } as? [String: Any]) ?? [:]
        XCTAssertGreaterThan(view["video_frames"] as? Int ?? 0, 60, "aiortc decodes the stream: \(view)")
        XCTAssertEqual(PictureTimeline(view["pictures"]).sequence(), ["red"], "the camera's picture, encoded again: \(view)")
        XCTAssertNotNil(
            (lines["TRANSCODED-WHILE"] ?? "").range(
                of: #"sluice_stream_transcoded_viewers\{stream="rtsp-camera-any-viewer",media="video"\} 1(\.0)?(\s|$)"#, options: .regularExpression),
            "one transcoded viewer while aiortc watches: \(r.stdout)")
        // aiortc gone, the encoder goes (no CPU spent for no one); the next such viewer starts a
        // new one and sees the picture again.
        XCTAssertNotNil(
            (lines["AFTER-LEAVING"] ?? "").range(
                of: #"sluice_stream_transcoding\{stream="rtsp-camera-any-viewer",media="video",codec="h264"\} 0(\.0)?(\s|$)"#, options: .regularExpression),
            "no encoder once aiortc has left: \(r.stdout)")
        XCTAssertEqual(lines["AGAIN-STATUS"], "0", r.stdout)
        let again = (lines["AGAIN"].flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) } as? [String: Any]) ?? [:]
        XCTAssertEqual(PictureTimeline(again["pictures"]).sequence(), ["red"], "a second baseline viewer sees the camera: \(again)")
        XCTAssertNotNil(
            (lines["AGAIN-METRICS"] ?? "").range(
                of: #"sluice_stream_transcode_starts_total\{stream="rtsp-camera-any-viewer",media="video",codec="h264"\} 2(\.0)?(\s|$)"#,
                options: .regularExpression),
            "its own encoder, the second started: \(r.stdout)")
        XCTAssertTrue((lines["SERVE-LOG"] ?? "").hasPrefix("2 "), "the server says it encodes again, each time: \(r.stdout)")
        XCTAssertEqual(lines["SERVE-STOPPED"], "2", "and says when it stops, each time: \(r.stdout)")
        XCTAssertEqual(lines["CHROMIUM-STATUS"], "0", r.stdout)
        let chromium = (lines["CHROMIUM"].flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) } as? [String: Any]) ?? [:]
        let pictures = PictureTimeline((chromium["watched"] as? [String: Any])?["pictures"])
        XCTAssertEqual(pictures.sequence(), ["red"], "the camera's picture in Chromium: \(pictures.runs) \(r.stdout)")
        XCTAssertEqual(lines["SERVE-STATUS"], "0", r.stdout)
        print(
            "passthrough: auto: aiortc got \(view["video_frames"] ?? "?") frames (first after \(view["first_frame_ms"] ?? "?") ms), Chromium \(pictures.runs)")
    }

    /// Firefox without OpenH264 (Debian's, offline) offers no H.264 at all. With `passthrough:
    /// auto` it gets the High camera encoded again as VP8 and plays its moving picture; the VP8
    /// encoder runs while it watches (`/metrics`) and is gone once it has left.
    func testWithPassthroughAutoFirefoxWithoutH264GetsTheCameraAsVP8() throws {
        try InteropFirefoxTests.requireFirefox()
        let port = 18682
        let transcoding = "sluice_stream_transcoding[{][^}]*codec=\"vp8\"[}]"
        let script = """
            ip link set lo up
            \(RTSPCaptureEndToEndTests.startServer(port: 18681, "--pattern snow --size 320x240 --gop 60 --profile high"))
            RTSP_URL=rtsp://127.0.0.1:18681/cam "$SLUICE" serve --log-level notice --port \(port) --pipeline Pipelines/rtsp-camera-any-viewer.yaml > "$TMP.serve" 2>&1 &
            server=$!
            \(CLI.waitForServe(port: port))
            "$PYTHON" \(InteropFirefoxTests.peer) play http://127.0.0.1:\(port)/whep/rtsp-camera-any-viewer --seconds 4 --timeout 30 \\
              > "$TMP.ff" 2> "$TMP.fferr" &
            viewer=$!
            \(CLI.waitForMetric(port: port, transcoding + " 1", tries: 600, whileRunning: "viewer"))
            echo "WHILE: $(curl -s http://127.0.0.1:\(port)/metrics | grep -E '^\(transcoding)')"
            wait $viewer; echo "FF-STATUS: $?"; echo "FF: $(grep '^{' "$TMP.ff" | tail -1)"
            echo "FF-ERR: $(tail -c 1500 "$TMP.fferr" | tr '\\n' ' ')"
            \(CLI.waitForMetric(port: port, transcoding + " 0", tries: 200))
            echo "AFTER: $(curl -s http://127.0.0.1:\(port)/metrics | grep -E '^\(transcoding)')"
            kill -INT $server; wait $server; echo "SERVE-STATUS: $?"
            stop_rtsp
            echo "SERVE-LOG: $(grep -c 'encoding it again as VP8' "$TMP.serve") $(grep -c 'as VP8 any more' "$TMP.serve") $(tail -c 1200 "$TMP.serve" | tr '\\n' ' ')"
            """
        let r = try CLI.execute(
            inNamespace: script,
            env: ["SLUICE": CLI.binary.path, "PYTHON": Repository.python, "TMP": dir.appendingPathComponent("firefox").path],
            timeout: 180, reportPath: nil)
        let lines = r.keyedLines
        XCTAssertEqual(lines["FF-STATUS"], "0", "\(lines["FF-ERR"] ?? "") \(r.stdout)")
        let j = (lines["FF"].flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) } as? [String: Any]) ?? [:]
        XCTAssertEqual((j["video_codec"] as? String)?.lowercased().contains("vp8"), true, "Firefox decodes VP8: \(j)")
        XCTAssertEqual(j["frame_size"] as? String, "320x240", "\(j)")
        XCTAssertGreaterThanOrEqual(j["decode_fps"] as? Double ?? 0, 24, "≥ 80% of the camera's 30 fps: \(j)")
        XCTAssertEqual(j["moving_picture"] as? Bool, true, "the camera's moving snow, not black: \(j["pixels"] ?? "")")
        XCTAssertNotNil((lines["WHILE"] ?? "").range(of: #" 1(\.0)?$"#, options: .regularExpression), "the VP8 encoder runs while Firefox watches: \(r.stdout)")
        XCTAssertNotNil((lines["AFTER"] ?? "").range(of: #" 0(\.0)?$"#, options: .regularExpression), "and stops once it has left: \(r.stdout)")
        XCTAssertTrue((lines["SERVE-LOG"] ?? "").hasPrefix("1 1 "), "the server says it starts and stops it: \(r.stdout)")
        XCTAssertEqual(lines["SERVE-STATUS"], "0", r.stdout)
        print("passthrough: auto to Firefox (VP8): \(j["decode_fps"] ?? "?") fps, \(j["frame_size"] ?? "?"), pixels \(j["pixels"] ?? "")")
    }

    /// A VP8 camera with `passthrough: auto`: an H.264-only aiortc viewer gets it encoded again
    /// as Constrained Baseline, at the file's `bitrate`, and sees the camera's red picture.
    func testWithPassthroughAutoAVP8CameraReachesAnH264OnlyViewer() throws {
        let port = 18684
        let script = """
            ip link set lo up
            \(RTSPCaptureEndToEndTests.startServer(port: 18683, "--codec vp8 --pattern red --size 320x240 --gop 30"))
            cat > "$TMP.yaml" <<'YAML'
            version: 1
            name: vp8-camera
            transport: { kind: server, ice: { addresses: [127.0.0.1] } }
            send:
              video:
                capture: { kind: rtsp, url: "rtsp://127.0.0.1:18683/cam", transport: tcp, latency: 50 }
                encode: { codec: vp8, passthrough: auto, bitrate: 800 }
            YAML
            "$SLUICE" serve --port \(port) --pipeline "$TMP.yaml" > "$TMP.serve" 2>&1 &
            server=$!
            \(CLI.waitForServe(port: port))
            "$PYTHON" Tests/Interop/aiortc/aiortc_peer.py whep-play http://127.0.0.1:\(port)/whep/vp8-camera \\
              --codec h264 --no-audio --seconds 3 --timeout 20 --pictures > "$TMP.view" 2> "$TMP.err"
            echo "AIORTC-STATUS: $?"; echo "AIORTC: $(grep '^{' "$TMP.view" | tail -1)"
            echo "AIORTC-ERR: $(tail -c 1200 "$TMP.err" | tr '\\n' ' ')"
            echo "STARTS: $(curl -s http://127.0.0.1:\(port)/metrics | grep -E '^sluice_stream_transcode_starts_total' | tr '\\n' ' ')"
            kill -INT $server; wait $server; echo "SERVE-STATUS: $?"
            stop_rtsp
            echo "SERVE-LOG: $(tail -c 1200 "$TMP.serve" | tr '\\n' ' ')"
            """
        let r = try CLI.execute(
            inNamespace: script,
            env: ["SLUICE": CLI.binary.path, "PYTHON": Repository.python, "TMP": dir.appendingPathComponent("vp8cam").path],
            timeout: 120, reportPath: nil)
        let lines = r.keyedLines
        XCTAssertEqual(lines["AIORTC-STATUS"], "0", "\(lines["AIORTC-ERR"] ?? "") \(r.stdout)")
        let view = (lines["AIORTC"].flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) } as? [String: Any]) ?? [:]
        XCTAssertGreaterThan(view["video_frames"] as? Int ?? 0, 45, "aiortc decodes the stream: \(view)")
        XCTAssertEqual(PictureTimeline(view["pictures"]).sequence(), ["red"], "the VP8 camera's picture, as H.264: \(view)")
        XCTAssertNotNil(
            (lines["STARTS"] ?? "").range(
                of: #"sluice_stream_transcode_starts_total\{stream="vp8-camera",media="video",codec="h264"\} 1(\.0)?(\s|$)"#, options: .regularExpression),
            "one H.264 encoder was started for it: \(r.stdout)")
        XCTAssertTrue(
            (lines["SERVE-LOG"] ?? "").contains("encoding it again as Constrained Baseline at 800 kbit/s"), "at the file's bitrate: \(r.stdout)")
        XCTAssertEqual(lines["SERVE-STATUS"], "0", r.stdout)
    }
}
