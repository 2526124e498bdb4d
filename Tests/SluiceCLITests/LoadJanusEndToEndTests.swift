import Foundation
import SluiceTestSupport
import XCTest

/// `sluice load` against Debian's Janus 1.1 (VideoRoom), started by the test in a
/// loopback-only namespace: a crowd of subscribers of a Sluice publisher, and the clients
/// Janus refuses (or that find no Janus) with Janus's own words.
final class LoadJanusEndToEndTests: XCTestCase {
    /// Runs `body` (shell) after Janus started, in one namespace, then stops Janus; the
    /// script's exit status is `$status` as `body` leaves it. `reportPath`: the JSON to read.
    func withJanus(_ janus: Janus, reportPath: String?, timeout: Double = 120, _ body: String) throws -> CLIResult {
        let script = """
            ip link set lo up
            \(janus.startScript)
            waitfor() { i=0; until grep -q "$2" "$1" 2>/dev/null; do i=$((i+1)); [ $i -lt $3 ] || { echo "TIMEOUT: $2"; return 1; }; sleep 0.05; done; }
            status=0
            \(body)
            \(janus.stopScript)
            exit $status
            """
        return try CLI.execute(
            inNamespace: script, env: ["SLUICE": CLI.binary.path, "SLUICE_JANUS": janus.url], timeout: timeout, reportPath: reportPath)
    }

