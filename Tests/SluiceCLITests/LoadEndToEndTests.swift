import Foundation
import SluiceTestSupport
import XCTest

/// `sluice load` against `sluice serve`: a crowd of WHEP viewers in one process, what each
/// saw, a service that refuses, and a service that dies mid-run.
final class LoadEndToEndTests: XCTestCase {
    /// Serves `Pipelines/serve-stamped.yaml` on `port`, runs `sluice load Pipelines/load-whep.yaml
    /// loadArgs…` against `stream` with `--json`, and then prints the load's output and the
    /// server's `/streams.json` after `AFTER:`. `during`: shell run while the load goes on
    /// (its pid is `$load`, its output so far in `$out`, the server's pid `$server`).
    /// `before` and `after`: shell run first and last in the namespace (a TURN server).
    private func load(
        _ loadArgs: [String], port: Int, stream: String = "serve-stamped", before: String = "", during: String = "",
        after: String = "", timeout: Double = 120
    ) throws -> CLIResult {
        let reportPath = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-load-\(UUID().uuidString).json").path
        let script = """
            ip link set lo up
            \(before)
            "$SLUICE" serve --port \(port) --pipeline Pipelines/serve-stamped.yaml >/dev/null 2>&1 &
            server=$!
            i=0; until curl -s -m 1 -o /dev/null http://127.0.0.1:\(port)/streams.json; do i=$((i+1)); [ $i -lt 200 ] || exit 90; sleep 0.05; done
            out=$(mktemp)
            SLUICE_WHEP=http://127.0.0.1:\(port)/whep/\(stream) "$SLUICE" load Pipelines/load-whep.yaml \(Shell.quote(loadArgs)) --json '\(reportPath)' >$out &
            load=$!
            \(during)
            wait $load; status=$?
            cat $out; rm -f $out
            echo; echo AFTER:; curl -s -m 5 http://127.0.0.1:\(port)/streams.json; echo
            kill -INT $server 2>/dev/null; wait $server
            \(after)
            exit $status
            """
        return try CLI.execute(inNamespace: script, env: ["SLUICE": CLI.binary.path], timeout: timeout, reportPath: reportPath)
    }

    private func rows(_ r: CLIResult) throws -> [[String: Any]] {
        try XCTUnwrap(r.value("clients") as? [[String: Any]], "no clients in the report: \(r.stdout.suffix(2000)) \(r.stderr.suffix(2000))")
    }

