import Foundation
import SluiceTestSupport
import XCTest

/// What a load client hears: time to first audio, missing audio per minute (lost packets'
/// sound, from the RTP sequence numbers), and for decoding clients mouth-to-ear and the A/V
/// offset from the stamps `sluice serve` writes into the picture and the sound, merged across
/// clients and drawn in the plot.
final class LoadAudioEndToEndTests: XCTestCase {
    private func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? .nan : sorted[(sorted.count - 1) / 2]
    }

    /// 4 decoding viewers of a stamped picture and tone, half behind `delay 60ms loss 2%`
    /// (the service on a host of its own, as in LoadGroupsEndToEndTests; more loss sometimes
    /// stalls webrtcbin 1.22's DTLS handshake): every viewer hears the tone; only the far ones
    /// miss sound, and never more than the link lost (3 packets of about 500 each in every run
    /// seen, at 2% and 5% loss, 4 at 20%: the count hardly follows the loss, so NACKs repair
    /// nearly all of it; where those 3 go is not explained yet); their mouth-to-ear is about
    /// 60 ms longer; each pairs its stamps with its frames.
    func testEachViewerHearsAndTheFarOnesMissWhatTheLinkLoses() throws {
        let tmp = FileManager.default.temporaryDirectory.appendingPathComponent("load-audio-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: tmp, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        let groups = #"load.groups=[{name: clean, share: 50%}, {name: far, share: 50%, netem: "delay 60ms loss 2%"}]"#
        let script = """
            ip link set lo up
            ip netns add "$SVC"
            ip link add sd0 type veth peer name sd1 netns "$SVC"; ip addr add 10.77.0.1/24 dev sd0; ip link set sd0 up
            ip -n "$SVC" addr add 10.77.0.2/24 dev sd1; ip -n "$SVC" link set sd1 up; ip -n "$SVC" link set lo up
            sed 's/addresses: \\[127.0.0.1\\]/addresses: [10.77.0.2]/' Pipelines/serve-stamped-av.yaml > "$TMP/serve.yaml"
            sed 's/addresses: \\[127.0.0.1\\]/addresses: [10.77.0.1]/' Pipelines/load-whep-av.yaml > "$TMP/load.yaml"
            ip netns exec "$SVC" "$SLUICE" serve --host 0.0.0.0 --port 18752 --pipeline "$TMP/serve.yaml" > "$TMP/serve.out" 2>&1 &
            serve=$!
            i=0; until curl -s -m 1 -o /dev/null http://10.77.0.2:18752/streams.json; do i=$((i+1)); [ $i -lt 200 ] || exit 90; sleep 0.05; done
            SLUICE_WHEP=http://10.77.0.2:18752/whep/serve-stamped-av "$SLUICE" load "$TMP/load.yaml" --set '\(groups)' \\
              --set transport.ice.connect_timeout=30 --clients 4 --duration 10 --decode all --json "$TMP/report.json" --plot "$TMP/plot.svg"
            status=$?
            echo "PLOT: $(grep -c 'id="mouth-to-ear"' "$TMP/plot.svg")"
            kill -INT $serve; wait $serve
            ip netns del "$SVC"
            exit $status
            """
        let r = try CLI.execute(
            inNamespace: script, env: ["SLUICE": CLI.binary.path, "TMP": tmp, "SVC": "svc-\(UUID().uuidString.prefix(8))"], timeout: 120,
            reportPath: "\(tmp)/report.json")
        let context = "\(r.stdout.suffix(4000))\n\(r.stderr.suffix(3000))"
        XCTAssertEqual(r.status, 0, context)
        XCTAssertEqual(r.int("overall.succeeded"), 4, context)
        XCTAssertEqual(r.keyedLines["PLOT"], "1", "the plot has the mouth-to-ear panel: \(context)")
        XCTAssertTrue(r.stdout.contains("mouth-to-ear   p50"), context)
        let clients = try XCTUnwrap(r.value("clients") as? [[String: Any]], context)
        func audio(_ group: String) -> [[String: Any]] {
            clients.filter { $0["group"] as? String == group }.compactMap { $0["audio"] as? [String: Any] }
        }
        XCTAssertEqual(audio("clean").count, 2, "every viewer heard audio: \(context)")
        XCTAssertEqual(audio("far").count, 2, context)
        for a in audio("clean") + audio("far") {
            XCTAssertGreaterThan(a["time_to_first_audio_ms"] as? Double ?? 0, 0, "\(a)")
            XCTAssertGreaterThan(a["packets"] as? Int ?? 0, 300, "10 s of 20 ms packets, less the start: \(a)")
            XCTAssertGreaterThan(a["decoded_ms"] as? Double ?? 0, 6000, "each decoding client decoded the sound it got: \(a)")
            XCTAssertGreaterThanOrEqual(a["av_offset_samples"] as? Int ?? 0, 3, "stamps paired with frames: \(a); \(context)")
        }
        for a in audio("clean") {
            XCTAssertEqual(a["missing_packets"] as? Int, 0, "the clean path loses no sound: \(a)")
            XCTAssertGreaterThanOrEqual(a["mouth_to_ear_samples"] as? Int ?? 0, 15, "a stamp every 400 ms, read: \(a)")
        }
        let perMinute = audio("far").compactMap { $0["missing_ms_per_minute"] as? Double }
        print(
            "missing audio per minute behind 2% loss: \(perMinute) ms; the clean ones: \(audio("clean").compactMap { $0["missing_ms_per_minute"] as? Double })")
        XCTAssertEqual(perMinute.count, 2, context)
        XCTAssertGreaterThan(perMinute.reduce(0, +), 0, "the far link loses sound that is not all repaired: \(audio("far"))")
        for m in perMinute { XCTAssertLessThan(m, 1200, "never more than the 2% lost (1200 ms a minute): \(perMinute)") }
        let clean = median(audio("clean").compactMap { $0["mouth_to_ear_p50_ms"] as? Double })
        let far = median(audio("far").compactMap { $0["mouth_to_ear_p50_ms"] as? Double })
        print("mouth-to-ear p50: clean \(clean) ms, far \(far) ms")
        XCTAssertGreaterThan(far - clean, 40, "the far link's 60 ms show: far \(far), clean \(clean)")
        XCTAssertLessThan(far - clean, 150, "far \(far), clean \(clean)")
        let stamps = (audio("clean") + audio("far")).compactMap { $0["mouth_to_ear_samples"] as? Int }.reduce(0, +)
        XCTAssertEqual(r.int("overall.mouth_to_ear_ms.count"), stamps, "the merged histogram holds every client's stamps")
        XCTAssertGreaterThan(r.int("overall.av_offset_ms.count") ?? 0, 0, context)
    }
}
