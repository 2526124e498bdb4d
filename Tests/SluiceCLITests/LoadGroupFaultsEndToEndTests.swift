import Foundation
import SluiceTestSupport
import XCTest

/// A load group with encoded filters of its own (`load.groups[].encoded_filters`): `faults`
/// for one part of a crowd, the rest untouched, in one `sluice load`.
final class LoadGroupFaultsEndToEndTests: XCTestCase {
    private func report(_ path: String) throws -> [[String: Any]] {
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any]
        return json?["clients"] as? [[String: Any]] ?? []
    }

    /// 4 WHIP publishers into a `sluice serve --receive` that decodes each: the group whose
    /// frames go through `faults` with `drop_share: 1` (every delta frame dropped, keyframes
    /// kept) sends the server keyframes only, while the other group's 2 publishers, fed by
    /// the same encoder, are decoded at full rate.
    func testAFaultyGroupOfPublishersReachesTheServiceWithKeyframesOnly() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("load-group-faults-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try """
        version: 1
        name: recv
        transport: { kind: server, ice: { addresses: [127.0.0.1] } }
        receive:
          video: { codecs: [vp8], sink: stats }
        """.write(toFile: "\(dir)/recv.yaml", atomically: true, encoding: .utf8)
        let script = """
            ip link set lo up
            "$SLUICE" serve --port 18791 --receive "$D/recv.yaml" >"$D/serve.out" 2>&1 &
            server=$!
            i=0; until curl -s -m 1 -o /dev/null http://127.0.0.1:18791/status.json; do i=$((i+1)); [ $i -lt 200 ] || exit 90; sleep 0.05; done
            "$SLUICE" load Pipelines/load-whip.yaml --clients 4 --ramp 10/s --duration 8 --json "$D/load.json" \\
              --set transport.endpoint=http://127.0.0.1:18791/whip/recv \\
              --set 'load.groups=[{name: clean, share: 50%}, {name: broken, share: 50%, encoded_filters: {video: [{filter: faults, drop_share: 1}]}}]' \\
              >"$D/load.out" 2>&1 &
            load=$!
            # Bounded: until two of the server's sessions have 120 frames decoded (4 s).
            i=0; until [ "$(curl -s -m 1 http://127.0.0.1:18791/whip.json | grep -oE '"video_frames":(1[2-9][0-9]|[2-9][0-9]{2})' | wc -l)" -ge 2 ]; do
              i=$((i+1)); [ $i -lt 300 ] || break; sleep 0.05
            done
            echo "SESSIONS: $(curl -s -m 2 http://127.0.0.1:18791/whip.json)"
            wait $load; echo "LOAD: $?"
            kill -INT $server; wait $server
            """
        let r = try CLI.execute(inNamespace: script, env: ["SLUICE": CLI.binary.path, "D": dir], timeout: 90, reportPath: nil)
        let logs = ["serve.out", "load.out"].map { (try? String(contentsOfFile: "\(dir)/\($0)", encoding: .utf8))?.suffix(2000) ?? "" }
        let context = "\(r.stdout)\n\(r.stderr.suffix(1000))\n\(logs.joined(separator: "\n"))"
        XCTAssertEqual(r.keyedLines["LOAD"], "0", context)
        let json = r.keyedLines["SESSIONS"].flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) } as? [String: Any]
        let frames = (json?["sessions"] as? [[String: Any]] ?? []).map { $0["video_frames"] as? Int ?? -1 }.sorted()
        XCTAssertEqual(frames.count, 4, context)
        print("a broken group of publishers: the server decoded \(frames) frames per session")
        guard frames.count == 4 else { return }
        // What the server decoded: the clean pair at full rate, the broken pair a keyframe
        // at the start and one every 2 s (the file's encoder), in the same seconds.
        XCTAssertGreaterThanOrEqual(frames[2], 120, "the clean publishers: \(frames)")
        XCTAssertLessThanOrEqual(frames[1], 8, "the broken group sent keyframes only: \(frames)\n\(context)")
        XCTAssertGreaterThanOrEqual(frames[0], 1, "a keyframe of the broken group was decoded: \(frames)")
        // The report says the same per group: what each publisher sent after its group's filters.
        let clients = try report("\(dir)/load.json")
        let fps = Dictionary(grouping: clients, by: { $0["group"] as? String ?? "?" }).mapValues { $0.map { ($0["fps"] as? Double) ?? -1 } }
        XCTAssertEqual(fps["clean"]?.count, 2, "\(fps)")
        XCTAssertTrue(fps["clean"]?.allSatisfy { $0 > 25 } ?? false, "\(fps)")
        XCTAssertTrue(fps["broken"]?.allSatisfy { $0 < 2 } ?? false, "\(fps)")
    }

    /// 4 decoding WHEP viewers of `serve-stamped.yaml`: the group whose received frames go
    /// through `faults` (every delta frame dropped from its 2nd second for 3 s) freezes and
    /// then plays again; the other group plays without a freeze.
    func testAFaultyGroupOfViewersFreezesAndRecovers() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("load-group-faults-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let script = """
            ip link set lo up
            "$SLUICE" serve --port 18792 --pipeline Pipelines/serve-stamped.yaml >/dev/null 2>&1 &
            server=$!
            i=0; until curl -s -m 1 -o /dev/null http://127.0.0.1:18792/streams.json; do i=$((i+1)); [ $i -lt 200 ] || exit 90; sleep 0.05; done
            SLUICE_WHEP=http://127.0.0.1:18792/whep/serve-stamped "$SLUICE" load Pipelines/load-whep.yaml --clients 4 --ramp 10/s \\
              --duration 8 --json "$R" --set load.decode=all \\
              --set 'load.groups=[{name: clean, share: 50%}, {name: faulty, share: 50%, encoded_filters: {video: [{filter: faults, drop_deltas_at: 2, drop_deltas_for: 3}]}}]'
            echo "LOAD: $?"
            kill -INT $server; wait $server
            """
        let r = try CLI.execute(inNamespace: script, env: ["SLUICE": CLI.binary.path, "R": path], timeout: 90, reportPath: nil)
        XCTAssertEqual(r.keyedLines["LOAD"], "0", "\(r.stdout.suffix(3000))\n\(r.stderr.suffix(1000))")
        let clients = try report(path)
        XCTAssertEqual(clients.count, 4, r.stdout)
        print("a faulty group of viewers: \(clients.map { [$0["group"] ?? "?", $0["frames"] ?? -1, $0["freezes"] ?? -1, $0["freeze_ms"] ?? -1] })")
        for c in clients {
            let group = c["group"] as? String ?? "?", freezes = c["freezes"] as? Int ?? -1
            let frozen = c["freeze_ms"] as? Double ?? -1, frames = c["frames"] as? Int ?? -1
            if group == "faulty" {
                XCTAssertGreaterThanOrEqual(freezes, 1, "a faulty viewer froze: \(c)")
                XCTAssertGreaterThan(frozen, 2000, "for most of the 3 s window: \(c)")
                // Before the window it decoded about 60 frames; after it, it plays again.
                XCTAssertGreaterThan(frames, 100, "and played again after it: \(c)")
            } else {
                XCTAssertEqual(group, "clean", "\(c)")
                XCTAssertEqual(freezes, 0, "a clean viewer did not freeze: \(c)")
                XCTAssertGreaterThan(frames, 180, "\(c)")
            }
        }
    }
}
