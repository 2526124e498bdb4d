import Foundation
import SluiceTestSupport
import XCTest

/// `load.groups` with `netem`: a group's clients run in a namespace of their own behind
/// Sluice's impairing relay, and the report splits every figure by group.
final class LoadGroupsEndToEndTests: XCTestCase {
    /// The nearest-rank median of `values`.
    private func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? .nan : sorted[(sorted.count - 1) / 2]
    }

    /// 6 decoding viewers of `sluice serve`, half of them behind `delay 100ms 10ms loss 2%`
    /// (30 s to connect: a lost DTLS flight waits 1 s, then 2, 4… before webrtcbin 1.22 sends
    /// it again, and at 5% one client in about twenty missed the default 10 s).
    /// All get the stream over UDP (a load client gathers no TCP candidates unless the file
    /// asks: over TCP the loss would be hidden by TCP's own retransmissions); the far half's
    /// glass-to-glass is ~100 ms longer than the clean half's (the conditions are on what the
    /// service sends them), and only they lose packets and ask for them again. The report has
    /// both groups, each client once.
    func testANetemGroupSeesItsOwnConditionsAndTheReportSplitsByGroup() throws {
        let tmp = FileManager.default.temporaryDirectory.appendingPathComponent("load-groups-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: tmp, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        // 2% over 10 s: each far viewer gets ~1000 packets, so it loses some (at 1% over 6 s, one
        // lost none in CI). At 3% a far viewer's DTLS handshake did not finish within 30 s in
        // CI on 2026-11-26 and locally on 2026-12-02 (webrtcbin 1.22's DTLS under loss: not
        // explained yet; the loss applies to the handshake's packets as to every other).
        let groups = #"load.groups=[{name: clean, share: 50%}, {name: far, share: 50%, netem: "delay 100ms 10ms loss 2%"}]"#
        // The service runs on a host of its own (a namespace at 10.77.0.2) with no route to the
        // groups' addresses: the far group reaches it through the load host's NAT, as a crowd
        // behind home routers does.
        let script = """
            ip link set lo up
            echo FORWARDING-BEFORE: $(cat /proc/sys/net/ipv4/ip_forward)
            ip netns add "$SVC"
            ip link add sd0 type veth peer name sd1 netns "$SVC"; ip addr add 10.77.0.1/24 dev sd0; ip link set sd0 up
            ip -n "$SVC" addr add 10.77.0.2/24 dev sd1; ip -n "$SVC" link set sd1 up; ip -n "$SVC" link set lo up
            sed 's/addresses: \\[127.0.0.1\\]/addresses: [10.77.0.2]/' Pipelines/serve-stamped.yaml > "$TMP/serve.yaml"
            sed 's/addresses: \\[127.0.0.1\\]/addresses: [10.77.0.1]/' Pipelines/load-whep.yaml > "$TMP/load.yaml"
            ip netns exec "$SVC" "$SLUICE" serve --host 0.0.0.0 --port 18751 --pipeline "$TMP/serve.yaml" > "$TMP/serve.out" 2>&1 &
            serve=$!
            i=0; until curl -s -m 1 -o /dev/null http://10.77.0.2:18751/streams.json; do i=$((i+1)); [ $i -lt 200 ] || exit 90; sleep 0.05; done
            SLUICE_WHEP=http://10.77.0.2:18751/whep/serve-stamped "$SLUICE" load "$TMP/load.yaml" --set '\(groups)' \\
              --set transport.ice.connect_timeout=30 --clients 6 --ramp 10/s --duration 10 --decode all --quiet --json "$TMP/report.json" &
            load=$!
            wait $load; status=$?
            # Named namespaces are seen across network namespaces: count only this run's
            # (sluice-l<pid % 100000>…, LoadNetemGroups), as another test may run a crowd beside it.
            echo NAMESPACES-LEFT: $(ip netns list | grep -c "^sluice-l$((load % 100000))[rg]")
            echo NAT-LEFT: $(iptables -t nat -S POSTROUTING | grep -c MASQUERADE)
            echo FORWARDING: $(cat /proc/sys/net/ipv4/ip_forward)
            kill -INT $serve; wait $serve
            ip netns del "$SVC"
            exit $status
            """
        let r = try CLI.execute(
            inNamespace: script, env: ["SLUICE": CLI.binary.path, "TMP": tmp, "SVC": "svc-\(UUID().uuidString.prefix(8))"], timeout: 120,
            reportPath: "\(tmp)/report.json")
        let context = "\(r.stdout.suffix(4000))\n\(r.stderr.suffix(3000))"
        XCTAssertEqual(r.status, 0, context)
        XCTAssertEqual(r.int("overall.clients"), 6, context)
        XCTAssertEqual(r.int("overall.succeeded"), 6, context)
        XCTAssertTrue(r.stdout.contains("NAMESPACES-LEFT: 0"), "the group's namespaces are removed: \(context)")
        XCTAssertTrue(r.stdout.contains("NAT-LEFT: 0"), "and its masquerading rule: \(context)")
        let before = r.stdout.components(separatedBy: "FORWARDING-BEFORE: ").last?.prefix(1)
        XCTAssertNotNil(before, context)
        XCTAssertTrue(r.stdout.contains("FORWARDING: \(before ?? "?")"), "and forwarding is as it was before: \(context)")
        let names = (r.value("groups") as? [[String: Any]])?.compactMap { $0["group"] as? String }.sorted()
        XCTAssertEqual(names, ["clean", "far"], context)
        let clients = try XCTUnwrap(r.value("clients") as? [[String: Any]], context)
        XCTAssertEqual(clients.compactMap { $0["id"] as? Int }, Array(0..<6), "each client once, from both processes")
        func of(_ group: String, _ figure: String) -> [Double] {
            clients.filter { $0["group"] as? String == group }.compactMap { $0[figure] as? Double }
        }
        XCTAssertEqual(of("clean", "fps").count, 3, context)
        XCTAssertEqual(of("far", "fps").count, 3, context)
        for fps in of("clean", "fps") + of("far", "fps") { XCTAssertGreaterThan(fps, 20, context) }
        // The delay is on what the service sends the far group: its pictures arrive ~100 ms later.
        let clean = median(of("clean", "glass_to_glass_p50_ms")), far = median(of("far", "glass_to_glass_p50_ms"))
        XCTAssertGreaterThan(far - clean, 80, "far \(far) ms vs clean \(clean) ms: \(context)")
        XCTAssertLessThan(far - clean, 250, "far \(far) ms vs clean \(clean) ms: \(context)")
        // ±10 ms of jitter on the far link shows in the far viewers' RTP jitter.
        let jitter = { (g: String) in clients.filter { $0["group"] as? String == g }.compactMap { ($0["network"] as? [String: Any])?["jitter_ms"] as? Double } }
        XCTAssertGreaterThan(median(jitter("far")), median(jitter("clean")) + 2, "jitter far \(jitter("far")) clean \(jitter("clean"))")
        // Every client's media took UDP, and the far group's loss shows as loss: each far viewer
        // asked for packets again (NACKs; retransmissions then repair most), the clean ones lost none.
        let network = { (g: String) in clients.filter { $0["group"] as? String == g }.compactMap { $0["network"] as? [String: Any] } }
        let paths = (network("clean") + network("far")).map { $0["path"] as? String ?? "none" }
        XCTAssertEqual(paths.filter { $0.hasPrefix("udp ") }.count, 6, "paths: \(paths)")
        for n in network("far") { XCTAssertGreaterThan(n["nacks_sent"] as? Int ?? 0, 0, "a far viewer loses ~2% and asks again: \(n)") }
        for n in network("clean") {
            XCTAssertEqual(n["packets_lost"] as? Int, 0, "the clean path loses nothing: \(n)")
            XCTAssertEqual(n["nacks_sent"] as? Int, 0, "and asks for nothing again: \(n)")
        }
    }

    /// A netem group cannot reach a service on loopback: a clear error before any client.
    func testANetemGroupRefusesALoopbackService() throws {
        let groups = #"load.groups=[{share: 100%, netem: "delay 20ms"}]"#
        let r = try CLI.execute(
            inNamespace: """
                ip link set lo up
                "$SLUICE" load Pipelines/load-whep.yaml --set '\(groups)' --clients 2 --duration 2
                """, env: ["SLUICE": CLI.binary.path], timeout: 60, reportPath: nil)
        XCTAssertEqual(r.status, 3, r.stdout + r.stderr)
        XCTAssertTrue(r.stderr.contains("cannot reach the service at 127.0.0.1"), r.stderr)
        XCTAssertFalse(r.stdout.contains("connected"), "no client started: \(r.stdout)")
    }
}
