import Foundation
import SluiceTestSupport
import XCTest

/// An encrypted crowd: `sluice load` publishers whose shared send section encrypts (`e2ee`),
/// once for the crowd, with each publisher's VP8 going out through a payloader that does
/// not parse the ciphertext.
extension LoadPublishEndToEndTests {
    /// Two crowds of 2 WHIP publishers, the same file with the same passphrase, at the same
    /// time: one into a `sluice serve --receive` that decrypts with it, one into a server
    /// that has another. Once the first server has decoded 60 frames of each publisher, the
    /// second, whose publishers have been sending as long, has decoded none.
    func testAnEncryptedCrowdIsDecodedOnlyWithItsKey() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("load-e2ee-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try """
        version: 1
        name: recv
        transport: { kind: server, ice: { addresses: [127.0.0.1] } }
        receive:
          video:
            codecs: [vp8]
            encoded_filters:
              - filter: e2ee
                passphrase: ${KEY}
            sink: stats
        """.write(toFile: "\(dir)/recv.yaml", atomically: true, encoding: .utf8)
        let script = """
            ip link set lo up
            KEY=sesame "$SLUICE" serve --port 18761 --receive "$D/recv.yaml" >"$D/serve-18761.out" 2>&1 &
            holder=$!
            KEY=other "$SLUICE" serve --port 18762 --receive "$D/recv.yaml" >"$D/serve-18762.out" 2>&1 &
            stranger=$!
            for port in 18761 18762; do
              i=0; until curl -s -m 1 -o /dev/null http://127.0.0.1:$port/status.json; do i=$((i+1)); [ $i -lt 200 ] || exit 90; sleep 0.05; done
            done
            crowd() {
              "$SLUICE" load Pipelines/load-whip.yaml --clients 2 --ramp 10/s --duration 8 \\
                --set "transport.endpoint=http://127.0.0.1:$1/whip/recv" \\
                --set 'send.video.encoded_filters=[{filter: e2ee, passphrase: sesame}]' >"$D/load-$1.out" 2>&1
            }
            crowd 18761 & a=$!
            crowd 18762 & b=$!
            # Bounded: until both of the key holder's publishers have 60 frames decoded.
            i=0; until [ "$(curl -s -m 1 http://127.0.0.1:18761/whip.json | grep -oE '"video_frames":([6-9][0-9]|[0-9]{3,})' | wc -l)" -ge 2 ]; do
              i=$((i+1)); [ $i -lt 300 ] || break; sleep 0.05
            done
            echo "HOLDER: $(curl -s -m 2 http://127.0.0.1:18761/whip.json)"
            echo "STRANGER: $(curl -s -m 2 http://127.0.0.1:18762/whip.json)"
            wait $a; a=$?; wait $b; b=$?
            echo "LOADS: $a $b"
            kill -INT $holder $stranger; wait $holder $stranger
            """
        let r = try CLI.execute(inNamespace: script, env: ["SLUICE": CLI.binary.path, "D": dir], timeout: 90, reportPath: nil)
        let logs = ["serve-18761.out", "serve-18762.out", "load-18761.out", "load-18762.out"].map {
            (try? String(contentsOfFile: "\(dir)/\($0)", encoding: .utf8))?.suffix(1500) ?? ""
        }
        let context = "\(r.stdout)\n\(r.stderr.suffix(2000))\n\(logs.joined(separator: "\n"))"
        XCTAssertEqual(r.keyedLines["LOADS"], "0 0", "both crowds published to the end: \(context)")
        func sessions(_ key: String) -> [[String: Any]] {
            let json = r.keyedLines[key].flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) } as? [String: Any]
            return json?["sessions"] as? [[String: Any]] ?? []
        }
        XCTAssertEqual(sessions("HOLDER").count, 2, context)
        for s in sessions("HOLDER") {
            XCTAssertGreaterThanOrEqual(s["video_frames"] as? Int ?? 0, 60, "the key holder decodes each publisher: \(s)")
            XCTAssertEqual(s["video_width"] as? Int, 640, "\(s)")
        }
        XCTAssertEqual(sessions("STRANGER").count, 2, context)
        for s in sessions("STRANGER") {
            XCTAssertEqual(s["video_frames"] as? Int, 0, "another passphrase decodes nothing: \(s)")
        }
    }

    /// Load viewers of an encrypted stream (`serve-stamped.yaml` with `e2ee` on its send
    /// side, in H.264 and VP8): 2 decoding viewers with the passphrase in their file's
    /// `receive.video.encoded_filters` decode the picture and read its framestamps; 2 with
    /// another passphrase count no frame (what they drop is neither counted nor decoded).
    func testLoadViewersOfAnEncryptedStreamDecodeOnlyWithTheKey() throws {
        let stamped = try String(contentsOfFile: Repository.path("Pipelines/serve-stamped.yaml"), encoding: .utf8)
        for (codec, port) in [("h264", 18763), ("vp8", 18764)] {
            let base = FileManager.default.temporaryDirectory.appendingPathComponent("load-e2ee-viewers-\(UUID().uuidString)").path
            defer { for end in ["-sesame.json", "-other.json", ".yaml"] { try? FileManager.default.removeItem(atPath: base + end) } }
            let encrypted = stamped.replacingOccurrences(
                of: "encode: { codec: vp8, bitrate: 1000 }",
                with: "encode: { codec: \(codec), bitrate: 1000 }\n    encoded_filters:\n      - filter: e2ee\n        passphrase: sesame")
            XCTAssertNotEqual(encrypted, stamped, "serve-stamped.yaml's encode line")
            try encrypted.write(toFile: base + ".yaml", atomically: true, encoding: .utf8)
            let script = """
                ip link set lo up
                "$SLUICE" serve --port \(port) --pipeline "$D.yaml" >/dev/null 2>&1 &
                server=$!
                i=0; until curl -s -m 1 -o /dev/null http://127.0.0.1:\(port)/status.json; do i=$((i+1)); [ $i -lt 200 ] || exit 90; sleep 0.05; done
                for key in sesame other; do
                  SLUICE_WHEP=http://127.0.0.1:\(port)/whep/serve-stamped "$SLUICE" load Pipelines/load-whep.yaml --clients 2 --decode all \\
                    --duration 4 --set 'receive.video.codecs=[\(codec)]' \\
                    --set "receive.video.encoded_filters=[{filter: e2ee, passphrase: $key}]" --json "$D-$key.json" >/dev/null 2>&1
                  echo "STATUS-$key: $?"
                  echo "REPORT-$key: $(tr -d '\\n' < "$D-$key.json")"
                done
                kill -INT $server; wait $server
                """
            let r = try CLI.execute(inNamespace: script, env: ["SLUICE": CLI.binary.path, "D": base], timeout: 90, reportPath: nil)
            let context = "\(codec): \(r.stdout.suffix(3000))\n\(r.stderr.suffix(2000))"
            func clients(_ key: String) -> [[String: Any]] {
                let json = r.keyedLines["REPORT-\(key)"].flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) } as? [String: Any]
                return json?["clients"] as? [[String: Any]] ?? []
            }
            XCTAssertEqual(r.keyedLines["STATUS-sesame"], "0", context)
            XCTAssertEqual(clients("sesame").count, 2, context)
            for c in clients("sesame") {
                XCTAssertGreaterThan(c["frames"] as? Int ?? 0, 60, "\(codec): a key holder counts the frames: \(c)")
                XCTAssertGreaterThan(c["glass_to_glass_samples"] as? Int ?? 0, 30, "\(codec): and reads the framestamps it decoded: \(c)")
            }
            XCTAssertEqual(clients("other").count, 2, context)
            for c in clients("other") {
                XCTAssertEqual(c["frames"] as? Int ?? -1, 0, "\(codec): another passphrase counts no frame: \(c)")
                XCTAssertEqual(c["glass_to_glass_samples"] as? Int ?? 0, 0, "\(codec): \(c)")
            }
        }
    }
}
