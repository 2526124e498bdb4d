import Foundation
import SluiceTestSupport
import XCTest

/// DNS-SD on the local network against python-zeroconf (PyPI), in a loopback-only namespace
/// with multicast on: `sluice serve --advertise` is seen by zeroconf with its streams and
/// codecs, takes `Name (2)` when zeroconf already holds the name, `sluice discover` lists
/// zeroconf's service and Sluice's, and zeroconf forgets Sluice's when it says goodbye.
final class LANEndToEndTests: XCTestCase {
    func testAdvertiseDiscoverRenameAndGoodbyeWithZeroconf() throws {
        try CLI.requireBrowserTools()
        let check = try CLI.execute(URL(fileURLWithPath: Repository.python), ["-c", "import zeroconf"], env: [:], timeout: 30, reportPath: nil)
        if check.status != 0 { throw CLI.BrowserToolsMissing(missing: ["zeroconf in .venv"]) }
        let script = """
            set -e
            ip link set lo up; ip link set lo multicast on; ip route add 224.0.0.0/4 dev lo
            lan=Tests/Interop/lan/lan_check.py
            "$PYTHON" $lan advertise "Kitchen Camera" --port 9000 --txt streams=porch --seconds 40 > "$TMP/zc.out" &
            zc=$!
            i=0; until grep -q registered "$TMP/zc.out"; do i=$((i+1)); [ $i -lt 150 ] || exit 80; sleep 0.1; done
            "$PYTHON" $lan browse --seconds 30 --until-found "Kitchen Camera (2)" --until-removed "Kitchen Camera (2)" > "$TMP/browse.out" &
            browse=$!
            "$SLUICE" serve --pipeline Pipelines/serve-testsrc.yaml --port 18650 --advertise "Kitchen Camera" > "$TMP/serve.out" 2>&1 &
            serve=$!
            i=0; until grep -q "found" "$TMP/browse.out"; do i=$((i+1)); [ $i -lt 200 ] || { kill $serve; exit 81; }; sleep 0.1; done
            echo DISCOVER:
            "$SLUICE" discover --json --seconds 2
            kill -INT $serve; wait $serve
            wait $browse
            echo BROWSE:; cat "$TMP/browse.out"
            echo SERVE:; cat "$TMP/serve.out"
            kill $zc 2>/dev/null || true
            """
        let tmp = FileManager.default.temporaryDirectory.appendingPathComponent("lan-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: tmp, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        let r = try CLI.execute(
            inNamespace: script,
            env: ["SLUICE": CLI.binary.path, "PYTHON": Repository.python, "TMP": tmp], timeout: 120, reportPath: nil)
        print("LANEndToEnd:", r.stdout, r.stderr.suffix(2000))
        XCTAssertEqual(r.status, 0, r.stderr + r.stdout)
        let discover = r.stdout.components(separatedBy: "DISCOVER:").last?.components(separatedBy: "BROWSE:").first ?? ""
        let found = discover.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let byName = Dictionary(found.map { ($0["name"] as? String ?? "", $0) }, uniquingKeysWith: { a, _ in a })
        // sluice discover sees zeroconf's service and Sluice's renamed one, with their TXT.
        XCTAssertEqual(byName["Kitchen Camera"]?["port"] as? Int, 9000, discover)
        XCTAssertEqual((byName["Kitchen Camera"]?["txt"] as? [String: String])?["streams"], "porch", discover)
        let ours = try XCTUnwrap(byName["Kitchen Camera (2)"], "Sluice took the next DNS-SD name: \(discover)")
        XCTAssertEqual(ours["port"] as? Int, 18650)
        XCTAssertEqual(ours["addresses"] as? [String], ["127.0.0.1"])
        // zeroconf resolved Sluice's advertisement with the streams and codecs, and forgot it
        // at its goodbye.
        let browseLine = r.stdout.components(separatedBy: "BROWSE:").last?.split(separator: "\n").first { $0.hasPrefix("{") } ?? ""
        let browse = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(browseLine.utf8)) as? [String: Any], r.stdout)
        let seen = try XCTUnwrap((browse["seen"] as? [String: Any])?["Kitchen Camera (2)"] as? [String: Any], "\(browse)")
        XCTAssertEqual(seen["port"] as? Int, 18650)
        XCTAssertEqual(seen["txt"] as? [String: String], ["streams": "serve-testsrc", "codecs": "vp8,opus", "path": "/whep/", "v": "1"])
        XCTAssertEqual(browse["removed"] as? [String], ["Kitchen Camera (2)"], "the goodbye removed Sluice's instance only: \(browse)")
        XCTAssertTrue(r.stdout.contains("advertised on the local network as 'Kitchen Camera (2)'"), r.stdout)
    }

    /// Two hosts on one link: namespaces A and B joined by a veth pair with multicast on,
    /// nothing else reachable. In A, `sluice serve --advertise kitchen-camera` and
    /// python-zeroconf advertising "Porch Light"; in B, zeroconf sees Sluice's advertisement
    /// with A's address and the right TXT, `sluice discover` sees zeroconf's service in A, and
    /// `sluice run Pipelines/lan-view.yaml` finds kitchen-camera by name and plays it.
    func testAPlayerFindsAServerOnAnotherHostAcrossAVethLink() throws {
        try CLI.requireBrowserTools()
        let check = try CLI.execute(URL(fileURLWithPath: Repository.python), ["-c", "import zeroconf"], env: [:], timeout: 30, reportPath: nil)
        if check.status != 0 { throw CLI.BrowserToolsMissing(missing: ["zeroconf in .venv"]) }
        let tmp = FileManager.default.temporaryDirectory.appendingPathComponent("lan2-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: tmp, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        let script = """
            set -e
            A=sla$$; B=slb$$
            cleanup() { ip netns del $A 2>/dev/null || true; ip netns del $B 2>/dev/null || true; }
            trap cleanup EXIT
            ip netns add $A; ip netns add $B
            ip link add va$$ type veth peer name vb$$
            ip link set va$$ netns $A; ip link set vb$$ netns $B
            ip -n $A addr add 10.77.0.1/24 dev va$$; ip -n $B addr add 10.77.0.2/24 dev vb$$
            for ns in $A $B; do ip -n $ns link set lo up; done
            ip -n $A link set va$$ up multicast on; ip -n $B link set vb$$ up multicast on
            ip -n $A route add 224.0.0.0/4 dev va$$; ip -n $B route add 224.0.0.0/4 dev vb$$
            # The example files, on the hosts' own addresses instead of loopback.
            sed 's/127.0.0.1/10.77.0.1/' Pipelines/serve-testsrc.yaml > "$TMP/serve.yaml"
            sed 's/127.0.0.1/10.77.0.2/' Pipelines/lan-view.yaml > "$TMP/view.yaml"
            lan=Tests/Interop/lan/lan_check.py
            ip netns exec $A "$PYTHON" $lan advertise "Porch Light" --port 9000 --txt streams=porch --interface 10.77.0.1 --seconds 60 > "$TMP/zc.out" &
            zc=$!
            ip netns exec $A "$SLUICE" serve --pipeline "$TMP/serve.yaml" --host 10.77.0.1 --port 18660 --advertise kitchen-camera > "$TMP/serve.out" 2>&1 &
            serve=$!
            ip netns exec $B "$PYTHON" $lan browse --interface 10.77.0.2 --seconds 15 --until-found kitchen-camera > "$TMP/browse.out" &
            browse=$!
            i=0; until grep -q "found" "$TMP/browse.out"; do i=$((i+1)); [ $i -lt 200 ] || { echo "zeroconf in B never found kitchen-camera"; exit 81; }; sleep 0.1; done
            echo DISCOVER:
            ip netns exec $B "$SLUICE" discover --json --seconds 2
            echo RUN:
            ip netns exec $B "$SLUICE" run "$TMP/view.yaml" --duration 4 --quiet --report "$TMP/report.json" --log-level info 2>&1 | grep -i "found on the local network" || true
            echo REPORT:; tr -d '\\n' < "$TMP/report.json"; echo
            wait $browse || true
            kill -INT $serve; wait $serve || true
            kill $zc 2>/dev/null || true
            echo BROWSE:; cat "$TMP/browse.out"
            """
        let r = try CLI.execute(
            inNamespace: script,
            env: ["SLUICE": CLI.binary.path, "PYTHON": Repository.python, "TMP": tmp], timeout: 120, reportPath: nil)
        XCTAssertEqual(r.status, 0, r.stderr + r.stdout)
        // The player in B found the server in A by name and played it over the link.
        XCTAssertTrue(r.stdout.contains("http://10.77.0.1:18660/whep/serve-testsrc"), r.stdout)
        let reportLine = r.stdout.components(separatedBy: "REPORT:").last?.split(separator: "\n").first ?? ""
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(reportLine.utf8)) as? [String: Any], r.stdout)
        let video = (report["receive"] as? [String: Any])?["video"] as? [String: Any]
        XCTAssertGreaterThan(video?["frames"] as? Int ?? 0, 60, "\(report)")
        XCTAssertEqual(video?["width"] as? Int, 640)
        // zeroconf in B resolved Sluice's advertisement with A's address and the TXT.
        let browseLine = r.stdout.components(separatedBy: "BROWSE:").last?.split(separator: "\n").first { $0.hasPrefix("{") } ?? ""
        let browse = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(browseLine.utf8)) as? [String: Any], r.stdout)
        let seen = try XCTUnwrap((browse["seen"] as? [String: Any])?["kitchen-camera"] as? [String: Any], "\(browse)")
        XCTAssertEqual(seen["addresses"] as? [String], ["10.77.0.1"])
        XCTAssertEqual(seen["port"] as? Int, 18660)
        XCTAssertEqual((seen["txt"] as? [String: String])?["streams"], "serve-testsrc")
        XCTAssertTrue(r.stdout.contains("found kitchen-camera"), r.stdout)
        // sluice discover in B lists zeroconf's service in A, with A's address.
        let discover = r.stdout.components(separatedBy: "DISCOVER:").last?.components(separatedBy: "RUN:").first ?? ""
        let found = discover.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let porch = try XCTUnwrap(found.first { $0["name"] as? String == "Porch Light" }, discover)
        XCTAssertEqual(porch["addresses"] as? [String], ["10.77.0.1"])
        XCTAssertEqual(porch["port"] as? Int, 9000)
        XCTAssertTrue(found.contains { $0["name"] as? String == "kitchen-camera" }, discover)
    }
}
