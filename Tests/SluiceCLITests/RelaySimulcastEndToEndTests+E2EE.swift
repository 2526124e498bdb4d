import Foundation
import SluiceTestSupport
import XCTest

/// Simulcast with end-to-end encryption: each layer's frames are encrypted after its own
/// encoder (one `e2ee` per layer, each with its own IV counter), and the relay forwards them
/// as they are, finding each layer's size in the 10 bytes of a VP8 keyframe left in the clear.
extension RelaySimulcastEndToEndTests {
    /// Viewers with the passphrase pinned to `h` and `l` decode those layers' sizes; a viewer
    /// with another passphrase decodes nothing.
    func testEncryptedLayersAreRelayedAndDecodedOnlyWithTheKey() throws {
        let t = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-relay-e2ee-\(UUID().uuidString)").path
        defer { for suffix in ["h.json", "l.json", "x.json", "p.err"] { try? FileManager.default.removeItem(atPath: "\(t).\(suffix)") } }
        let script = """
            ip link set lo up
            "$SLUICE" serve --port 18487 --relay >/dev/null 2>&1 &
            server=$!
            i=0; until curl -s -m 1 -o /dev/null http://127.0.0.1:18487/status.json; do i=$((i+1)); [ $i -lt 200 ] || exit 90; sleep 0.05; done
            SLUICE_WHIP=http://127.0.0.1:18487/whip/live "$SLUICE" run Pipelines/whip-publish-simulcast.yaml --duration 40 --quiet \\
              --set 'send.video.encoded_filters=[{filter: e2ee, passphrase: sesame}]' >/dev/null 2>"$T.p.err" &
            publisher=$!
            i=0; until curl -s -m 1 http://127.0.0.1:18487/streams.json | grep -q '"live":true'; do i=$((i+1)); [ $i -lt 300 ] || exit 91; sleep 0.05; done
            # The smaller layers follow once the server's answer took them (bounded).
            \(Self.waitForLayers(["h", "l"], port: 18487, tries: 300))
            echo "STREAMS: $(curl -s http://127.0.0.1:18487/streams.json)"
            for viewer in h:sesame l:sesame x:guess; do
              layer=${viewer%%:*}; pass=${viewer#*:}; [ "$layer" = x ] && layer=h
              SLUICE_WHEP="http://127.0.0.1:18487/whep/live?layer=$layer" "$SLUICE" run Pipelines/whep-play.yaml --duration 5 --quiet \\
                --set "receive.video.encoded_filters=[{filter: e2ee, passphrase: $pass}]" --report "$T.${viewer%%:*}.json" >/dev/null 2>&1 &
            done
            wait %3 %4 %5
            kill -INT $publisher; wait $publisher
            kill -INT $server; wait $server
            """
        let r = try CLI.execute(inNamespace: script, env: ["SLUICE": CLI.binary.path, "T": t], timeout: 120, reportPath: nil)
        let context =
            "\(r.stdout.suffix(3000))\n\(r.stderr.suffix(2000))\npublisher: \((try? String(contentsOfFile: "\(t).p.err", encoding: .utf8))?.suffix(2000) ?? "")"
        XCTAssertEqual(r.status, 0, context)
        XCTAssertTrue(
            (r.keyedLines["STREAMS"] ?? "").contains(#""height":360,"rid":"h""#), "the relay read the encrypted top layer's size: \(context)")
        for (viewer, width, height) in [("h", 640, 360), ("l", 160, 90)] {
            let report = CLIResult.report(at: "\(t).\(viewer).json")
            XCTAssertEqual(report.int("receive.video.width"), width, "layer \(viewer): \(report.report ?? [:])")
            XCTAssertEqual(report.int("receive.video.height"), height, "layer \(viewer)")
            XCTAssertGreaterThan(report.int("receive.video.frames") ?? 0, 90, "layer \(viewer) decrypts and plays: \(report.report ?? [:])")
        }
        let keyless = CLIResult.report(at: "\(t).x.json")
        XCTAssertNotNil(keyless.report, "the keyless viewer ran to its end: \(context)")
        XCTAssertEqual(keyless.int("receive.video.frames") ?? -1, 0, "no picture without the key: \(keyless.report ?? [:])")
    }
}
