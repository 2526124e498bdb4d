import Foundation
import XCTest

/// `sluice serve --cert --key`: HTTPS and WSS with a certificate made for the test.
final class TLSEndToEndTests: XCTestCase {
    func testServeOverHTTPSWithAGivenCertificate() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-tls-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let script = """
            set -e
            ip link set lo up
            openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=127.0.0.1 \
              -addext subjectAltName=IP:127.0.0.1 -keyout '\(dir)/key.pem' -out '\(dir)/cert.pem' 2>/dev/null
            "$SLUICE" serve --port 18470 --cert '\(dir)/cert.pem' --key '\(dir)/key.pem' >/dev/null 2>&1 &
            server=$!
            i=0; until curl -s -m 1 --cacert '\(dir)/cert.pem' -o /dev/null https://127.0.0.1:18470/status.json; do i=$((i+1)); [ $i -lt 200 ] || exit 90; sleep 0.05; done
            echo "STATUS: $(curl -s -m 5 --cacert '\(dir)/cert.pem' https://127.0.0.1:18470/status.json)"
            echo "JOIN: $(curl -s -m 5 --cacert '\(dir)/cert.pem' -X POST https://127.0.0.1:18470/join/tls-room)"
            echo "PLAIN: $(curl -s -m 5 -o /dev/null -w '%{http_code}' http://127.0.0.1:18470/status.json || true)"
            kill -INT $server; wait $server
            """
        let r = try CLI.execute(
            inNamespace: script,
            env: ["SLUICE": CLI.binary.path], timeout: 60, reportPath: nil)
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.contains(#"STATUS: {"camera_sessions":0"#), r.stdout)
        XCTAssertTrue(
            r.stdout.contains(#""wss_url":"wss:\/\/127.0.0.1:18470\/ws""#) || r.stdout.contains(#""wss_url":"wss://127.0.0.1:18470/ws""#),
            "rooms hand out a WSS URL: \(r.stdout)")
        XCTAssertTrue(r.stdout.contains("PLAIN: 000"), "plain HTTP gets no HTTP answer: \(r.stdout)")
    }

    func testUnreadableCertificateIsAClearError() throws {
        let r = try CLI.run(["serve", "--port", "18471", "--cert", "/nonexistent/cert.pem", "--key", "/nonexistent/key.pem"], timeout: 30)
        XCTAssertEqual(r.status, 2, r.stderr)
        XCTAssertTrue(r.stderr.contains("cannot read the certificate /nonexistent/cert.pem"), r.stderr)
        let half = try CLI.run(["serve", "--cert", "/x.pem"], timeout: 30)
        XCTAssertEqual(half.status, 2, half.stderr)
        XCTAssertTrue(half.stderr.contains("--cert and --key go together"), half.stderr)
    }
}
