import Foundation
import SluiceTestSupport
import XCTest

/// Two `sluice serve` replicas (`--instance sluice-0`, `sluice-1`) behind Debian's nginx with
/// `deploy/nginx/replicas.conf` (only the addresses and the port replaced), and a crowd of
/// aiortc viewers (a WebRTC stack nobody here wrote) through the proxy: sessions spread over
/// both, every trickle PATCH and DELETE reaches the replica holding the session, and killing
/// one replica leaves the other's viewers playing.
final class ReplicasBehindNginxTests: XCTestCase {
    override func setUpWithError() throws {
        try CLI.requireBrowserTools()
        if !FileManager.default.isExecutableFile(atPath: "/usr/sbin/nginx") { throw CLI.BrowserToolsMissing(missing: ["nginx"]) }
    }

    static let script = #"""
        ip link set lo up
        mkdir -p "$T"
        sed -e 's/sluice-0.sluice:8443/127.0.0.1:18811/' -e 's/sluice-1.sluice:8443/127.0.0.1:18812/' \
          -e 's/listen 8443;/listen 127.0.0.1:18810;/' deploy/nginx/replicas.conf > "$T/replicas.conf"
        cat > "$T/nginx.conf" <<EOF
        daemon off; pid $T/nginx.pid; error_log $T/error.log;
        events {}
        http {
          log_format sluice '\$request_method \$uri \$status \$upstream_addr';
          access_log $T/access.log sluice;
          client_body_temp_path $T/body; proxy_temp_path $T/proxy;
          include $T/replicas.conf;
        }
        EOF
        "$SLUICE" serve --port 18811 --instance sluice-0 --pipeline Pipelines/serve-av.yaml > "$T/r0.log" 2>&1 & r0=$!
        "$SLUICE" serve --port 18812 --instance sluice-1 --pipeline Pipelines/serve-av.yaml > "$T/r1.log" 2>&1 & r1=$!
        nginx -c "$T/nginx.conf" -p "$T" & ngx=$!
        for p in 18811 18812 18810; do
          i=0; until curl -s -o /dev/null http://127.0.0.1:$p/streams.json; do i=$((i+1)); [ $i -lt 300 ] || { echo "NO-HTTP: $p"; break; }; sleep 0.05; done
        done
        crowd() { "$PYTHON" Tests/Interop/aiortc/aiortc_peer.py whep-crowd http://127.0.0.1:18810/whep/serve-av --decode 0 "$@"; }
        viewers() { curl -s http://127.0.0.1:$1/metrics | sed -n 's/^sluice_stream_viewers{.*} \([0-9]*\).*/\1/p'; }
        echo "T0: $(date +%s)"
        echo "CROWD1: $(crowd --viewers 20 --seconds 4 --patch 2> "$T/crowd1.err" | tail -1)"
        echo "AFTER: $(viewers 18811) $(viewers 18812)"
        echo "LOG: $(grep -E '^(PATCH|DELETE) ' "$T/access.log" | tr '\n' ';')"
        crowd --viewers 6 --seconds 8 > "$T/crowd2" 2> "$T/crowd2.err" & c=$!
        i=0; until grep -q 'viewers connected' "$T/crowd2.err"; do i=$((i+1)); [ $i -lt 300 ] || break; sleep 0.1; done
        kill -KILL $r1; wait $r1 2>/dev/null
        echo "T1: $(date +%s)"
        wait $c; echo "CROWD2: $(tail -1 "$T/crowd2")"
        echo "T2: $(date +%s)"
        echo "ERR: $(tail -c 400 "$T/crowd1.err" "$T/crowd2.err" | tr '\n' ' ')"
        kill -INT $r0; wait $r0; kill $ngx; wait $ngx
        rm -rf "$T"
        """#

    func testSessionsSpreadAndEachRequestReachesItsReplicaAndOneReplicaDyingSparesTheOther() throws {
        let tmp = FileManager.default.temporaryDirectory.appendingPathComponent("replicas-\(UUID().uuidString)").path
        let r = try CLI.execute(
            inNamespace: Self.script, env: ["SLUICE": CLI.binary.path, "PYTHON": Repository.python, "T": tmp], timeout: 240, reportPath: nil)
        var lines: [String: String] = [:]
        for line in r.stdout.components(separatedBy: "\n") {
            guard let colon = line.range(of: ": ") else { continue }
            lines[String(line[..<colon.lowerBound])] = String(line[colon.upperBound...])
        }
        let raw = r.stdout.suffix(6000) + r.stderr.suffix(2000)
        XCTAssertNil(lines["NO-HTTP"], String(raw))
        let first = try XCTUnwrap(lines["CROWD1"].flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) } as? [String: Any], String(raw))
        let locations = first["locations"] as? [String] ?? []
        XCTAssertEqual(locations.count, 20, String(raw))
        let onZero = locations.filter { $0.contains("/whep/serve-av/sluice-0.") }.count
        let onOne = locations.filter { $0.contains("/whep/serve-av/sluice-1.") }.count
        XCTAssertEqual(onZero + onOne, 20, "every Location names its replica: \(locations)")
        XCTAssertGreaterThanOrEqual(min(onZero, onOne), 5, "spread over both: \(onZero) and \(onOne)")
        XCTAssertEqual(first["patch_status"] as? [Int], Array(repeating: 204, count: 20), String(raw))
        XCTAssertEqual(first["delete_status"] as? [Int], Array(repeating: 200, count: 20), String(raw))
        XCTAssertTrue((first["packets"] as? [Int] ?? []).allSatisfy { $0 > 20 }, "media reached every viewer: \(first)")
        XCTAssertEqual(lines["AFTER"], "0 0", "neither replica keeps a session: \(raw)")
        // nginx's own log: each PATCH and DELETE went to the replica its URL names.
        let requests = (lines["LOG"] ?? "").split(separator: ";").map { $0.split(separator: " ").map(String.init) }
        XCTAssertEqual(requests.count, 40, String(raw))
        for request in requests where request.count == 4 {
            let port = request[1].contains("/sluice-0.") ? "18811" : "18812"
            XCTAssertEqual(request[3], "127.0.0.1:\(port)", "\(request)")
            XCTAssertTrue(request[2].hasPrefix("2"), "\(request)")
        }
        // Replica sluice-1 killed while 6 viewers played: sluice-0's viewers go on.
        let second = try XCTUnwrap(lines["CROWD2"].flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) } as? [String: Any], String(raw))
        let where2 = second["locations"] as? [String] ?? []
        let last = second["packets_last_2s"] as? [Int] ?? []
        XCTAssertEqual(where2.count, 6, String(raw))
        XCTAssertTrue(where2.contains { $0.contains("sluice-0.") } && where2.contains { $0.contains("sluice-1.") }, "\(where2)")
        for (location, packets) in zip(where2, last) {
            if location.contains("sluice-0.") {
                XCTAssertGreaterThan(packets, 50, "a viewer of the live replica plays on: \(second)")
            } else {
                XCTAssertEqual(packets, 0, "the killed replica's viewers stopped: \(second)")
            }
        }
        print("replicas: \(onZero) + \(onOne) sessions, 40 PATCH/DELETE routed, the survivor's viewers at \(last) packets in their last 2 s")
    }
}
