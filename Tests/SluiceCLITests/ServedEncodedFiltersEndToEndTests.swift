import Foundation
import SluiceTestSupport
import XCTest

/// Encoded filters in a stream of `sluice serve`: they run once per stream, before the tee
/// viewers hang off, not once per viewer. Proven with `sei` (two viewers, the second joining
/// a second later, read frame numbers from one writer) and `e2ee` on VP8 and H.264 (a viewer with the
/// passphrase sees the picture, one with another sees none; viewers' payloaders do not parse
/// the encrypted frames).
final class ServedEncodedFiltersEndToEndTests: XCTestCase {
    /// Serves `send` (a send section) on `port` and runs two WHEP viewers of `receive` (a
    /// receive section; `$KEY` is set per viewer), the second `lag` seconds after the first.
    private func serveAndPlay(
        port: Int, send: String, receive: String, keys: (String, String) = ("", ""), lag: Double = 0
    ) throws -> (first: CLIResult, second: CLIResult) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-served-encoded-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try "version: 1\nname: s\ntransport: { kind: server, ice: { addresses: [127.0.0.1] } }\n\(send)"
            .write(to: dir.appendingPathComponent("s.yaml"), atomically: true, encoding: .utf8)
        try "version: 1\nname: v\ntransport: { kind: whep, endpoint: \"${SLUICE_WHEP}\", ice: { addresses: [127.0.0.1] } }\n\(receive)"
            .write(to: dir.appendingPathComponent("v.yaml"), atomically: true, encoding: .utf8)
        let script = """
            ip link set lo up
            "$SLUICE" serve --port \(port) --pipeline "$D/s.yaml" >"$D/serve.out" 2>&1 &
            server=$!
            i=0; until curl -s -m 1 -o /dev/null http://127.0.0.1:\(port)/status.json; do i=$((i+1)); [ $i -lt 200 ] || exit 90; sleep 0.05; done
            export SLUICE_WHEP=http://127.0.0.1:\(port)/whep/s
            KEY='\(keys.0)' "$SLUICE" run "$D/v.yaml" --duration 4 --quiet --report "$D/a.json" >/dev/null 2>"$D/a.err" &
            sleep \(lag)
            KEY='\(keys.1)' "$SLUICE" run "$D/v.yaml" --duration 3 --quiet --report "$D/b.json" >/dev/null 2>"$D/b.err"
            wait %2
            kill -INT $server; wait $server
            """
        let r = try CLI.execute(inNamespace: script, env: ["SLUICE": CLI.binary.path, "D": dir.path], timeout: 90, reportPath: nil)
        let errors = ["serve.out", "a.err", "b.err"].map { (try? String(contentsOf: dir.appendingPathComponent($0), encoding: .utf8)) ?? "" }
        XCTAssertEqual(r.status, 0, "\(r.stdout)\(r.stderr)\n\(errors.joined(separator: "\n"))")
        return (CLIResult.report(at: dir.appendingPathComponent("a.json").path), CLIResult.report(at: dir.appendingPathComponent("b.json").path))
    }

    /// The receive side's filter report of `name` (the only one of it in a viewer).
    private func filter(_ name: String, in r: CLIResult) -> [String: Any] {
        (r.report?["filters"] as? [[String: Any]] ?? []).first { $0["filter"] as? String == name } ?? [:]
    }

    func testSEIIsWrittenOncePerStreamForEveryViewer() throws {
        let (a, b) = try serveAndPlay(
            port: 18490,
            send: """
                send:
                  video:
                    capture: { kind: test, width: 320, height: 240, fps: 30 }
                    encode: { codec: h264, bitrate: 500 }
                    encoded_filters:
                      - filter: sei
                        value: 9
                """,
            receive: "receive:\n  video:\n    codecs: [h264]\n    encoded_filters:\n      - filter: sei\n", lag: 1)
        var last: [Double] = []
        for (name, viewer) in [("first", a), ("second", b)] {
            let sei = filter("sei", in: viewer)
            XCTAssertGreaterThan((sei["events"] as? [String: Any])?["sei"] as? Int ?? 0, 45, "\(name) read a message a frame: \(sei)")
            let fields = (sei["last_event_fields"] as? [String: Any])?["sei"] as? [String: Any] ?? [:]
            XCTAssertEqual(fields["value"] as? Double, 9, "\(name): \(fields)")
            last.append(fields["frame"] as? Double ?? -1000)
        }
        // Both stop at the same moment: one writer numbers the frames both got. A writer per
        // viewer would have numbered the later viewer's from its join, a second (30 frames) behind.
        XCTAssertEqual(last[0], last[1], accuracy: 10, "one writer for the stream: last frames \(last)")
    }

    func testAnEncryptedServedStreamIsSeenOnlyWithThePassphrase() throws {
        try checkEncryptedStream(codec: "vp8", port: 18491)
    }

    /// H.264: encrypted after h264parse, each viewer's payloader sends the frames as they are.
    func testAnEncryptedServedH264StreamIsSeenOnlyWithThePassphrase() throws {
        try checkEncryptedStream(codec: "h264", port: 18492)
    }

    private func checkEncryptedStream(codec: String, port: Int) throws {
        let (holder, stranger) = try serveAndPlay(
            port: port,
            send: """
                send:
                  video:
                    capture: { kind: test, width: 320, height: 240, fps: 30 }
                    encode: { codec: \(codec), bitrate: 500 }
                    encoded_filters:
                      - filter: e2ee
                        passphrase: sesame
                """,
            receive: "receive:\n  video:\n    codecs: [\(codec)]\n    encoded_filters:\n      - filter: e2ee\n        passphrase: ${KEY}\n",
            keys: ("sesame", "not-the-key"))
        XCTAssertGreaterThan(holder.int("receive.video.frames") ?? 0, 60, "the key holder sees the picture: \(holder.report ?? [:])")
        XCTAssertEqual(holder.int("receive.video.width"), 320)
        XCTAssertEqual(filter("e2ee", in: holder)["dropped"] as? Int ?? 0, 0, "every frame decrypts: \(filter("e2ee", in: holder))")
        XCTAssertEqual(stranger.int("receive.video.frames"), 0, "another passphrase sees nothing: \(stranger.report ?? [:])")
        let failed = filter("e2ee", in: stranger)
        XCTAssertGreaterThan(failed["dropped"] as? Int ?? 0, 45, "its frames are dropped, not decoded: \(failed)")
    }
}
