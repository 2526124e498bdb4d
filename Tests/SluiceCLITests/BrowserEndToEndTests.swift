import Foundation
import XCTest

/// `sluice serve`'s web page in a real browser: headless Chromium (Debian's), driven by
/// selenium through `Tests/Browser/browser_check.py`, plays a stream over WHEP and publishes
/// its fake camera and microphone over WHIP. Each test runs the server and the browser in one
/// loopback-only network namespace. Without Chromium, chromedriver or selenium the tests fail
/// and say to run `Scripts/install.sh`.
final class BrowserEndToEndTests: XCTestCase {
    /// `GET /` is the page: HTML, with the lists, the player, the publisher and the stats hooks.
    func testPageIsServedAtRoot() throws {
        let r = try CLI.runClientWithServer(
            serve: ["--pipeline", "Pipelines/server.yaml", "--receive", "Pipelines/server.yaml"],
            port: 18471,
            client: """
                curl -s -m 5 -D - "$URL/" && echo RECEIVERS: && curl -s -m 5 "$URL/receivers.json"
                """, timeout: 60)
        XCTAssertEqual(r.status, 0, r.stderr)
        let page = try XCTUnwrap(r.stdout.components(separatedBy: "RECEIVERS:").first)
        XCTAssertTrue(page.hasPrefix("HTTP/1.1 200"), page.prefix(200).description)
        XCTAssertTrue(page.lowercased().contains("content-type: text/html; charset=utf-8"), page.prefix(400).description)
        for marker in [
            "<!doctype html>", "<video id=\"play-video\"", "<video id=\"publish-video\"", "id=\"token\"",
            "/streams.json", "/whip.json", "/receivers.json", "application/sdp", "Bearer ", "\"DELETE\"",
            "recvonly", "sendonly", "getUserMedia", "getStats", "currentRoundTripTime", "window.sluice",
            "data-stat=\"framesDecoded\"", "data-stat=\"framesSent\"", "data-stat=\"bitrate\"",
            "data-stat=\"rtt\"", "data-stat=\"fps\"", "data-stat=\"packetsLost\"", "</html>"
        ] {
            XCTAssertTrue(page.contains(marker), "the page lacks \(marker)")
        }
        XCTAssertFalse(page.contains("src=\"http"), "the page must not load anything from elsewhere")
        let receivers = try XCTUnwrap(r.stdout.components(separatedBy: "RECEIVERS:").last?.components(separatedBy: "AFTER:").first)
        let list = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(receivers.utf8)) as? [[String: String]], receivers)
        XCTAssertEqual(list, [["name": "server", "whip": "/whip/server"]])
    }

    /// Chromium plays `Pipelines/server.yaml` (640×360 VP8 at 30 fps) over WHEP from the page.
    func testBrowserPlaysAStreamOverWHEP() throws {
        try CLI.requireBrowserTools()
        let (_, json, _) = try CLI.browserCheck(
            "play", "server", serve: ["--pipeline", "Pipelines/server.yaml"], port: 18472,
            extra: ["--min-frames", "30", "--measure", "3", "--timeout", "40"])
        print("BrowserEndToEnd play:", json)
        XCTAssertGreaterThanOrEqual(json["framesDecoded"] as? Int ?? 0, 30, "\(json)")
        XCTAssertEqual(json["width"] as? Int, 640, "\(json)")
        XCTAssertEqual(json["height"] as? Int, 360, "\(json)")
        XCTAssertGreaterThan((json["fps"] as? NSNumber)?.doubleValue ?? 0, 5, "the page shows a live frame rate: \(json)")
        XCTAssertGreaterThan((json["bitrate"] as? NSNumber)?.doubleValue ?? 0, 0, "\(json)")
        XCTAssertNotNil(json["rtt"] as? NSNumber, "the selected candidate pair has an RTT: \(json)")
        XCTAssertEqual(json["viewersWhilePlaying"] as? Int, 1, "\(json)")
        // What a person sees: the <video> plays at the stream's size, and the received track's
        // own frames carry a picture that is not black and moves.
        let picture = try XCTUnwrap(json["picture"] as? [String: Any], "\(json)")
        XCTAssertEqual(picture["readyState"] as? Int, 4, "\(picture)")
        XCTAssertEqual(picture["videoWidth"] as? Int, 640, "\(picture)")
        XCTAssertEqual(picture["trackWidth"] as? Int, 640, "\(picture)")
        XCTAssertEqual(picture["trackHeight"] as? Int, 360, "\(picture)")
        XCTAssertGreaterThanOrEqual(picture["trackFrames"] as? Int ?? 0, 10, "\(picture)")
        XCTAssertGreaterThan((picture["maxFrameDiff"] as? NSNumber)?.doubleValue ?? 0, 0.5, "the picture moves: \(picture)")
    }

    /// Chromium plays H.264 (Constrained Baseline, offered by Chromium as one of several
    /// payload types) from `Pipelines/serve-av.yaml`'s busy scene: the page shows it moving.
    func testBrowserPlaysH264OverWHEP() throws {
        try CLI.requireBrowserTools()
        let (_, json, _) = try CLI.browserCheck(
            "play", "serve-av", serve: ["--pipeline", "Pipelines/serve-av.yaml"], port: 18475,
            extra: ["--min-frames", "30", "--measure", "3", "--timeout", "40"],
            env: ["CODEC": "h264"])
        print("BrowserEndToEnd play H.264:", json)
        XCTAssertEqual(json["codec"] as? String, "H264", "\(json)")
        XCTAssertGreaterThanOrEqual(json["framesDecoded"] as? Int ?? 0, 30, "\(json)")
        XCTAssertGreaterThan((json["fps"] as? NSNumber)?.doubleValue ?? 0, 20, "\(json)")
        let picture = try XCTUnwrap(json["picture"] as? [String: Any], "\(json)")
        XCTAssertEqual(picture["readyState"] as? Int, 4, "\(picture)")
        XCTAssertEqual(picture["trackWidth"] as? Int, 640, "\(picture)")
        XCTAssertEqual(picture["trackHeight"] as? Int, 360, "\(picture)")
        XCTAssertGreaterThanOrEqual(picture["trackFrames"] as? Int ?? 0, 10, "\(picture)")
        XCTAssertGreaterThan((picture["maxFrameDiff"] as? NSNumber)?.doubleValue ?? 0, 0.5, "the picture moves: \(picture)")
    }

    /// A peer nobody here wrote drives Sluice's congestion control: Chromium, playing an
    /// adaptive served stream over WHEP, sends transport-wide feedback that Sluice answered
    /// for, and on the open loopback the stream's encoder target climbs from its start.
    func testBrowserFeedbackDrivesAnAdaptiveStream() throws {
        try CLI.requireBrowserTools()
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("adaptive-\(UUID().uuidString).yaml").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try """
        name: adaptive-view
        transport: { kind: server, ice: { addresses: [127.0.0.1] } }
        send:
          video:
            capture: { kind: swift, name: scene, width: 640, height: 360, fps: 30 }
            encode: { codec: vp8, bitrate: { min: 200, start: 400, max: 2500 } }
        """.write(toFile: path, atomically: true, encoding: .utf8)
        let (_, json, _) = try CLI.browserCheck(
            "play", "adaptive-view", serve: ["--pipeline", path], port: 18476,
            extra: [
                "--min-frames", "30", "--measure", "6", "--timeout", "40",
                "--metric", "sluice_stream_video_target_bitrate_bps"
            ])
        print("BrowserEndToEnd adaptive:", json)
        XCTAssertGreaterThanOrEqual(json["framesDecoded"] as? Int ?? 0, 30, "\(json)")
        let start = try XCTUnwrap((json["metricStart"] as? NSNumber)?.doubleValue, "the stream reports a target: \(json)")
        let end = try XCTUnwrap((json["metricEnd"] as? NSNumber)?.doubleValue, "\(json)")
        XCTAssertGreaterThan(end, start * 1.3, "Chromium's feedback moves the target up on an open path: \(start) → \(end)")
        XCTAssertGreaterThan(end, 600_000, "\(json)")
    }

    /// A foreign viewer on a served ladder: Chromium starts on the least rung (`start: true`)
    /// and its own transport-wide feedback moves it up, at keyframes, without renegotiation:
    /// the picture it decodes grows from 160x90 to 640x360, and the page still shows it
    /// moving.
    func testBrowserClimbsALadderOnItsOwnFeedback() throws {
        try CLI.requireBrowserTools()
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("ladder-\(UUID().uuidString).yaml").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try """
        name: ladder-view
        transport: { kind: server, ice: { addresses: [127.0.0.1] } }
        send:
          video:
            capture: { kind: swift, name: scene, width: 640, height: 360, fps: 30 }
            encode:
              codec: h264
              preset: realtime
              renditions:
                - { name: 360p, width: 640, height: 360, bitrate: 900 }
                - { name: 180p, width: 320, height: 180, bitrate: 300 }
                - { name: 90p, width: 160, height: 90, bitrate: 100, start: true }
        """.write(toFile: path, atomically: true, encoding: .utf8)
        let (_, json, _) = try CLI.browserCheck(
            "play", "ladder-view", serve: ["--pipeline", path], port: 18477,
            extra: [
                "--min-frames", "20", "--measure", "2", "--timeout", "40",
                "--wait-width", "640", "--metric", #"sluice_stream_rendition_switches_total{direction="up"}"#
            ])
        print("BrowserEndToEnd ladder:", json)
        XCTAssertEqual(json["startWidth"] as? Int, 160, "Chromium starts on the least rung: \(json)")
        XCTAssertEqual(json["width"] as? Int, 640, "and ends on the best: \(json)")
        XCTAssertEqual(json["codec"] as? String, "H264", "\(json)")
        XCTAssertGreaterThan((json["fps"] as? NSNumber)?.doubleValue ?? 0, 20, "\(json)")
        let picture = try XCTUnwrap(json["picture"] as? [String: Any], "\(json)")
        XCTAssertEqual(picture["trackWidth"] as? Int, 640, "the page's <video> shows the best rung: \(picture)")
        XCTAssertGreaterThan((picture["maxFrameDiff"] as? NSNumber)?.doubleValue ?? 0, 0.5, "the picture moves: \(picture)")
        XCTAssertGreaterThanOrEqual((json["metricEnd"] as? NSNumber)?.doubleValue ?? 0, 2, "two moves up at least: \(json)")
    }

    /// With `--token`, the page sends the token field as `Authorization: Bearer` on POST and
    /// DELETE (browser_check.py waits for the viewer to be gone after Stop).
    func testBrowserPlaysWithABearerToken() throws {
        try CLI.requireBrowserTools()
        let (_, json, _) = try CLI.browserCheck(
            "play", "server", serve: ["--pipeline", "Pipelines/server.yaml", "--token", "s3cret"],
            port: 18474, extra: ["--token", "s3cret", "--measure", "0", "--timeout", "40"])
        XCTAssertGreaterThanOrEqual(json["framesDecoded"] as? Int ?? 0, 30, "\(json)")
    }

    /// Chromium publishes its fake camera and microphone over WHIP from the page into
    /// `sluice serve --receive Pipelines/server.yaml`, whose receive pipeline decodes them.
    func testBrowserPublishesCameraOverWHIP() throws {
        try CLI.requireBrowserTools()
        let (_, json, whip) = try CLI.browserCheck(
            "publish", "server", serve: ["--receive", "Pipelines/server.yaml"], port: 18473,
            extra: ["--min-frames", "30", "--measure", "3", "--timeout", "40"])
        print("BrowserEndToEnd publish:", json, "server:", whip)
        XCTAssertGreaterThanOrEqual(json["framesSent"] as? Int ?? 0, 30, "\(json)")
        // The server's own account, after the browser's DELETE ended the session.
        let ended = try XCTUnwrap((whip["ended"] as? [String: Any])?["server"] as? [String: Int], "\(whip)")
        XCTAssertEqual(ended["sessions"], 1, "Stop ended the session with DELETE: \(whip)")
        XCTAssertGreaterThanOrEqual(ended["video_frames"] ?? 0, 30, "the server decoded the browser's video: \(whip)")
        XCTAssertGreaterThan(ended["audio_buffers"] ?? 0, 0, "the server decoded the browser's audio: \(whip)")
        XCTAssertEqual((whip["sessions"] as? [Any])?.count, 0, "\(whip)")
    }
}
