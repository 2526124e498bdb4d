import Foundation
import SluiceTestSupport
import XCTest

/// Sluice's Jingle against a client nobody here wrote the stack of: slixmpp (PyPI) logged in
/// to prosody, with aiortc (PyPI) making the media (Tests/Interop/xmpp/jingle_peer.py; the
/// test's own SDP ⇄ Jingle mapping sits between them).
final class InteropXMPPTests: XCTestCase {
    private var peerScript: String { Repository.path("Tests/Interop/xmpp/jingle_peer.py") }

    private func requirePeers() throws {
        try Prosody.requireInstalled()
        let check = try CLI.execute(URL(fileURLWithPath: Repository.python), ["-c", "import slixmpp, aiortc"], env: [:], timeout: 30, reportPath: nil)
        if check.status != 0 {
            XCTFail("slixmpp and aiortc are not in .venv: run Scripts/install.sh testing")
            throw XCTSkip("slixmpp or aiortc is missing")
        }
    }

    private func output(_ r: CLIResult, _ key: String) -> String {
        r.stdout.components(separatedBy: "\n").first { $0.hasPrefix(key + ": ") }.map { String($0.dropFirst(key.count + 2)) } ?? ""
    }

    /// xmpp-call.yaml calls carol's bare JID: XEP-0353 finds the slixmpp client, which answers
    /// with a session-accept built from aiortc's answer. aiortc decodes Sluice's moving 640x480
    /// picture at about 30 fps, gets the chat line over the data channel and the trickled
    /// candidates, then hangs up: its session-terminate ends Sluice's run, which says so.
    func testSluiceCallsAiortcThroughProsody() throws {
        try requirePeers()
        let prosody = try Prosody(port: 15280, users: ["alice": "pw", "carol": "pw"], tls: .required)
        let report = FileManager.default.temporaryDirectory.appendingPathComponent("xmpp-aio-\(UUID().uuidString.prefix(6)).json").path
        defer { try? FileManager.default.removeItem(atPath: report) }
        let script = """
            ip link set lo up
            \(prosody.startScript)
            "$PYTHON" '\(peerScript)' answer --jid carol@localhost/aiortc --password pw --server 127.0.0.1:\(prosody.port) --ca \(prosody.certificate) --seconds 4 > \(report).peer &
            peer=$!
            i=0; until grep -q 'Resource bound: carol@localhost/aiortc' \(prosody.log) 2>/dev/null; do i=$((i+1)); [ $i -lt 300 ] || break; sleep 0.05; done
            printf 'hello aiortc\\n' | "$SLUICE" run Pipelines/xmpp-call.yaml --duration 30 --quiet --report '\(report)' > /dev/null
            echo "SLUICE-STATUS: $?"
            wait $peer; echo "PEER-STATUS: $?"; echo "PEER: $(cat \(report).peer)"; rm -f \(report).peer
            \(prosody.stopScript)
            """
        let r = try CLI.execute(
            inNamespace: script,
            env: [
                "SLUICE": CLI.binary.path, "PYTHON": Repository.python, "XMPP_PASSWORD": "pw",
                "SLUICE_XMPP_SERVER": "127.0.0.1:\(prosody.port)", "SLUICE_XMPP_CA": prosody.certificate,
                "SLUICE_XMPP_PEER": "carol@localhost"
            ],
            timeout: 120, reportPath: report)
        XCTAssertEqual(output(r, "SLUICE-STATUS"), "0", r.stdout + r.stderr)
        XCTAssertEqual(output(r, "PEER-STATUS"), "0", r.stdout + r.stderr)
        let peer = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(output(r, "PEER").utf8)) as? [String: Any], r.stdout)
        XCTAssertGreaterThan(peer["frames"] as? Int ?? 0, 80, "about 30 fps for 4 s: \(peer)")
        XCTAssertEqual(peer["width"] as? Int, 640)
        XCTAssertEqual(peer["height"] as? Int, 480)
        XCTAssertGreaterThanOrEqual(peer["fps"] as? Double ?? 0, 20)
        XCTAssertEqual(peer["picture_moves"] as? Bool, true, "the ball moves: \(peer)")
        XCTAssertEqual(peer["channel_messages"] as? [String], ["chat:hello aiortc"])
        XCTAssertEqual(peer["jingle_actions_received"] as? [String], ["session-initiate", "transport-info"], "candidates trickled")
        XCTAssertEqual(r.value("session.role") as? String, "caller")
        XCTAssertEqual(r.value("session.peer") as? String, "carol@localhost/aiortc", "XEP-0353: the device that proceeded")
        XCTAssertTrue(
            (r.value("session.ended_by_peer") as? String)?.contains("carol@localhost/aiortc ended the Jingle session (success)") ?? false,
            "\(r.report ?? [:])")
    }

    /// A callee (xmpp-answer.yaml, allowing carol) gets stanzas it must refuse from the foreign
    /// client: each gets XEP-0166's error (or, for an offer it cannot apply, an acknowledgement
    /// and then session-terminate), 200 transport-infos for no session all get answers, and
    /// then a real call from another Sluice still works: one bad caller harms no other.
    func testHostileStanzasGetJingleErrorsAndTheCalleeStillTakesACall() throws {
        try requirePeers()
        let prosody = try Prosody(port: 15281, users: ["alice": "pw", "bob": "pw", "carol": "pw"], tls: .required)
        let report = FileManager.default.temporaryDirectory.appendingPathComponent("xmpp-hostile-\(UUID().uuidString.prefix(6)).json").path
        defer { try? FileManager.default.removeItem(atPath: report) }
        let script = """
            ip link set lo up
            \(prosody.startScript)
            SLUICE_XMPP_JID=bob@localhost/sluice "$SLUICE" run Pipelines/xmpp-answer.yaml --duration 40 --quiet --set 'transport.allow=[carol@localhost, alice@localhost]' --report '\(report)' > /dev/null 2>&1 &
            callee=$!
            i=0; until grep -q 'Resource bound: bob@localhost/sluice' \(prosody.log) 2>/dev/null; do i=$((i+1)); [ $i -lt 300 ] || break; sleep 0.05; done
            echo "HOSTILE: $("$PYTHON" '\(peerScript)' hostile --jid carol@localhost/h --password pw --server 127.0.0.1:\(prosody.port) --ca \(prosody.certificate) --peer bob@localhost/sluice)"
            SLUICE_XMPP_JID=alice@localhost/sluice "$SLUICE" run Pipelines/xmpp-call.yaml --duration 5 --quiet --report '\(report).caller' > /dev/null 2>&1
            echo "CALLER-STATUS: $?"
            echo "CALLER: $(tr -d '\\n' < '\(report).caller')"; rm -f '\(report).caller'
            kill -INT $callee; wait $callee; echo "CALLEE-STATUS: $?"
            \(prosody.stopScript)
            """
        let r = try CLI.execute(
            inNamespace: script,
            env: [
                "SLUICE": CLI.binary.path, "PYTHON": Repository.python, "XMPP_PASSWORD": "pw",
                "SLUICE_XMPP_SERVER": "127.0.0.1:\(prosody.port)", "SLUICE_XMPP_CA": prosody.certificate,
                "SLUICE_XMPP_PEER": "bob@localhost/sluice"
            ],
            timeout: 150, reportPath: report)
        let hostile = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(output(r, "HOSTILE").utf8)) as? [String: Any], r.stdout)
        XCTAssertEqual(hostile["session-initiate without contents"] as? String, "bad-request")
        XCTAssertEqual(hostile["payload type 500"] as? String, "bad-request")
        XCTAssertEqual(hostile["unknown action"] as? String, "bad-request/unsupported-info")
        XCTAssertEqual(hostile["transport-info for an unknown session"] as? String, "item-not-found/unknown-session")
        XCTAssertEqual(hostile["session-accept for an unknown session"] as? String, "item-not-found/unknown-session")
        XCTAssertEqual(hostile["jingle without action or sid"] as? String, "bad-request")
        // XML turns a raw CR/LF in an attribute into spaces, so nothing is injected; the offer
        // (no DTLS fingerprint) is acknowledged, fails to apply, and the call is terminated.
        XCTAssertEqual(hostile["CR/LF in a parameter value"] as? String, "result")
        XCTAssertEqual(hostile["flood of 200 transport-info"] as? [String: Int], ["item-not-found": 200])
        // The callee refused them all and went on to take alice's call.
        XCTAssertEqual(output(r, "CALLER-STATUS"), "0", r.stdout)
        let caller = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(output(r, "CALLER").utf8)) as? [String: Any], r.stdout)
        XCTAssertGreaterThan(((caller["receive"] as? [String: Any])?["video"] as? [String: Any])?["frames"] as? Int ?? 0, 30, "\(caller)")
        XCTAssertEqual(output(r, "CALLEE-STATUS"), "0", r.stdout)
        XCTAssertEqual(r.value("session.peer") as? String, "alice@localhost/sluice")
        let refused = r.value("session.refused") as? [String: Int] ?? [:]
        XCTAssertEqual(refused["item-not-found"], 202, "\(refused)")
        XCTAssertEqual(refused["session-terminate failed-application"], 1, "\(refused)")
        XCTAssertGreaterThan(r.int("receive.video.frames") ?? 0, 30, "the callee decoded alice's call")
    }
}
