import Foundation
import SluiceTestSupport
import XCTest

/// `transport.kind: xmpp` end to end: two `sluice run`s log in to a real XMPP server (prosody,
/// started by the test in the namespace, STARTTLS required) and call each other with Jingle.
final class XMPPEndToEndTests: XCTestCase {
    private func env(_ prosody: Prosody, jid: String? = nil) -> [String: String] {
        var env = ["SLUICE_XMPP_SERVER": "127.0.0.1:\(prosody.port)", "SLUICE_XMPP_CA": prosody.certificate, "XMPP_PASSWORD": "pw"]
        if let jid { env["SLUICE_XMPP_JID"] = jid }
        return env
    }

    /// xmpp-answer.yaml (bob) waits; xmpp-call.yaml (alice) calls bob's bare JID, so XEP-0353
    /// finds bob's device first. Video and audio arrive both ways at their sizes, the chat
    /// lines typed into the caller arrive in order, and when bob's run ends its
    /// session-terminate ends alice's run, which says so.
    func testTwoRunsCallEachOtherThroughProsody() throws {
        let prosody = try Prosody(port: 15270, users: ["alice": "pw", "bob": "pw"], tls: .required)
        // bob's file uses the default JID; alice's the file's own. Both get the server and CA.
        let r = try CLI.runPair(
            startServer: prosody.startScript + "\nSLUICE_XMPP_JID=bob@localhost/sluice; export SLUICE_XMPP_JID",
            stopServer: prosody.stopScript,
            first: ["Pipelines/xmpp-call.yaml", "--duration", "14", "--quiet", "--set", "transport.jid=alice@localhost/sluice"],
            second: ["Pipelines/xmpp-answer.yaml", "--duration", "6", "--quiet"],
            firstInput: "hello\nline two\n", env: env(prosody))
        let (caller, callee) = (r.first, r.second)
        XCTAssertEqual(callee.status, 0, callee.stderr)
        XCTAssertEqual(caller.status, 0, caller.stderr)
        XCTAssertEqual(caller.value("session.role") as? String, "caller")
        XCTAssertEqual(callee.value("session.role") as? String, "callee")
        XCTAssertEqual(callee.value("session.peer") as? String, "alice@localhost/sluice")
        XCTAssertEqual(caller.value("session.peer") as? String, "bob@localhost/sluice", "XEP-0353 found bob's device")
        XCTAssertEqual(caller.value("session.id") as? String, callee.value("session.id") as? String)
        // What the caller sends (640x480 + audio) reaches the callee, and the callee's 320x240 the caller.
        XCTAssertGreaterThan(callee.int("receive.video.frames") ?? 0, 60, callee.stdout)
        XCTAssertEqual(callee.int("receive.video.width"), 640)
        XCTAssertEqual(callee.int("receive.video.height"), 480)
        XCTAssertGreaterThan(callee.int("receive.audio.buffers") ?? 0, 100)
        XCTAssertGreaterThan(caller.int("receive.video.frames") ?? 0, 60, caller.stdout)
        XCTAssertEqual(caller.int("receive.video.width"), 320)
        XCTAssertTrue(callee.stdout.contains("[chat] hello\n[chat] line two"), callee.stdout)
        // The callee hung up after 6 s: its session-terminate ended the caller's 14 s run early.
        XCTAssertTrue(
            (caller.value("session.ended_by_peer") as? String)?.contains("bob@localhost/sluice ended the Jingle session (success)") ?? false,
            caller.stdout)
        XCTAssertLessThan(caller.double("duration_s") ?? 99, 12)
    }