    /// The JSON object a `PREFIX{…}` line of `stdout` carries.
    private static func line(_ prefix: String, in stdout: String) -> [String: Any]? {
        let text = stdout.components(separatedBy: "\n").first { $0.hasPrefix(prefix) }?.dropFirst(prefix.count) ?? ""
        return (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
    }

    func rows(_ report: [String: Any]?, _ context: String) throws -> [[String: Any]] {
        try XCTUnwrap(report?["clients"] as? [[String: Any]], "no clients in the report: \(context)")
    }

    /// One Sluice publisher (30 fps) in room 1234; 10 subscribers ramped at 10/s stay 6 s
    /// each: every one joins through Janus, answers its offer, gets the frame rate the
    /// publisher sent meanwhile (its /metrics) and leaves as planned; the publisher ends cleanly.
    func testACrowdOfSubscribersEachGetsThePublishersPicture() throws {
        try Janus.requireInstalled()
        let janus = Janus(httpPort: 18096, wsPort: 18196)
        let t = FileManager.default.temporaryDirectory.appendingPathComponent("load-janus-\(UUID().uuidString.prefix(6))").path
        defer { for e in ["json", "pub.err"] { try? FileManager.default.removeItem(atPath: "\(t).\(e)") } }
        let r = try withJanus(
            janus, reportPath: "\(t).json",
            """
            SLUICE_JANUS_DISPLAY=cam "$SLUICE" run Pipelines/janus-publish.yaml --duration 90 --quiet --log-level info --metrics 18696 > /dev/null 2> \(t).pub.err &
            p=$!
            waitfor \(t).pub.err 'the publishing PeerConnection is up' 300 || status=97
            sent() { echo "$(curl -s -m 2 http://127.0.0.1:18696/metrics | awk '/^sluice_run_encoded_video_frames_total/ {print $2}') $(date +%s.%N)"; }
            if [ $status = 0 ]; then
              before=$(sent)
              "$SLUICE" load Pipelines/load-janus.yaml --clients 10 --ramp 10/s --duration 6 --decode some --json \(t).json
              status=$?
              echo "PUB-WINDOW: $before $(sent)"
            fi
            kill -INT $p; wait $p; echo "PUB-STATUS: $?"
            echo "PUB-LOG: $(tr '\\n' ' ' < \(t).pub.err | cut -c1-800)"
            """)
        let context = "\(r.stdout.suffix(3000))\n\(r.stderr.suffix(2000))"
        XCTAssertEqual(r.status, 0, context)
        XCTAssertTrue(r.stdout.contains("PUB-STATUS: 0"), context)
        // The publisher's frame rate while the crowd watched: its encoded-frame count (its
        // /metrics) before and after the load, over the time between.
        let window = (r.stdout.components(separatedBy: "\n").first { $0.hasPrefix("PUB-WINDOW: ") } ?? "")
            .dropFirst(12).split(separator: " ").compactMap { Double($0) }
        XCTAssertEqual(window.count, 4, "the publisher's frame count before and after the load: \(context)")
        let publisherFPS = window.count == 4 && window[3] > window[1] ? (window[2] - window[0]) / (window[3] - window[1]) : 0
        XCTAssertGreaterThan(publisherFPS, 10, "the publisher sent (30 fps asked for): \(context)")
        let number = { (v: Any?) in (v as? NSNumber)?.doubleValue }
        XCTAssertEqual(r.int("overall.clients"), 10, context)
        XCTAssertEqual(r.int("overall.succeeded"), 10, context)
        let clients = try rows(r.report, context)
        XCTAssertEqual(clients.count, 10, context)
        var seen: [String] = []
        for c in clients {
            let id = c["id"] as? Int ?? -1, fps = number(c["fps"]) ?? 0
            XCTAssertEqual(c["outcome"] as? String, "left_as_planned", "client \(id): \(c)")
            XCTAssertEqual(fps, publisherFPS, accuracy: 3, "client \(id) got the publisher's frame rate: \(c)")
            let first = try XCTUnwrap(number(c["time_to_first_frame_ms"]), "client \(id) had a first frame: \(c)")
            XCTAssertLessThan(first, 5000, "client \(id): \(c)")
            XCTAssertGreaterThanOrEqual(c["keyframes"] as? Int ?? 0, 1, "client \(id): \(c)")
            seen.append(String(format: "%d: %.1f fps, first frame %.0f ms", id, fps, first))
        }
        print("publisher \(String(format: "%.2f", publisherFPS)) fps; clients: \(seen.joined(separator: "; "))")
    }

    /// A simulcast publisher (`Pipelines/janus-publish-simulcast.yaml`: 640x360, 320x180,
    /// 160x90) and `Pipelines/load-janus-simulcast.yaml`'s crowd in three groups, each asking
    /// Janus for one substream through its group's `transport: {substream: N}`: every client
    /// gets its group's layer, read from the keyframes' own headers (nothing decoded), at the
    /// publisher's frame rate.
    func testEachGroupGetsTheSubstreamItsTransportAsksFor() throws {
        try Janus.requireInstalled()
        let janus = Janus(httpPort: 18099, wsPort: 18199)
        let t = FileManager.default.temporaryDirectory.appendingPathComponent("load-janus-sim-\(UUID().uuidString.prefix(6))").path
        defer { for e in ["json", "pub.err"] { try? FileManager.default.removeItem(atPath: "\(t).\(e)") } }
        let r = try withJanus(
            janus, reportPath: "\(t).json",
            """
            SLUICE_JANUS_DISPLAY=sc "$SLUICE" run Pipelines/janus-publish-simulcast.yaml --duration 90 --quiet --log-level info > /dev/null 2> \(t).pub.err &
            p=$!
            waitfor \(t).pub.err 'the publishing PeerConnection is up' 300 || status=97
            if [ $status = 0 ]; then
              "$SLUICE" load Pipelines/load-janus-simulcast.yaml --clients 6 --ramp 10/s --duration 8 --json \(t).json
              status=$?
            fi
            kill -INT $p; wait $p; echo "PUB-STATUS: $?"
            """)
        let context = "\(r.stdout.suffix(3000))\n\(r.stderr.suffix(2000))"
        XCTAssertEqual(r.status, 0, context)
        XCTAssertEqual(r.int("overall.succeeded"), 6, context)
        let groups = try XCTUnwrap(r.report?["groups"] as? [[String: Any]], context)
        for (name, size) in [("large", "640x360"), ("medium", "320x180"), ("small", "160x90")] {
            let group = try XCTUnwrap(groups.first { $0["group"] as? String == name }, "group \(name): \(groups)")
            XCTAssertEqual(group["video_sizes"] as? [String: Int], [size: 2], "group \(name) got its substream's picture: \(group)")
        }
        for c in try rows(r.report, context) {
            XCTAssertGreaterThan((c["fps"] as? NSNumber)?.doubleValue ?? 0, 20, "client \(c["id"] ?? "?") plays on: \(c)")
        }
        XCTAssertTrue(r.stdout.contains("PUB-STATUS: 0"), context)
    }

    /// A room Janus does not have, an empty room and no Janus at all: every client ends
    /// with the reason in Janus's own words (or says nobody answered), and exit status 3.
    func testRefusedAndUnreachableClientsSayWhy() throws {
        try Janus.requireInstalled()
        let janus = Janus(httpPort: 18097, wsPort: 18197)
        let t = FileManager.default.temporaryDirectory.appendingPathComponent("load-janus-bad-\(UUID().uuidString.prefix(6))").path
        defer { for e in ["nosuch", "empty", "none"] { try? FileManager.default.removeItem(atPath: "\(t).\(e)") } }
        let load = "\"$SLUICE\" load Pipelines/load-janus.yaml --clients 3 --ramp 10/s --duration 5"
        let r = try withJanus(
            janus, reportPath: nil,
            """
            SLUICE_JANUS_ROOM=4321 \(load) --json \(t).nosuch > /dev/null; echo "NOSUCH-STATUS: $?"
            \(load) --json \(t).empty > /dev/null; echo "EMPTY-STATUS: $?"
            SLUICE_JANUS=ws://127.0.0.1:9 \(load) --json \(t).none > /dev/null; echo "NONE-STATUS: $?"
            """)
        let context = "\(r.stdout.suffix(3000))\n\(r.stderr.suffix(2000))"
        func report(_ name: String) -> [String: Any]? {
            FileManager.default.contents(atPath: "\(t).\(name)").flatMap { try? JSONSerialization.jsonObject(with: $0) } as? [String: Any]
        }
        let cases: [(name: String, outcome: String, reason: String)] = [
            ("nosuch", "refused", "Janus refused 'listparticipants': No such room (4321) (error 426)"),
            ("empty", "refused", "Janus: room 1234 has nothing to view: nobody publishes"),
            ("none", "failed_to_connect", "the service did not answer: ")
        ]
        for (name, outcome, reason) in cases {
            XCTAssertTrue(r.stdout.contains("\(name.uppercased())-STATUS: 3"), "\(name): \(context)")
            let clients = try rows(report(name), context)
            XCTAssertEqual(clients.count, 3, "\(name): \(clients)")
            for c in clients {
                XCTAssertEqual(c["outcome"] as? String, outcome, "\(name): \(c)")
                XCTAssertTrue((c["reason"] as? String ?? "").contains(reason), "\(name): \(c)")
            }
            print("\(name): \(clients.first?["reason"] as? String ?? "?")")
        }
    }

    /// 6 publishers (one shared encoder) fill room 1234, whose `publishers` limit is 6; once
    /// Janus itself lists them as publishing, 2 more are refused with Janus's own error (432,
    /// the room is full) and exit 3, while the 6 go on as planned. Meanwhile 2 decoding
    /// subscribers of `sluice-load-0` (a third `sluice load`) read the stamps that publisher's
    /// frames carry through Janus.
    ///
    /// The 2 come after the 6 are up, not in the same ramp: Janus counts a publisher against
    /// the limit once its PeerConnection is up, so on a busy machine 8 publishers ramped
    /// together all got in (seen in CI).
    func testPublishersPastTheRoomsLimitAreRefusedAndTheRestGoOn() throws {
        try Janus.requireInstalled()
        let janus = Janus(httpPort: 18098, wsPort: 18198)
        let t = FileManager.default.temporaryDirectory.appendingPathComponent("load-janus-pub-\(UUID().uuidString.prefix(6))").path
        defer { for e in ["json", "late.json", "view.yaml", "view.json", "room.json"] { try? FileManager.default.removeItem(atPath: "\(t).\(e)") } }
        let view = try String(contentsOfFile: Repository.path("Pipelines/load-janus.yaml"), encoding: .utf8)
            .replacingOccurrences(of: "  subscribe: all", with: "  subscribe: [sluice-load-0]")
        try view.write(toFile: "\(t).view.yaml", atomically: true, encoding: .utf8)
        let r = try withJanus(
            janus, reportPath: "\(t).json",
            """
            out=$(mktemp)
            "$SLUICE" load Pipelines/load-janus-publish.yaml --clients 6 --ramp 10/s --duration 20 --json \(t).json > $out &
            load=$!
            python3 '\(Repository.root.path)/Tests/Interop/janus/videoroom.py' http://127.0.0.1:\(janus.httpPort)/janus \\
                wait-publishers 1234 6 --display sluice-load-0 --timeout 30 > \(t).room.json
            echo "ROOM-STATUS: $?"
            "$SLUICE" load Pipelines/load-janus-publish.yaml --clients 2 --ramp 10/s --duration 3 --json \(t).late.json > /dev/null
            echo "LATE-STATUS: $?"
            echo "LATE: $(tr -d '\\n' < \(t).late.json)"
            "$SLUICE" load \(t).view.yaml --clients 2 --decode all --duration 3 --json \(t).view.json > /dev/null
            echo "VIEW-STATUS: $?"
            echo "VIEW: $(tr -d '\\n' < \(t).view.json)"
            wait $load; status=$?
            cat $out; rm -f $out
            """)
        let context = "\(r.stdout.suffix(3000))\n\(r.stderr.suffix(2000))"
        let room = (try? String(contentsOfFile: "\(t).room.json", encoding: .utf8)) ?? ""
        XCTAssertTrue(r.stdout.contains("ROOM-STATUS: 0"), "Janus lists sluice-load-0 and 5 more as publishing: \(room)")
        XCTAssertEqual(r.status, 0, "the 6 published as planned: \(context)")
        let published = try rows(r.report, context)
        XCTAssertEqual(published.count, 6, context)
        for c in published {
            XCTAssertEqual(c["outcome"] as? String, "left_as_planned", "\(c)")
            XCTAssertEqual((c["fps"] as? NSNumber)?.doubleValue ?? 0, 30, accuracy: 1.5, "each publisher sent 30 fps: \(c)")
        }
        XCTAssertTrue(r.stdout.contains("LATE-STATUS: 3"), "the 2 past the limit: exit 3. \(context)")
        let refused = try rows(Self.line("LATE: ", in: r.stdout), context)
        XCTAssertEqual(refused.count, 2, context)
        for c in refused {
            XCTAssertEqual(c["outcome"] as? String, "refused", "\(c)")
            XCTAssertTrue((c["reason"] as? String ?? "").contains("432"), "Janus's own error: \(c)")
        }
        XCTAssertTrue(r.stdout.contains("VIEW-STATUS: 0"), context)
        for v in try rows(Self.line("VIEW: ", in: r.stdout), context) {
            XCTAssertGreaterThan(v["glass_to_glass_samples"] as? Int ?? 0, 20, "sluice-load-0's stamps, read through Janus: \(v)")
            let p50 = (v["glass_to_glass_p50_ms"] as? NSNumber)?.doubleValue ?? -1
            XCTAssertTrue(p50 > 0 && p50 < 300, "glass-to-glass through Janus on loopback: \(v)")
        }
        print("refused: \(refused.first?["reason"] as? String ?? "?")")
    }
}
