import Foundation
import SluiceTestSupport
import XCTest

/// A served ladder of renditions, each viewer behind its own rate-limited link
/// (Benchmarks/ladder.py: network namespaces joined through a router whose Sluice relays
/// limit what reaches each viewer). Every viewer starts on the middle rung; its own estimate
/// moves it, at keyframes, without renegotiation, and what it decodes at the end is the
/// rung its link carries. Benchmarks/ladder.sh holds the 10-viewer figures.
final class LadderEndToEndTests: XCTestCase {
    func testEachViewerGetsTheRungItsLinkCarries() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("ladder-\(UUID().uuidString).yaml").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        try """
        version: 1
        name: ladder-test
        transport: { kind: server, ice: { addresses: [127.0.0.1] } }
        send:
          video:
            capture: { kind: swift, name: scene, width: 640, height: 360, fps: 30 }
            encode:
              codec: h264
              preset: realtime
              renditions:
                - { name: 360p, width: 640, height: 360, bitrate: 1000 }
                - { name: 180p, width: 320, height: 180, bitrate: 350, start: true }
                - { name: 90p, width: 160, height: 90, bitrate: 100 }
        """.write(toFile: file, atomically: true, encoding: .utf8)
        let (r, result) = try CLI.ladder(["--pipeline", file, "--seconds", "20", "3mbit", "700kbit", "200kbit"])
        print("LadderEndToEnd:", r.stderr.suffix(600), r.stdout)
        let line = r.stdout
        let viewers = try XCTUnwrap(result["viewers"] as? [[String: Any]], line.description)
        XCTAssertEqual(viewers.count, 3)
        // What each link carries: 3 Mbit/s the best rung, 700 kbit/s the middle, 200 kbit/s the least.
        for (viewer, size) in zip(viewers, [(640, 360), (320, 180), (160, 90)]) {
            XCTAssertEqual(viewer["width"] as? Int, size.0, "\(viewer)")
            XCTAssertEqual(viewer["height"] as? Int, size.1, "\(viewer)")
            XCTAssertGreaterThan((viewer["fps"] as? NSNumber)?.doubleValue ?? 0, 20, "frames keep coming across switches: \(viewer)")
        }
        // The 3 Mbit/s viewer moved up and the 200 kbit/s one down, at least.
        let switches = try XCTUnwrap(result["switches"] as? [String: Any], line.description)
        XCTAssertGreaterThanOrEqual((switches["up"] as? NSNumber)?.intValue ?? 0, 1, line.description)
        XCTAssertGreaterThanOrEqual((switches["down"] as? NSNumber)?.intValue ?? 0, 1, line.description)
        // One encoder per rung, however many viewers: each rung sends near its own rate.
        let rates = try XCTUnwrap(result["rendition_bitrate_bps"] as? [String: Any], line.description)
        XCTAssertGreaterThan((rates["360p"] as? NSNumber)?.doubleValue ?? 0, 500_000, line.description)
        XCTAssertLessThan((rates["90p"] as? NSNumber)?.doubleValue ?? .infinity, 200_000, line.description)
    }

    /// `Pipelines/rtsp-ladder.yaml` in front of an 854×480 RTSP camera (gst-rtsp-server,
    /// x264 at 1.5 Mbit/s): the camera's H.264 is the best rung, passed through; 360p and
    /// 180p are decoded from it once and encoded. Behind 3 Mbit/s, 1 Mbit/s and 350 kbit/s
    /// links (viewers start on 360p), the first moves up to the source at the camera's next
    /// keyframe and the last down to 180p (360p does not fit its link). Only the camera makes
    /// 854×480, so the first viewer's picture is the camera's own stream.
    func testAPassthroughCamerasLadderKeepsTheCameraOnTopAndTranscodesOnlyTheRungsBelow() throws {
        let (r, result) = try CLI.ladder(
            [
                "--pipeline", Repository.path("Pipelines/rtsp-ladder.yaml"), "--seconds", "20",
                "--camera", "--pattern snow --size 854x480 --gop 30", "3mbit", "1000kbit", "350kbit"
            ], env: ["RTSP_URL": "rtsp://127.0.0.1:18629/cam"])
        let line = r.stdout
        let viewers = try XCTUnwrap(result["viewers"] as? [[String: Any]], line.description)
        XCTAssertEqual(viewers.count, 3)
        // Only the 3 Mbit/s viewer's last rung is certain: the others try the rung above now
        // and then (RenditionChoice's probes), and the run may end during a try. At 1 Mbit/s
        // a failed try of the source (1.5 Mbit/s and its keyframes) can also leave the viewer
        // on 180p for a while. What every viewer got on average fits its link.
        let sizes = viewers.map { "\($0["width"] as? Int ?? 0)x\($0["height"] as? Int ?? 0)" }
        XCTAssertEqual(sizes.first, "854x480", "the 3 Mbit/s viewer gets the camera's own stream: \(viewers) \(r.stderr.suffix(800))")
        for (viewer, link) in zip(viewers, [3000, 1000, 350]) {
            XCTAssertGreaterThan((viewer["fps"] as? NSNumber)?.doubleValue ?? 0, 20, "frames keep coming across switches: \(viewer)")
            let kbps = (viewer["kbps"] as? NSNumber)?.doubleValue ?? 0
            XCTAssertTrue((100...Double(link)).contains(kbps), "what arrived fits the \(link) kbit/s link: \(viewer)")
        }
        let rates = try XCTUnwrap(result["rendition_bitrate_bps"] as? [String: Any], line.description)
        XCTAssertGreaterThan((rates["source"] as? NSNumber)?.doubleValue ?? 0, 1_000_000, "the camera's own rate: \(line)")
        XCTAssertLessThan((rates["180p"] as? NSNumber)?.doubleValue ?? .infinity, 350_000, "a rung's encoder keeps its rate: \(line)")
        XCTAssertGreaterThan((rates["360p"] as? NSNumber)?.doubleValue ?? 0, 300_000, "360p is encoded from the decoded camera: \(line)")
        let switches = try XCTUnwrap(result["switches"] as? [String: Any], line.description)
        XCTAssertGreaterThanOrEqual((switches["up"] as? NSNumber)?.intValue ?? 0, 1, "a viewer moved up to the source: \(line)")
        XCTAssertGreaterThanOrEqual((switches["down"] as? NSNumber)?.intValue ?? 0, 1, "and the 350 kbit/s one down to 180p: \(line)")
    }
}

extension CLI {
    /// Benchmarks/ladder.py with `arguments` (after `--sluice`): the run, which must succeed,
    /// and its result (the JSON object on its last line).
    static func ladder(_ arguments: [String], env: [String: String] = [:]) throws -> (run: CLIResult, result: [String: Any]) {
        let r = try execute(
            URL(fileURLWithPath: "/usr/bin/python3"), [Repository.path("Benchmarks/ladder.py"), "--sluice", binary.path] + arguments,
            env: env, timeout: 150, reportPath: nil)
        XCTAssertEqual(r.status, 0, r.stderr)
        let line = try XCTUnwrap(r.stdout.split(separator: "\n").last, r.stderr)
        return (r, try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], String(line)))
    }
}
