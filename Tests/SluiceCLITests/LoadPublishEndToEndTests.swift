import Foundation
import SluiceTestSupport
import XCTest

/// `sluice load` publishers: a crowd of WHIP publishers sharing one capture and one encoder,
/// each into a stream of its own on `sluice serve --relay`, and what a viewer of one of those
/// streams sees (the publishers' framestamps, read after the relay: glass-to-glass through
/// the service).
final class LoadPublishEndToEndTests: XCTestCase {
    /// 6 publishers ramped at 10/s stay 8 s each. While they publish, the server relays 6
    /// streams, and 2 decoding viewers of `load-3` (a second `sluice load`) read the stamps
    /// the publishers' one encoder wrote. Every publisher sends the source's 30 fps, leaves
    /// with a DELETE (the server has no stream left), and the report shows one encode for all.
    func testWHIPPublishersShareOneEncoderAndAViewerSeesTheirPicture() throws {
        let port = 18745
        let report = FileManager.default.temporaryDirectory.appendingPathComponent("load-whip-\(UUID().uuidString).json").path
        let script = """
            ip link set lo up
            "$SLUICE" serve --port \(port) --relay >/dev/null 2>&1 &
            server=$!
            i=0; until curl -s -m 1 -o /dev/null http://127.0.0.1:\(port)/streams.json; do i=$((i+1)); [ $i -lt 200 ] || exit 90; sleep 0.05; done
            out=$(mktemp)
            "$SLUICE" load Pipelines/load-whip.yaml --clients 6 --ramp 10/s --duration 8 \\
              --set 'transport.endpoint=http://127.0.0.1:\(port)/whip/load-{client}' --json '\(report)' >$out &
            load=$!
            # Relayed and live (media flowing): a viewer of a stream whose publisher is still
            # connecting is refused with 422 (a busy CI machine once took longer than this).
            i=0; until curl -s -m 1 http://127.0.0.1:\(port)/streams.json | grep -o '"live":true' | wc -l | grep -q '^6$'; do i=$((i+1)); [ $i -lt 300 ] || break; sleep 0.05; done
            echo "RELAYED: $(curl -s -m 2 http://127.0.0.1:\(port)/streams.json)"
            SLUICE_WHEP=http://127.0.0.1:\(port)/whep/load-3 "$SLUICE" load Pipelines/load-whep.yaml --clients 2 --decode all --duration 3 --json '\(report).viewers'
            echo "VIEWERS-STATUS: $?"
            echo "VIEWERS: $(tr -d '\\n' < '\(report).viewers')"; rm -f '\(report).viewers'
            wait $load; status=$?
            cat $out; rm -f $out
            echo "AFTER: $(curl -s -m 5 http://127.0.0.1:\(port)/streams.json)"
            kill -INT $server 2>/dev/null; wait $server
            exit $status
            """
        let r = try CLI.execute(inNamespace: script, env: ["SLUICE": CLI.binary.path], timeout: 120, reportPath: report)
        let context = "\(r.stdout.suffix(4000))\n\(r.stderr.suffix(2000))"
        XCTAssertEqual(r.status, 0, context)
        XCTAssertEqual(r.value("role") as? String, "publisher", context)
        let clients = try XCTUnwrap(r.value("clients") as? [[String: Any]], context)
        XCTAssertEqual(clients.count, 6, context)
        for c in clients {
            let id = c["id"] as? Int ?? -1
            XCTAssertEqual(c["outcome"] as? String, "left_as_planned", "publisher \(id): \(c)")
            // Within 5% of the source's 30 fps: what each publisher sent.
            XCTAssertEqual(c["fps"] as? Double ?? 0, 30, accuracy: 1.5, "publisher \(id) sent the source's frame rate: \(c)")
            XCTAssertGreaterThanOrEqual(c["keyframes"] as? Int ?? 0, 1, "its first frame was a keyframe: \(c)")
        }
        // One encode for the crowd: the shared encoder made about a sixth of what was sent.
        let encoded = Double(r.int("shared_encoder_frames") ?? 0)
        let sent = Double(clients.reduce(0) { $0 + ($1["frames"] as? Int ?? 0) })
        XCTAssertGreaterThan(encoded, 0, context)
        XCTAssertLessThan(encoded, sent / 4, "6 publishers, one encoder: \(encoded) encoded, \(sent) sent")
        XCTAssertTrue(r.stdout.contains("encoded once"), context)
        let relayed = r.stdout.components(separatedBy: "\n").first { $0.hasPrefix("RELAYED: ") } ?? ""
        for n in 0..<6 { XCTAssertTrue(relayed.contains(#""name":"load-\#(n)""#), "the server relays load-\(n): \(relayed)") }
        // The viewers of load-3: decoded pictures carrying the publishers' stamps.
        XCTAssertTrue(r.stdout.contains("VIEWERS-STATUS: 0"), context)
        let viewersJSON = r.stdout.components(separatedBy: "\n").first { $0.hasPrefix("VIEWERS: ") }?.dropFirst(9) ?? ""
        let viewers = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(viewersJSON.utf8)) as? [String: Any], "the viewers' report: \(context)")
        for v in viewers["clients"] as? [[String: Any]] ?? [] {
            XCTAssertGreaterThan(v["glass_to_glass_samples"] as? Int ?? 0, 30, "stamps read behind the relay: \(v)")
            let p50 = v["glass_to_glass_p50_ms"] as? Double ?? -1
            XCTAssertTrue(p50 > 0 && p50 < 300, "glass-to-glass from publisher to viewer on loopback: \(v)")
        }
        let after = r.stdout.components(separatedBy: "\n").first { $0.hasPrefix("AFTER: ") } ?? ""
        XCTAssertFalse(after.contains(#""live":true"#), "every publisher DELETEd its session: \(after)")
    }

    /// `Pipelines/load-whip-simulcast.yaml`: 3 publishers, each sending three simulcast layers
    /// encoded once for the crowd. The relay finds every publisher's three layers by their rids
    /// and sizes; a viewer held on one publisher's smallest layer decodes its 160x90; each
    /// publisher sent its top layer at the source's rate, and one set of encoders made them all.
    func testSimulcastPublishersShareTheirLayersEncoders() throws {
        let port = 18746
        let t = FileManager.default.temporaryDirectory.appendingPathComponent("load-whip-simulcast-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: "\(t).viewer.json") }
        let script = """
            ip link set lo up
            "$SLUICE" serve --port \(port) --relay >/dev/null 2>&1 &
            server=$!
            i=0; until curl -s -m 1 -o /dev/null http://127.0.0.1:\(port)/streams.json; do i=$((i+1)); [ $i -lt 200 ] || exit 90; sleep 0.05; done
            "$SLUICE" load Pipelines/load-whip-simulcast.yaml --clients 3 --ramp 10/s --duration 10 \\
              --set 'transport.endpoint=http://127.0.0.1:\(port)/whip/load-{client}' --json '\(t).json' >/dev/null &
            load=$!
            i=0; until curl -s -m 1 http://127.0.0.1:\(port)/streams.json | grep -o '"live":true' | wc -l | grep -q '^3$'; do i=$((i+1)); [ $i -lt 300 ] || break; sleep 0.05; done
            echo "RELAYED: $(curl -s -m 2 http://127.0.0.1:\(port)/streams.json)"
            SLUICE_WHEP='http://127.0.0.1:\(port)/whep/load-1?layer=l' "$SLUICE" run Pipelines/whep-play.yaml --duration 3 --quiet --report '\(t).viewer.json' >/dev/null 2>&1
            echo "VIEWER-STATUS: $?"
            wait $load; status=$?
            kill -INT $server 2>/dev/null; wait $server
            exit $status
            """
        let r = try CLI.execute(inNamespace: script, env: ["SLUICE": CLI.binary.path], timeout: 120, reportPath: "\(t).json")
        let context = "\(r.stdout.suffix(4000))\n\(r.stderr.suffix(2000))"
        XCTAssertEqual(r.status, 0, context)
        let relayed = r.keyedLines["RELAYED"] ?? ""
        let layers =
            #""layers":\[\{"height":360,"rid":"h","ssrc":[0-9]+,"width":640\},\{"height":180,"rid":"m","ssrc":[0-9]+,"width":320\},\{"height":90,"rid":"l","ssrc":[0-9]+,"width":160\}\]"#
        let found = relayed.components(separatedBy: "\"name\":\"load-").count - 1
        XCTAssertEqual(found, 3, "three publishers relayed: \(relayed)")
        XCTAssertEqual(
            (try? NSRegularExpression(pattern: layers).numberOfMatches(in: relayed, range: NSRange(relayed.startIndex..., in: relayed))) ?? 0, 3,
            "each publisher's three layers found by rid and size: \(relayed)")
        XCTAssertEqual(r.keyedLines["VIEWER-STATUS"], "0", context)
        let viewer = CLIResult.report(at: "\(t).viewer.json")
        XCTAssertEqual(viewer.int("receive.video.width"), 160, "the smallest layer of one publisher: \(viewer.report ?? [:])")
        XCTAssertEqual(viewer.int("receive.video.height"), 90)
        let clients = try XCTUnwrap(r.value("clients") as? [[String: Any]], context)
        XCTAssertEqual(clients.count, 3, context)
        for c in clients {
            XCTAssertEqual(c["outcome"] as? String, "left_as_planned", "\(c)")
            XCTAssertEqual(c["fps"] as? Double ?? 0, 30, accuracy: 2, "each publisher sent its top layer at the source's rate: \(c)")
        }
        let encoded = Double(r.int("shared_encoder_frames") ?? 0)
        let sent = Double(clients.reduce(0) { $0 + ($1["frames"] as? Int ?? 0) })
        XCTAssertGreaterThan(encoded, 0, context)
        XCTAssertLessThan(encoded, sent / 2, "3 publishers, one set of layer encoders: \(encoded) encoded, \(sent) sent")
    }
}
