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
        let r = try CLI.execute(
            URL(fileURLWithPath: "/usr/bin/python3"),
            [
                Repository.path("Benchmarks/ladder.py"), "--sluice", CLI.binary.path,
                "--pipeline", file, "--seconds", "20", "3mbit", "700kbit", "200kbit"
            ],
            env: [:], timeout: 150, reportPath: nil)
        print("LadderEndToEnd:", r.stderr.suffix(600), r.stdout)
        XCTAssertEqual(r.status, 0, r.stderr)
        let line = try XCTUnwrap(r.stdout.split(separator: "\n").last, r.stderr)
        let result = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
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
}
