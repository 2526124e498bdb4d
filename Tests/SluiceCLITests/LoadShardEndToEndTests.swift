import Foundation
import SluiceTestSupport
import XCTest

/// `sluice load --shard` and `sluice load merge` across hosts: a server in namespace S, two
/// shards of one crowd in namespaces L1 and L2, each joined to S by a veth pair of its own.
final class LoadShardEndToEndTests: XCTestCase {
    /// The nearest-rank percentile of `values`.
    private func percentile(_ values: [Double], _ p: Double) -> Double {
        let sorted = values.sorted()
        let rank = max(1, Int((p / 100 * Double(sorted.count)).rounded(.up)))
        return sorted[min(sorted.count, rank) - 1]
    }

    /// Shards 1/2 and 2/2 of 10 clients run on two hosts; the merged report has every client
    /// once (0…9), all succeeded, and its percentiles are those of all ten clients' own
    /// figures (histograms merged, not percentiles averaged).
    func testTwoShardsOnTwoHostsMergeIntoTheWholeCrowd() throws {
        let tmp = FileManager.default.temporaryDirectory.appendingPathComponent("load-shards-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: tmp, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        let script = """
            set -e
            S=lss$$; L1=ls1$$; L2=ls2$$
            cleanup() { for ns in $S $L1 $L2; do ip netns del $ns 2>/dev/null || true; done; }
            trap cleanup EXIT
            for ns in $S $L1 $L2; do ip netns add $ns; ip -n $ns link set lo up; done
            for i in 1 2; do
              ip link add sv$i$$ type veth peer name lv$i$$
              ip link set sv$i$$ netns $S; eval ip link set lv$i$$ netns \\$L$i
              ip -n $S addr add 10.78.$i.1/24 dev sv$i$$; ip -n $S link set sv$i$$ up
              eval ip -n \\$L$i addr add 10.78.$i.2/24 dev lv$i$$; eval ip -n \\$L$i link set lv$i$$ up
            done
            sed 's/addresses: \\[127.0.0.1\\]/addresses: [10.78.1.1, 10.78.2.1]/' Pipelines/serve-stamped.yaml > "$TMP/serve.yaml"
            ip netns exec $S "$SLUICE" serve --host 0.0.0.0 --port 18731 --pipeline "$TMP/serve.yaml" > "$TMP/serve.out" 2>&1 &
            serve=$!
            i=0; until ip netns exec $L1 curl -s -m 1 -o /dev/null http://10.78.1.1:18731/streams.json; do i=$((i+1)); [ $i -lt 200 ] || exit 90; sleep 0.05; done
            for i in 1 2; do
              sed "s/127.0.0.1\\]/10.78.$i.2]/" Pipelines/load-whep.yaml > "$TMP/load$i.yaml"
              eval ip netns exec \\$L$i env SLUICE_WHEP=http://10.78.$i.1:18731/whep/serve-stamped "$SLUICE" load "$TMP/load$i.yaml" \\
                --clients 10 --ramp 10/s --duration 4 --decode none --shard $i/2 --quiet --json "$TMP/shard$i.json" > "$TMP/shard$i.out" 2>&1 &
              eval pid$i=\\$!
            done
            wait $pid1; wait $pid2
            echo MERGE:
            "$SLUICE" load merge "$TMP/shard1.json" "$TMP/shard2.json" --json "$TMP/merged.json"
            kill -INT $serve; wait $serve || true
            """
        let r = try CLI.execute(inNamespace: script, env: ["SLUICE": CLI.binary.path, "TMP": tmp], timeout: 120, reportPath: "\(tmp)/merged.json")
        let shardOut = (1...2).map { (try? String(contentsOfFile: "\(tmp)/shard\($0).out", encoding: .utf8)) ?? "" }.joined(separator: "\n")
        let context = "\(r.stdout.suffix(3000))\n\(r.stderr.suffix(2000))\n\(shardOut.suffix(3000))"
        XCTAssertEqual(r.status, 0, context)
        XCTAssertEqual(r.int("overall.clients"), 10, context)
        XCTAssertEqual(r.int("overall.succeeded"), 10, context)
        XCTAssertNil(r.value("shard"), "both shards of the crowd: the whole run")
        let clients = try XCTUnwrap(r.value("clients") as? [[String: Any]], context)
        XCTAssertEqual(clients.compactMap { $0["id"] as? Int }, Array(0..<10), "each client once, from both hosts")
        // The merged percentiles are those of all ten clients' own figures (HdrHistogram:
        // 3 significant digits, so within 0.1%).
        for figure in ["connect_ms", "time_to_first_frame_ms", "fps"] {
            let values = clients.compactMap { $0[figure] as? Double }
            XCTAssertEqual(values.count, 10, figure)
            for p in [50.0, 95.0] {
                let merged = try XCTUnwrap(r.double("overall.\(figure).p\(Int(p))"), figure)
                let direct = percentile(values, p)
                XCTAssertEqual(merged, direct, accuracy: max(0.002 * abs(direct), 0.01), "\(figure) p\(Int(p))")
            }
        }
    }
}
