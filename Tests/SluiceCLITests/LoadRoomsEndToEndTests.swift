import Foundation
import SluiceTestSupport
import XCTest

/// `sluice load` members of calls: a crowd in calls of two through `sluice serve`'s AppRTC
/// rooms, every member sending the crowd's one shared encoder's stream and playing what the
/// other member sends, with the other's framestamps read from the decoded picture.
final class LoadRoomsEndToEndTests: XCTestCase {
    /// 6 members ramped at 10/s stay 6 s in 3 rooms of two. While they talk, the room server
    /// holds 3 rooms of 2; afterwards none. Every member leaves as planned, plays the other's
    /// 30 fps, and reads the stamps in the decoded picture; one encoder served all six.
    func testMembersMeetInPairsAndEachSeesTheOthersPicture() throws {
        let port = 18761
        let report = FileManager.default.temporaryDirectory.appendingPathComponent("load-rooms-\(UUID().uuidString).json").path
        let script = """
            ip link set lo up
            "$SLUICE" serve --port \(port) >/dev/null 2>&1 &
            server=$!
            i=0; until curl -s -m 1 -o /dev/null http://127.0.0.1:\(port)/status.json; do i=$((i+1)); [ $i -lt 200 ] || exit 90; sleep 0.05; done
            out=$(mktemp)
            "$SLUICE" load Pipelines/load-apprtc.yaml --clients 6 --ramp 10/s --duration 6 --decode all \\
              --set 'transport.endpoint=http://127.0.0.1:\(port)' --json '\(report)' >$out &
            load=$!
            i=0; until curl -s -m 1 http://127.0.0.1:\(port)/status.json | grep -q '"clients":6,'; do i=$((i+1)); [ $i -lt 300 ] || break; sleep 0.05; done
            echo "DURING: $(curl -s -m 2 http://127.0.0.1:\(port)/status.json)"
            wait $load; status=$?
            cat $out; rm -f $out
            echo "AFTER: $(curl -s -m 5 http://127.0.0.1:\(port)/status.json)"
            kill -INT $server 2>/dev/null; wait $server
            exit $status
            """
        let r = try CLI.execute(inNamespace: script, env: ["SLUICE": CLI.binary.path], timeout: 120, reportPath: report)
        let context = "\(r.stdout.suffix(4000))\n\(r.stderr.suffix(2000))"
        XCTAssertEqual(r.status, 0, context)
        XCTAssertEqual(r.value("role") as? String, "member", context)
        XCTAssertEqual(r.value("target") as? String, "http://127.0.0.1:\(port) rooms calls-0, calls-1, …", "the report names the room server and the rooms")
        let during = r.stdout.components(separatedBy: "\n").first { $0.hasPrefix("DURING: ") } ?? ""
        XCTAssertTrue(during.contains(#""clients":6,"rooms":3"#), "three rooms of two while the calls last: \(during)")
        let after = r.stdout.components(separatedBy: "\n").first { $0.hasPrefix("AFTER: ") } ?? ""
        XCTAssertTrue(after.contains(#""clients":0,"rooms":0"#), "every member left its room: \(after)")
        let clients = try XCTUnwrap(r.value("clients") as? [[String: Any]], context)
        XCTAssertEqual(clients.count, 6, context)
        for c in clients {
            let id = c["id"] as? Int ?? -1
            XCTAssertEqual(c["outcome"] as? String, "left_as_planned", "member \(id): \(c)")
            XCTAssertEqual(c["fps"] as? Double ?? 0, 30, accuracy: 1.5, "member \(id) played the other's 30 fps: \(c)")
            XCTAssertGreaterThanOrEqual(c["keyframes"] as? Int ?? 0, 1, "its first frame was a keyframe: \(c)")
            XCTAssertGreaterThan(c["glass_to_glass_samples"] as? Int ?? 0, 60, "stamps read from the decoded picture: \(c)")
            let p50 = c["glass_to_glass_p50_ms"] as? Double ?? -1
            XCTAssertTrue(p50 > 0 && p50 < 300, "glass-to-glass between the members on loopback: \(c)")
        }
        let encoded = Double(r.int("shared_encoder_frames") ?? 0)
        let received = Double(clients.reduce(0) { $0 + ($1["frames"] as? Int ?? 0) })
        XCTAssertGreaterThan(encoded, 0, context)
        XCTAssertLessThan(encoded, received / 4, "6 members, one encoder: \(encoded) encoded, \(received) received")
        XCTAssertTrue(r.stdout.contains("received by the members in all"), context)
    }

    /// A room that already has two peers is refused by the server (`FULL`): each member sent
    /// there is counted as refused with the server's reason, the run exits 3 and never hangs.
    func testAFullRoomRefusesItsMembers() throws {
        let port = 18762
        let report = FileManager.default.temporaryDirectory.appendingPathComponent("load-rooms-full-\(UUID().uuidString).json").path
        let script = """
            ip link set lo up
            "$SLUICE" serve --port \(port) >/dev/null 2>&1 &
            server=$!
            i=0; until curl -s -m 1 -o /dev/null http://127.0.0.1:\(port)/status.json; do i=$((i+1)); [ $i -lt 200 ] || exit 90; sleep 0.05; done
            curl -s -m 2 -X POST http://127.0.0.1:\(port)/join/busy-0 >/dev/null
            curl -s -m 2 -X POST http://127.0.0.1:\(port)/join/busy-0 >/dev/null
            "$SLUICE" load Pipelines/load-apprtc.yaml --clients 2 --duration 2 \\
              --set 'transport.endpoint=http://127.0.0.1:\(port)' --set transport.room=busy --json '\(report)'
            status=$?
            kill -INT $server 2>/dev/null; wait $server
            exit $status
            """
        let r = try CLI.execute(inNamespace: script, env: ["SLUICE": CLI.binary.path], timeout: 60, reportPath: report)
        let context = "\(r.stdout.suffix(3000))\n\(r.stderr.suffix(2000))"
        XCTAssertEqual(r.status, 3, context)
        let clients = try XCTUnwrap(r.value("clients") as? [[String: Any]], context)
        XCTAssertEqual(clients.count, 2, context)
        for c in clients {
            XCTAssertEqual(c["outcome"] as? String, "refused", "\(c)")
            XCTAssertTrue((c["reason"] as? String ?? "").contains("room 'busy-0' is full"), "the server's own refusal: \(c)")
        }
    }

    /// A crowd of calls split over two processes (`--shard 1/2`, `2/2`): shard 1 runs members 0
    /// and 2, shard 2 members 1 and 3, so each call joins the two processes through the room
    /// server, and the merged report has all four at 30 fps, each reading the stamps the other
    /// process drew.
    func testCallsSpanTwoShardsAndMergeIntoTheWholeCrowd() throws {
        let port = 18763
        let tmp = FileManager.default.temporaryDirectory.appendingPathComponent("load-rooms-shards-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: tmp, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        let script = """
            ip link set lo up
            "$SLUICE" serve --port \(port) >/dev/null 2>&1 &
            server=$!
            i=0; until curl -s -m 1 -o /dev/null http://127.0.0.1:\(port)/status.json; do i=$((i+1)); [ $i -lt 200 ] || exit 90; sleep 0.05; done
            for i in 1 2; do
              "$SLUICE" load Pipelines/load-apprtc.yaml --clients 4 --duration 4 --decode all --shard $i/2 \\
                --set 'transport.endpoint=http://127.0.0.1:\(port)' --quiet --json "$TMP/shard$i.json" > "$TMP/shard$i.out" 2>&1 &
              eval pid$i=\\$!
            done
            wait $pid1; s1=$?; wait $pid2; s2=$?
            echo "SHARDS: $s1 $s2"
            "$SLUICE" load merge "$TMP/shard1.json" "$TMP/shard2.json" --json "$TMP/merged.json"
            kill -INT $server 2>/dev/null; wait $server
            """
        let r = try CLI.execute(inNamespace: script, env: ["SLUICE": CLI.binary.path, "TMP": tmp], timeout: 120, reportPath: "\(tmp)/merged.json")
        let shards = (1...2).map { (try? String(contentsOfFile: "\(tmp)/shard\($0).out", encoding: .utf8)) ?? "" }.joined(separator: "\n")
        let context = "\(r.stdout.suffix(3000))\n\(r.stderr.suffix(2000))\n\(shards.suffix(2000))"
        XCTAssertTrue(r.stdout.contains("SHARDS: 0 0"), context)
        XCTAssertEqual(r.int("overall.clients"), 4, context)
        XCTAssertEqual(r.int("overall.succeeded"), 4, context)
        let clients = try XCTUnwrap(r.value("clients") as? [[String: Any]], context)
        XCTAssertEqual(clients.compactMap { $0["id"] as? Int }.sorted(), [0, 1, 2, 3], "each member once, from both processes")
        for c in clients {
            XCTAssertEqual(c["fps"] as? Double ?? 0, 30, accuracy: 1.5, "each member played its partner in the other process: \(c)")
            XCTAssertGreaterThan(c["glass_to_glass_samples"] as? Int ?? 0, 30, "stamps drawn by the other process: \(c)")
        }
    }

    /// Churn for calls, with each call split over two shards: the oldest call (members 0
    /// and 1, one in each process) leaves, and its replacements (12 and 13, each run by the
    /// process that ran the member it replaces) meet in a room of their own and see each
    /// other's picture, with nobody in either process told about the other.
    func testChurnReplacesAWholeCallAcrossShards() throws {
        let port = 18764
        let tmp = FileManager.default.temporaryDirectory.appendingPathComponent("load-rooms-churn-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: tmp, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        // 12 members, 6 calls, all replaced each minute: one call every 10 s from 1.1 s (the
        // last start), so one replacement at 11.1 s; the crowd's planned end is 15.1 s.
        let script = """
            ip link set lo up
            "$SLUICE" serve --port \(port) >/dev/null 2>&1 &
            server=$!
            i=0; until curl -s -m 1 -o /dev/null http://127.0.0.1:\(port)/status.json; do i=$((i+1)); [ $i -lt 200 ] || exit 90; sleep 0.05; done
            for i in 1 2; do
              "$SLUICE" load Pipelines/load-apprtc.yaml --clients 12 --ramp 10/s --duration 14 --decode all --shard $i/2 \\
                --set 'load.churn=100%' --set 'transport.endpoint=http://127.0.0.1:\(port)' --quiet --json "$TMP/shard$i.json" \\
                > "$TMP/shard$i.out" 2>&1 &
              eval pid$i=\\$!
            done
            wait $pid1; s1=$?; wait $pid2; s2=$?
            echo "SHARDS: $s1 $s2"
            "$SLUICE" load merge "$TMP/shard1.json" "$TMP/shard2.json" --json "$TMP/merged.json"
            echo "AFTER: $(curl -s -m 5 http://127.0.0.1:\(port)/status.json)"
            kill -INT $server 2>/dev/null; wait $server
            """
        let r = try CLI.execute(inNamespace: script, env: ["SLUICE": CLI.binary.path, "TMP": tmp], timeout: 150, reportPath: "\(tmp)/merged.json")
        let shards = (1...2).map { (try? String(contentsOfFile: "\(tmp)/shard\($0).out", encoding: .utf8)) ?? "" }.joined(separator: "\n")
        let context = "\(r.stdout.suffix(3000))\n\(r.stderr.suffix(2000))\n\(shards.suffix(2000))"
        XCTAssertTrue(r.stdout.contains("SHARDS: 0 0"), context)
        let clients = try XCTUnwrap(r.value("clients") as? [[String: Any]], context)
        let byID = Dictionary(clients.compactMap { c in (c["id"] as? Int).map { ($0, c) } }, uniquingKeysWith: { a, _ in a })
        XCTAssertEqual(byID.keys.sorted(), Array(0...13), "the 12 members and the two that replaced the first call: \(context)")
        XCTAssertEqual(clients.filter { $0["churned"] as? Bool == true }.compactMap { $0["id"] as? Int }.sorted(), [0, 1], context)
        for id in [12, 13] {
            let c = try XCTUnwrap(byID[id], context)
            XCTAssertEqual(c["outcome"] as? String, "left_as_planned", "replacement \(id): \(c)")
            XCTAssertEqual(c["fps"] as? Double ?? 0, 30, accuracy: 2, "replacement \(id) played its new partner: \(c)")
            XCTAssertGreaterThan(c["glass_to_glass_samples"] as? Int ?? 0, 30, "stamps from the other process's picture: \(c)")
        }
        for id in 2...11 {
            XCTAssertEqual(byID[id]?["outcome"] as? String, "left_as_planned", "member \(id) stayed its whole call: \(byID[id] ?? [:])")
        }
        let after = r.stdout.components(separatedBy: "\n").first { $0.hasPrefix("AFTER: ") } ?? ""
        XCTAssertTrue(after.contains(#""clients":0,"rooms":0"#), "every member left its room: \(after)")
    }
}