    /// Bad input that a user meets: a wrong password, a caller that the callee's `allow` list
    /// does not name (by bare JID: XEP-0353 reject; by full JID: the IQ's `forbidden`). Each is
    /// a clear error at the file's transport; the callee keeps waiting and stops cleanly.
    func testWrongPasswordAndCallersNotAllowedGetClearErrors() throws {
        let prosody = try Prosody(port: 15271, users: ["alice": "pw", "bob": "pw", "mallory": "pw"], tls: .required)
        let tmp = FileManager.default.temporaryDirectory.appendingPathComponent("xmpp-bad-\(UUID().uuidString.prefix(6))").path
        let mallory = "run Pipelines/xmpp-call.yaml --duration 8 --quiet --set transport.jid=mallory@localhost/m"
        let script = """
            ip link set lo up
            \(prosody.startScript)
            XMPP_PASSWORD=wrong "$SLUICE" run Pipelines/xmpp-call.yaml --duration 5 --quiet > /dev/null 2> \(tmp).wrong
            echo "WRONG-STATUS: $?"; echo "WRONG: $(cat \(tmp).wrong)"
            SLUICE_XMPP_JID=bob@localhost/sluice "$SLUICE" run Pipelines/xmpp-answer.yaml --duration 30 --quiet > /dev/null 2>&1 &
            callee=$!
            i=0; until grep -q 'Resource bound: bob@localhost/sluice' \(prosody.log) 2>/dev/null; do i=$((i+1)); [ $i -lt 200 ] || break; sleep 0.05; done
            "$SLUICE" \(mallory) > /dev/null 2> \(tmp).bare
            echo "BARE-STATUS: $?"; echo "BARE: $(cat \(tmp).bare)"
            "$SLUICE" \(mallory) --set transport.peer=bob@localhost/sluice > /dev/null 2> \(tmp).full
            echo "FULL-STATUS: $?"; echo "FULL: $(cat \(tmp).full)"
            kill -INT $callee; wait $callee
            echo "CALLEE-STATUS: $?"
            rm -f \(tmp).*
            \(prosody.stopScript)
            """
        let r = try CLI.execute(
            inNamespace: script,
            env: env(prosody).merging(["SLUICE": CLI.binary.path]) { a, _ in a }, timeout: 120, reportPath: nil)
        let line = { (key: String) in
            r.stdout.components(separatedBy: "\n").first { $0.hasPrefix(key + ": ") }.map { String($0.dropFirst(key.count + 2)) } ?? ""
        }
        XCTAssertEqual(line("WRONG-STATUS"), "3", "a runtime failure: \(r.stdout + r.stderr)")
        XCTAssertTrue(
            line("WRONG").contains("Pipelines/xmpp-call.yaml:11:1: XMPP: the XMPP server refused the login of alice@localhost: wrong password"),
            line("WRONG"))
        XCTAssertNotEqual(line("BARE-STATUS"), "0", r.stdout)
        XCTAssertTrue(line("BARE").contains("bob@localhost declined the call (XEP-0353 reject)"), line("BARE"))
        XCTAssertNotEqual(line("FULL-STATUS"), "0", r.stdout)
        XCTAssertTrue(line("FULL").contains("bob@localhost/sluice refused the call: forbidden: mallory@localhost may not call this peer"), line("FULL"))
        XCTAssertEqual(line("CALLEE-STATUS"), "0", "the callee kept waiting and stopped cleanly: \(r.stdout)")
    }

    /// The server vanishes in the middle of a call: both runs end within seconds with a clear
    /// error (no hang, no crash), as a room's peers do when the room server goes.
    func testAServerThatVanishesMidCallEndsBothRunsWithAClearError() throws {
        let prosody = try Prosody(port: 15273, users: ["alice": "pw", "bob": "pw"], tls: .required)
        let tmp = FileManager.default.temporaryDirectory.appendingPathComponent("xmpp-gone-\(UUID().uuidString.prefix(6))").path
        let script = """
            ip link set lo up
            \(prosody.startScript)
            SLUICE_XMPP_JID=bob@localhost/sluice "$SLUICE" run Pipelines/xmpp-answer.yaml --duration 60 --quiet > /dev/null 2> \(tmp).callee &
            callee=$!
            i=0; until grep -q 'Resource bound: bob@localhost/sluice' \(prosody.log) 2>/dev/null; do i=$((i+1)); [ $i -lt 300 ] || break; sleep 0.05; done
            "$SLUICE" run Pipelines/xmpp-call.yaml --duration 60 --quiet > \(tmp).out 2> \(tmp).caller &
            caller=$!
            i=0; until grep -q 'receive video' \(tmp).out 2>/dev/null || [ $i -ge 1 ]; do i=$((i+1)); sleep 4; done
            kill -9 $prosody
            start=$(date +%s)
            wait $caller; echo "CALLER-STATUS: $?"
            wait $callee; echo "CALLEE-STATUS: $?"
            echo "SECONDS: $(( $(date +%s) - start ))"
            echo "CALLER: $(tr '\\n' ' ' < \(tmp).caller)"; echo "CALLEE: $(tr '\\n' ' ' < \(tmp).callee)"
            rm -f \(tmp).*
            \(prosody.stopScript)
            """
        let r = try CLI.execute(
            inNamespace: script,
            env: env(prosody).merging(["SLUICE": CLI.binary.path, "SLUICE_XMPP_PEER": "bob@localhost/sluice"]) { a, _ in a },
            timeout: 120, reportPath: nil)
        let line = { (key: String) in
            r.stdout.components(separatedBy: "\n").first { $0.hasPrefix(key + ": ") }.map { String($0.dropFirst(key.count + 2)) } ?? ""
        }
        XCTAssertEqual(line("CALLER-STATUS"), "3", r.stdout)
        XCTAssertEqual(line("CALLEE-STATUS"), "3", r.stdout)
        XCTAssertLessThanOrEqual(Int(line("SECONDS")) ?? 99, 15, "both ended soon after the server went: \(r.stdout)")
        for who in ["CALLER", "CALLEE"] {
            XCTAssertTrue(
                line(who).contains("XMPP: the connection to the XMPP server closed")
                    || line(who).contains("XMPP: the XMPP server closed the stream"), "\(who): \(line(who))")
        }
    }
}