    /// 20 viewers ramped at 10/s stay 6 s each: every one connects, gets the stream's 30 fps
    /// without freezing, leaves with a DELETE; the two that decode read framestamps and give
    /// a glass-to-glass delay through the server. `/metrics` shows the whole crowd connected.
    func testACrowdOfViewersEachGetsTheStream() throws {
        let during = """
            i=0; until curl -s -m 1 http://127.0.0.1:18741/metrics | grep -q '^sluice_load_clients_connected 20'; do i=$((i+1)); [ $i -lt 300 ] || break; sleep 0.05; done
            echo METRICS:; curl -s -m 2 http://127.0.0.1:18741/metrics | grep '^sluice_load_'; echo END-METRICS
            """
        let r = try load(
            ["--clients", "20", "--ramp", "10/s", "--duration", "6", "--decode", "some", "--metrics", "18741"], port: 18721, during: during)
        let context = "\(r.stdout.suffix(3000))\n\(r.stderr.suffix(2000))"
        XCTAssertEqual(r.status, 0, context)
        XCTAssertEqual(r.int("overall.clients"), 20, context)
        XCTAssertEqual(r.int("overall.succeeded"), 20, context)
        let clients = try rows(r)
        XCTAssertEqual(clients.count, 20)
        for c in clients {
            let id = c["id"] as? Int ?? -1, fps = c["fps"] as? Double ?? 0
            XCTAssertEqual(c["outcome"] as? String, "left_as_planned", "client \(id): \(c)")
            XCTAssertEqual(fps, 30, accuracy: 3, "client \(id) got the source's 30 fps: \(c)")
            XCTAssertLessThan(c["time_to_first_frame_ms"] as? Double ?? 1e9, 3000, "client \(id): \(c)")
            XCTAssertLessThan(c["connect_ms"] as? Double ?? 1e9, c["time_to_first_frame_ms"] as? Double ?? 0, "connected before the first frame: \(c)")
            XCTAssertGreaterThanOrEqual(c["keyframes"] as? Int ?? 0, 1, "client \(id): \(c)")
            XCTAssertLessThan(c["freeze_ms"] as? Double ?? 1e9, 1000, "client \(id) did not freeze for a second: \(c)")
        }
        // `decode: some`: clients 0 and 10 decode and read the stamps the served stream carries.
        let decoding = clients.filter { $0["decodes"] as? Bool == true }
        XCTAssertEqual(decoding.compactMap { $0["id"] as? Int }.sorted(), [0, 10])
        for c in decoding {
            XCTAssertGreaterThan(c["glass_to_glass_samples"] as? Int ?? 0, 100, "\(c)")
            let p50 = c["glass_to_glass_p50_ms"] as? Double ?? -1
            XCTAssertTrue(p50 > 0 && p50 < 300, "glass-to-glass through the server on loopback: \(c)")
        }
        XCTAssertTrue(r.stdout.contains("20 connected"), "the live line counted the whole crowd: \(context)")
        let metrics = r.stdout.components(separatedBy: "METRICS:").last?.components(separatedBy: "END-METRICS").first ?? ""
        XCTAssertTrue(metrics.contains("sluice_load_clients_connected 20"), "Prometheus saw the whole crowd: \(metrics)")
        let frames = metrics.split(separator: "\n").first { $0.hasPrefix("sluice_load_frames_total ") }
        XCTAssertGreaterThan(Double(frames?.split(separator: " ").last ?? "") ?? 0, 0, "frames counted: \(metrics)")
        let after = r.stdout.components(separatedBy: "AFTER:").last ?? ""
        XCTAssertTrue(after.contains(#""viewers":0"#), "every viewer DELETEd its session: \(after)")
    }

    /// Churn (`load.churn: 100%`, 10 clients: one replaced every 6 s once the crowd has
    /// started): the client connected longest leaves early with a DELETE and a new one takes
    /// its place, gets the stream and stays until the crowd's planned end. Every client, the
    /// replacements too, succeeds; the server saw every session end.
    func testChurnReplacesClientsWhileTheCrowdRuns() throws {
        let r = try load(
            ["--clients", "10", "--ramp", "10/s", "--duration", "14", "--set", "load.churn=100%"], port: 18724, timeout: 90)
        let context = "\(r.stdout.suffix(3000))\n\(r.stderr.suffix(2000))"
        XCTAssertEqual(r.status, 0, context)
        let clients = try rows(r)
        let churned = clients.filter { $0["churned"] as? Bool == true }
        let replacements = clients.filter { ($0["id"] as? Int ?? 0) >= 10 }
        XCTAssertGreaterThanOrEqual(churned.count, 1, "a client left early: \(context)")
        XCTAssertEqual(replacements.count, churned.count, "one replacement for each: \(context)")
        for c in clients {
            XCTAssertEqual(c["outcome"] as? String, "left_as_planned", "\(c)")
            XCTAssertEqual(c["fps"] as? Double ?? 0, 30, accuracy: 3, "\(c)")
        }
        for (gone, new) in zip(churned, replacements) {
            let left = gone["ended_at_s"] as? Double ?? 0, came = new["started_at_s"] as? Double ?? -1
            XCTAssertLessThan(abs(came - left), 1.5, "the replacement came as the churned client left: \(gone) \(new)")
            XCTAssertLessThan(left, 12, "it left before its planned end: \(gone)")
        }
        XCTAssertTrue(r.stdout.contains("churn          \(churned.count) replaced"), context)
        let after = r.stdout.components(separatedBy: "AFTER:").last ?? ""
        XCTAssertTrue(after.contains(#""viewers":0"#) && after.contains(#""deleted":\#(clients.count)"#), "every session DELETEd: \(after)")
    }

    /// aiortc's WHEP endpoint as the service under test (`aiortc_peer.py whep-serve`: each
    /// session its own aiortc PeerConnection and VP8 encoder): 4 viewers connect, get its
    /// 30 fps without freezing, and leave with a DELETE that aiortc answers.
    func testAiortcsWHEPEndpointUnderACrowd() throws {
        try CLI.requireBrowserTools()
        let report = FileManager.default.temporaryDirectory.appendingPathComponent("load-aiortc-\(UUID().uuidString).json").path
        let script = """
            ip link set lo up
            out=$(mktemp)
            "$PYTHON" Tests/Interop/aiortc/aiortc_peer.py whep-serve --port 18762 --seconds 60 --size 320x180 --codec vp8 > $out 2>&1 &
            aiortc=$!
            i=0; until grep -q listening $out; do i=$((i+1)); [ $i -lt 300 ] || exit 90; sleep 0.05; done
            SLUICE_WHEP=http://127.0.0.1:18762/whep/aiortc "$SLUICE" load Pipelines/load-whep.yaml --clients 4 --ramp 10/s --duration 6 --decode some --json '\(report)'
            status=$?
            sleep 0.5; echo "AIORTC: $(grep -c DELETED $out) deleted"
            kill $aiortc; wait $aiortc; rm -f $out
            exit $status
            """
        let r = try CLI.execute(
            inNamespace: script, env: ["SLUICE": CLI.binary.path, "PYTHON": Repository.python], timeout: 90, reportPath: report)
        let context = "\(r.stdout.suffix(3000))\n\(r.stderr.suffix(2000))"
        XCTAssertEqual(r.status, 0, context)
        for c in try rows(r) {
            XCTAssertEqual(c["outcome"] as? String, "left_as_planned", "\(c)")
            XCTAssertEqual(c["fps"] as? Double ?? 0, 30, accuracy: 3, "aiortc's 30 fps: \(c)")
            XCTAssertGreaterThanOrEqual(c["keyframes"] as? Int ?? 0, 1, "\(c)")
            XCTAssertLessThan(c["freeze_ms"] as? Double ?? 1e9, 1000, "\(c)")
        }
        XCTAssertTrue(r.stdout.contains("AIORTC: 4 deleted"), "aiortc ended every session: \(context)")
    }

    /// Relay-only viewers (`ice.policy: relay`) through Debian's coturn: each client gets a
    /// TURN allocation and binds a channel to the server (coturn's own log says so), and still
    /// gets the stream's 30 fps, so TURN is under the crowd's load too.
    func testRelayOnlyViewersThroughCoturn() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/turnserver") else {
            throw CLI.BrowserToolsMissing(missing: ["coturn"])
        }
        let turnLog = FileManager.default.temporaryDirectory.appendingPathComponent("coturn-\(UUID().uuidString).log").path
        defer { try? FileManager.default.removeItem(atPath: turnLog) }
        let coturn = """
            turnserver -n --listening-ip=127.0.0.1 --relay-ip=127.0.0.1 --listening-port=3478 --min-port=50000 --max-port=50999 \\
              --allow-loopback-peers --lt-cred-mech --user=load:secret --realm=sluice --no-tls --no-dtls --no-cli \\
              --pidfile=\(turnLog).pid --log-file=stdout --simple-log -v > \(turnLog) 2>&1 &
            turn=$!
            i=0; until grep -q 'Total General servers' \(turnLog); do i=$((i+1)); [ $i -lt 200 ] || exit 91; sleep 0.05; done
            """
        let r = try load(
            [
                "--clients", "5", "--ramp", "10/s", "--duration", "5", "--set", "transport.ice.policy=relay",
                "--set", "transport.ice.turn=turn://load:secret@127.0.0.1:3478"
            ], port: 18725, before: coturn, after: "kill -KILL $turn; wait $turn 2>/dev/null", timeout: 90)
        let context = "\(r.stdout.suffix(3000))\n\(r.stderr.suffix(2000))"
        XCTAssertEqual(r.status, 0, context)
        for c in try rows(r) {
            XCTAssertEqual(c["outcome"] as? String, "left_as_planned", "\(c)")
            XCTAssertEqual(c["fps"] as? Double ?? 0, 30, accuracy: 3, "the stream, relayed: \(c)")
        }
        let log = (try? String(contentsOfFile: turnLog, encoding: .utf8)) ?? ""
        let bound = Set(
            log.split(separator: "\n").filter { $0.contains("CHANNEL_BIND processed, success") }
                .compactMap { line -> Substring? in
                    // "1: : session 001000000000000002: realm <sluice> user <load>: … CHANNEL_BIND processed, success"
                    let words = line.split(separator: " ")
                    return words.firstIndex(of: "session").flatMap { $0 + 1 < words.count ? words[$0 + 1] : nil }
                })
        XCTAssertGreaterThanOrEqual(bound.count, 5, "every client's allocation bound a channel to the server: \(log.suffix(3000))")
    }

    /// A stream the server does not have: every client is refused with the server's own
    /// error, the report says so, and the exit status is 3.
    /// Client cycles leave nothing per cycle behind: 50 and then 250 viewers (10 a second,
    /// 1 s each, not decoding) through one process each; the process's open files and threads
    /// after the crowd are the same in both (what a run keeps is fixed, not per client), and
    /// its memory grows by less than 100 KiB per extra cycle (a client's pipeline left
    /// behind costs more than 500 KiB). Measured here: +6..10 files, +4..6 threads after
    /// 100, 300 and 600 cycles; memory 22–37 KiB per extra cycle.
    func testClientCyclesLeaveFilesThreadsAndMemoryAtTheirBaseline() throws {
        var ends: [(clients: Int, fds: Double, threads: Double, memory: Double)] = []
        for (n, port) in [(50, 18723), (250, 18724)] {
            let r = try load(["--clients", "\(n)", "--ramp", "10/s", "--duration", "1", "--decode", "none", "--quiet"], port: port, timeout: 150)
            let context = "\(r.stdout.suffix(2000))\n\(r.stderr.suffix(2000))"
            XCTAssertEqual(r.int("overall.succeeded"), n, context)
            let start = try XCTUnwrap(r.value("process.start") as? [String: Any], context)
            let end = try XCTUnwrap(r.value("process.end") as? [String: Any], context)
            func grew(_ key: String) -> Double { ((end[key] as? NSNumber)?.doubleValue ?? .nan) - ((start[key] as? NSNumber)?.doubleValue ?? .nan) }
            ends.append((n, grew("fds"), grew("threads"), grew("memory_mib")))
        }
        let (few, many) = (ends[0], ends[1])
        XCTAssertLessThanOrEqual(abs(many.fds - few.fds), 6, "open files left after \(few.clients) and \(many.clients) cycles: \(ends)")
        XCTAssertLessThanOrEqual(abs(many.threads - few.threads), 4, "threads left: \(ends)")
        let perCycleKiB = (many.memory - few.memory) * 1024 / Double(many.clients - few.clients)
        XCTAssertLessThan(perCycleKiB, 100, "memory per extra client cycle: \(ends)")
    }

    /// Viewers of `sluice serve`'s camera API, whose streams last 3 s unless extended: 6
    /// clients stay 7 s each at the source's 30 fps, so each extended its stream at least
    /// twice; the decoding one reads the framestamps; every stream is stopped at the end.
    func testCameraViewersExtendTheirStreamsWhileTheyStay() throws {
        let tmp = FileManager.default.temporaryDirectory.appendingPathComponent("load-camera-\(UUID().uuidString).json").path
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        let script = """
            ip link set lo up
            "$SLUICE" serve --port 18725 --pipeline Pipelines/serve-stamped.yaml --camera-lifetime 3 > "$TMP.serve" 2>&1 &
            server=$!
            i=0; until curl -s -m 1 -o /dev/null http://127.0.0.1:18725/streams.json; do i=$((i+1)); [ $i -lt 200 ] || exit 90; sleep 0.05; done
            SLUICE_CAMERA=http://127.0.0.1:18725/enterprises/p/devices/serve-stamped "$SLUICE" load Pipelines/load-camera.yaml \\
              --clients 6 --ramp 10/s --duration 7 --decode some --quiet --json "$TMP"
            status=$?
            echo AFTER:; curl -s -m 5 http://127.0.0.1:18725/streams.json; echo
            kill -INT $server; wait $server
            rm -f "$TMP.serve"
            exit $status
            """
        let r = try CLI.execute(inNamespace: script, env: ["SLUICE": CLI.binary.path, "TMP": tmp], timeout: 90, reportPath: tmp)
        let context = "\(r.stdout.suffix(3000))\n\(r.stderr.suffix(2000))"
        XCTAssertEqual(r.status, 0, context)
        XCTAssertEqual(r.int("overall.succeeded"), 6, context)
        for c in try rows(r) {
            XCTAssertEqual(c["outcome"] as? String, "left_as_planned", "lasted past two 3-s leases: \(c)")
            XCTAssertEqual(c["fps"] as? Double ?? 0, 30, accuracy: 3, "\(c)")
            XCTAssertGreaterThan(c["ended_at_s"] as? Double ?? 0, (c["started_at_s"] as? Double ?? 0) + 7, "\(c)")
        }
        let decoding = try rows(r).filter { $0["decodes"] as? Bool == true }
        XCTAssertEqual(decoding.count, 1, context)
        XCTAssertGreaterThan(decoding.first?["glass_to_glass_samples"] as? Int ?? 0, 100, context)
        let after = r.stdout.components(separatedBy: "AFTER:").last ?? ""
        XCTAssertTrue(after.contains(#""viewers":0"#), "every stream stopped: \(after)")
    }

    func testRefusedClientsCarryTheServicesError() throws {
        let r = try load(["--clients", "5", "--ramp", "20/s", "--duration", "5"], port: 18722, stream: "nosuch")
        let context = "\(r.stdout.suffix(3000))\n\(r.stderr.suffix(2000))"
        XCTAssertEqual(r.status, 3, context)
        XCTAssertEqual(r.int("overall.refused"), 5, context)
        for c in try rows(r) {
            XCTAssertEqual(c["outcome"] as? String, "refused", "\(c)")
            XCTAssertTrue((c["reason"] as? String ?? "").contains("404"), "the server's own answer: \(c)")
        }
        XCTAssertTrue(r.stdout.contains("404"), "the summary names the refusal: \(context)")
    }

    /// The server is killed once all 5 clients play (the live line shows 5 connected and
    /// frames arriving): each ends as "service gone" with its
    /// reason, the report keeps what they saw until then, and the run ends long before the
    /// clients' planned 60 s.
    func testAServiceThatDiesMidRunEndsTheRunWithAReport() throws {
        let during = """
            i=0; until grep -Eq ' 5 connected .* [1-9][0-9]* fps' $out; do i=$((i+1)); [ $i -lt 400 ] || break; sleep 0.05; done
            kill -KILL $server
            """
        let r = try load(["--clients", "5", "--ramp", "20/s", "--duration", "60"], port: 18723, during: during, timeout: 60)
        let context = "\(r.stdout.suffix(3000))\n\(r.stderr.suffix(2000))"
        XCTAssertEqual(r.status, 3, context)
        XCTAssertLessThan(r.seconds, 40, "the run ended once the service was gone: \(context)")
        XCTAssertEqual(r.int("overall.service_gone"), 5, context)
        for c in try rows(r) {
            XCTAssertEqual(c["outcome"] as? String, "service_gone", "\(c)")
            XCTAssertFalse((c["reason"] as? String ?? "").isEmpty, "\(c)")
            XCTAssertGreaterThan(c["frames"] as? Int ?? 0, 0, "what it saw before is kept: \(c)")
        }
    }

    /// An endpoint that answers each POST with something broken (garbage, SDP without ICE
    /// credentials, no Location header, absurd media): every client is a failed client with
    /// its reason, the process does not crash or hang, and the exit status is 3.
    func testHostileAnswersAreFailedClientsNotACrash() throws {
        let reportPath = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-load-\(UUID().uuidString).json").path
        let script = """
            ip link set lo up
            python3 Tests/Interop/load/hostile_whep.py 18724 &
            hostile=$!
            i=0; until curl -s -m 1 -o /dev/null -X DELETE http://127.0.0.1:18724/x; do i=$((i+1)); [ $i -lt 200 ] || exit 90; sleep 0.05; done
            SLUICE_WHEP=http://127.0.0.1:18724/whep/hostile "$SLUICE" load Pipelines/load-whep.yaml --clients 8 --ramp 20/s --duration 5 --json '\(reportPath)'
            status=$?
            kill $hostile
            exit $status
            """
        let r = try CLI.execute(inNamespace: script, env: ["SLUICE": CLI.binary.path], timeout: 90, reportPath: reportPath)
        let context = "\(r.stdout.suffix(3000))\n\(r.stderr.suffix(2000))"
        XCTAssertEqual(r.status, 3, context)
        XCTAssertLessThan(r.seconds, 40, "no client hung: \(context)")
        XCTAssertEqual(r.int("overall.failed_to_connect"), 8, context)
        let reasons = try rows(r).map { $0["reason"] as? String ?? "" }
        XCTAssertEqual(reasons.count, 8)
        XCTAssertTrue(reasons.allSatisfy { !$0.isEmpty }, "\(reasons)")
        XCTAssertTrue(reasons.contains { $0.contains("bad SDP") }, "the garbage answer is named: \(reasons)")
        XCTAssertTrue(reasons.contains { $0.contains("Location") }, "the missing Location is named: \(reasons)")
    }
}
