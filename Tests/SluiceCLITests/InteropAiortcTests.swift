import Foundation
import SluiceTestSupport
import XCTest

/// The interop matrix, aiortc column (PyPI `aiortc`, a WebRTC stack nobody here wrote):
/// aiortc plays Sluice over WHEP, publishes to Sluice over WHIP, and serves WHEP to Sluice.
/// Each cell asserts what a user would see: frames at the stream's size and rate (at least
/// 80% of those sent), a picture that moves, and audio.
final class InteropAiortcTests: XCTestCase {
    static let peer = "Tests/Interop/aiortc/aiortc_peer.py"
    static let seconds = 4.0

    override func setUpWithError() throws {
        try CLI.requireBrowserTools()
        let r = try CLI.execute(URL(fileURLWithPath: Repository.python), ["-c", "import aiortc"], env: [:], timeout: 30, reportPath: nil)
        if r.status != 0 { throw CLI.BrowserToolsMissing(missing: ["aiortc in .venv"]) }
    }

    /// aiortc offers VP8 as payload type 97 and H.264 as 99/101: Sluice must answer with
    /// those, with the SSRCs it really sends.
    func testAiortcPlaysSluiceOverWHEP() throws {
        for (codec, port) in [("vp8", 18601), ("h264", 18602)] {
            let r = try CLI.runClientWithServer(
                serve: ["--pipeline", "Pipelines/serve-av.yaml"], port: port,
                client: "\"$PYTHON\" \(Self.peer) whep-play \"$URL/whep/serve-av\" --seconds \(Self.seconds) --codec \(codec)",
                env: ["CODEC": codec], timeout: 90)
            XCTAssertEqual(r.status, 0, "\(codec): \(r.stderr.suffix(4000))")
            let j = try Self.json(r)
            XCTAssertEqual(j["width"] as? Int, 640, codec)
            XCTAssertEqual(j["height"] as? Int, 360, codec)
            XCTAssertGreaterThanOrEqual(j["fps"] as? Double ?? 0, 24, "\(codec): ≥ 80% of 30 fps: \(j)")
            XCTAssertEqual(j["picture_moves"] as? Bool, true, "\(codec): the picture changes: \(j)")
            XCTAssertGreaterThan(j["audio_frames"] as? Int ?? 0, Int(Self.seconds * 25), "\(codec): audio plays: \(j)")
            let ssrcLines = j["answer_ssrc_lines"] as? [String] ?? []
            XCTAssertFalse(ssrcLines.contains { $0.contains("FID 0 ") || $0.hasPrefix("a=ssrc:0 ") }, "no SSRC 0: \(ssrcLines)")
        }
    }

    /// Browsers hide host addresses behind `.local` names in their ICE candidates. aiortc's
    /// offer here carries such a name instead of its address, and python-zeroconf (PyPI)
    /// answers multicast DNS for it on loopback: Sluice resolves the name itself (libnice
    /// cannot) and adds the candidate with the address; the stream plays.
    func testAnOfferWithLocalNameCandidatesIsResolvedByMulticastDNS() throws {
        let r = try CLI.execute(URL(fileURLWithPath: Repository.python), ["-c", "import zeroconf"], env: [:], timeout: 30, reportPath: nil)
        if r.status != 0 { throw CLI.BrowserToolsMissing(missing: ["zeroconf in .venv"]) }
        let name = "\(UUID().uuidString.lowercased()).local"
        let run = try CLI.runClientWithServer(
            serve: ["--pipeline", "Pipelines/serve-av.yaml", "--log-level", "debug"], port: 18604,
            client: """
                ip link set lo multicast on && ip route add 224.0.0.0/4 dev lo && \
                "$PYTHON" \(Self.peer) whep-play "$URL/whep/serve-av" --seconds 3 --mdns-name \(name)
                """, timeout: 90)
        XCTAssertEqual(run.status, 0, run.stderr.suffix(4000).description)
        let j = try Self.json(run)
        XCTAssertEqual(j["width"] as? Int, 640, "\(j)")
        XCTAssertGreaterThanOrEqual(j["fps"] as? Double ?? 0, 24, "\(j)")
        XCTAssertEqual(j["picture_moves"] as? Bool, true, "\(j)")
        let resolved = run.stderr.split(separator: "\n").first { $0.contains("mDNS answer") && $0.contains(name) }
        XCTAssertNotNil(resolved, "the server resolved \(name) with multicast DNS: \(run.stderr.suffix(3000))")
        XCTAssertTrue(resolved?.contains("address=127.0.0.1") ?? false, "\(resolved ?? "")")
    }

    /// aiortc publishes its own encoding of a moving picture (VP8, then H.264) and a tone;
    /// Sluice's receive pipeline decodes them.
    func testAiortcPublishesToSluiceOverWHIP() throws {
        for (codec, port) in [("vp8", 18603), ("h264", 18604)] {
            let client = "\"$PYTHON\" \(Self.peer) whip-publish \"$URL/whip/server\" --seconds \(Self.seconds) --codec \(codec)"
            let r = try CLI.runClientWithServer(serve: ["--receive", "Pipelines/server.yaml"], port: port, client: client, timeout: 90)
            XCTAssertEqual(r.status, 0, "\(codec): \(r.stderr.suffix(4000))")
            let sent = try Self.json(r)["video_frames_sent"] as? Int ?? 0
            let after = try XCTUnwrap(r.stdout.components(separatedBy: "AFTER:").last)
            let whip = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(after.utf8)) as? [String: Any], after)
            let ended = (whip["ended"] as? [String: Any])?["server"] as? [String: Any] ?? [:]
            let decoded = ended["video_frames"] as? Int ?? 0
            XCTAssertGreaterThan(sent, Int(Self.seconds * 24), "\(codec): aiortc sent frames")
            XCTAssertGreaterThanOrEqual(Double(decoded), 0.8 * Double(sent), "\(codec): Sluice decoded ≥ 80% of \(sent): \(after)")
            XCTAssertGreaterThan(ended["audio_buffers"] as? Int ?? 0, Int(Self.seconds * 25), "\(codec): audio arrived: \(after)")
        }
    }

    /// aiortc serves WHEP; `sluice run Pipelines/whep-play.yaml` plays it. aiortc's DTLS
    /// client offers only ECDSA suites: this needs Sluice's ECDSA certificate. The H.264 cell
    /// needs Sluice's offer to say `packetization-mode=1` (aiortc answers VP8 otherwise).
    /// The unrestricted H.264 cell: Sluice offers VP8, VP9 and H.264; aiortc answers as a stack
    /// that knows only H.264 (`--only-codec`), and its answer pairs RTX with it only because
    /// Sluice's offer does (webrtcbin 1.22 alone gives RTX to the first codec only:
    /// `RTXCompletion`).
    func testSluicePlaysAiortcOverWHEP() throws {
        for (codec, port, restrict) in [("vp8", 18605, true), ("h264", 18606, true), ("h264", 18608, false)] {
            let report = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-aiortc-\(UUID().uuidString).json").path
            let script = """
                ip link set lo up
                "$PYTHON" \(Self.peer) whep-serve --port \(port) --seconds 40 --codec \(codec) \(restrict ? "" : "--only-codec") &
                peer=$!
                i=0; until curl -s -m 1 -o /dev/null -X OPTIONS http://127.0.0.1:\(port)/; do i=$((i+1)); [ $i -lt 300 ] || exit 90; sleep 0.05; done
                SLUICE_WHEP=http://127.0.0.1:\(port)/whep/aiortc "$SLUICE" run Pipelines/whep-play.yaml \(restrict ? "--set 'receive.video.codecs=[\(codec)]'" : "") --duration \(Int(Self.seconds) + 1) --quiet --report '\(report)'
                status=$?
                kill $peer; wait $peer
                exit $status
                """
            let r = try CLI.execute(
                inNamespace: script,
                env: ["SLUICE": CLI.binary.path, "PYTHON": Repository.python], timeout: 90, reportPath: report)
            XCTAssertEqual(r.status, 0, "\(codec): \(r.stdout.suffix(2000))\(r.stderr.suffix(3000))")
            XCTAssertEqual(r.int("receive.video.width"), 640, codec)
            XCTAssertEqual(r.int("receive.video.height"), 360, codec)
            XCTAssertGreaterThanOrEqual(r.double("receive.video.fps") ?? 0, 24, "\(codec): \(r.report ?? [:])")
            XCTAssertEqual(r.value("receive.video.codec") as? String, codec)
            XCTAssertGreaterThan(r.int("receive.audio.buffers") ?? 0, Int(Self.seconds * 25), "\(codec): audio")
            let answered = r.stdout.split(separator: "\n").first { $0.hasPrefix("ANSWER_VIDEO ") }
            let answer = try answered.flatMap { try JSONSerialization.jsonObject(with: Data($0.dropFirst(13).utf8)) as? [String: Any] }
            XCTAssertEqual((answer?["codec"] as? String)?.lowercased(), codec, "\(codec): \(r.stdout.suffix(1000))")
            XCTAssertEqual(answer?["rtx"] as? Bool, true, "\(codec) (restricted: \(restrict)): aiortc's answer repairs the chosen codec")
        }
    }

    /// `sluice serve --dtls-cert`: the answer carries the given certificate's fingerprint
    /// (as openssl computes it), and aiortc, which checks it, connects.
    func testAGivenDTLSCertificateIsUsedAndItsFingerprintSignalled() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-cert-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let cert = dir.appendingPathComponent("c.pem").path, key = dir.appendingPathComponent("k.pem").path
        let make = try CLI.execute(
            URL(fileURLWithPath: "/usr/bin/openssl"),
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-keyout", key, "-out", cert, "-days", "2", "-subj", "/CN=sluice-test"
            ], env: [:], timeout: 30, reportPath: nil)
        XCTAssertEqual(make.status, 0, make.stderr)
        let fp = try CLI.execute(
            URL(fileURLWithPath: "/usr/bin/openssl"), ["x509", "-in", cert, "-noout", "-fingerprint", "-sha256"],
            env: [:], timeout: 30, reportPath: nil)
        let expected = try XCTUnwrap(fp.stdout.split(separator: "=").last).trimmingCharacters(in: .whitespacesAndNewlines)
        let r = try CLI.runClientWithServer(
            serve: ["--pipeline", "Pipelines/serve-av.yaml", "--dtls-cert", cert, "--dtls-key", key], port: 18607,
            client: "\"$PYTHON\" \(Self.peer) whep-play \"$URL/whep/serve-av\" --seconds 2", timeout: 90)
        XCTAssertEqual(r.status, 0, r.stderr.suffix(3000) + "")
        let j = try Self.json(r)
        XCTAssertEqual(j["answer_fingerprints"] as? [String], [expected])
        XCTAssertGreaterThan(j["video_frames"] as? Int ?? 0, 30)
    }

    /// An AppRTC-room call: `sluice run Pipelines/room-send.yaml` joins first and offers;
    /// aiortc, driven by the room client in `aiortc_peer.py room-answer`, answers, trickles,
    /// decodes, says bye and leaves; Sluice stops cleanly on the bye.
    func testSluiceCallsAiortcThroughARoom() throws {
        let report = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-room-\(UUID().uuidString).json").path
        let script = """
            ip link set lo up
            "$SLUICE" serve --port 18608 >/dev/null 2>&1 &
            server=$!
            i=0; until curl -s -m 1 -o /dev/null http://127.0.0.1:18608/status.json; do i=$((i+1)); [ $i -lt 300 ] || exit 90; sleep 0.05; done
            SLUICE_ROOM_SERVER=http://127.0.0.1:18608 SLUICE_ROOM=interop "$SLUICE" run Pipelines/room-send.yaml --duration 40 --quiet --report '\(report)' </dev/null &
            run=$!
            i=0; until curl -s -m 1 http://127.0.0.1:18608/status.json | grep -q '"clients":1'; do i=$((i+1)); [ $i -lt 300 ] || exit 91; sleep 0.05; done
            "$PYTHON" \(Self.peer) room-answer http://127.0.0.1:18608 --room interop --seconds \(Self.seconds)
            peer=$?
            wait $run; status=$?
            kill -INT $server; wait $server
            [ $peer -eq 0 ] || exit 92
            exit $status
            """
        let r = try CLI.execute(
            inNamespace: script,
            env: ["SLUICE": CLI.binary.path, "PYTHON": Repository.python], timeout: 90, reportPath: report)
        try assertRoomCall(r, role: "offerer", "the run stops cleanly on the peer's bye")
    }

    /// The other way round: aiortc joins first and offers with its own payload types (VP8
    /// 97, where Sluice's offers use 96); `sluice run Pipelines/room-send.yaml` answers, so
    /// its send branches, built before the offer came, must move to aiortc's choice.
    func testAiortcCallsSluiceThroughARoom() throws {
        let report = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-room-\(UUID().uuidString).json").path
        let script = """
            ip link set lo up
            "$SLUICE" serve --port 18609 >/dev/null 2>&1 &
            server=$!
            i=0; until curl -s -m 1 -o /dev/null http://127.0.0.1:18609/status.json; do i=$((i+1)); [ $i -lt 300 ] || exit 90; sleep 0.05; done
            "$PYTHON" \(Self.peer) room-offer http://127.0.0.1:18609 --room interop2 --seconds \(Self.seconds) &
            peer=$!
            i=0; until curl -s -m 1 http://127.0.0.1:18609/status.json | grep -q '"clients":1'; do i=$((i+1)); [ $i -lt 300 ] || exit 91; sleep 0.05; done
            SLUICE_ROOM_SERVER=http://127.0.0.1:18609 SLUICE_ROOM=interop2 "$SLUICE" run Pipelines/room-send.yaml --duration 40 --quiet --report '\(report)' </dev/null
            status=$?
            wait $peer; peerStatus=$?
            kill -INT $server; wait $server
            [ $peerStatus -eq 0 ] || exit 92
            exit $status
            """
        let r = try CLI.execute(
            inNamespace: script,
            env: ["SLUICE": CLI.binary.path, "PYTHON": Repository.python], timeout: 90, reportPath: report)
        try assertRoomCall(r, role: "answerer", "both ends finish cleanly")
    }

    /// What both room calls check: a clean end, aiortc's picture (640x480, ≥ 24 fps, moving)
    /// and audio, and the run's role and that the other side ended it.
    private func assertRoomCall(
        _ r: CLIResult, role: String, _ why: String,
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        XCTAssertEqual(r.status, 0, "\(why): \(r.stderr.suffix(3000))", file: file, line: line)
        let j = try Self.json(r)
        XCTAssertEqual(j["width"] as? Int, 640, "\(j)", file: file, line: line)
        XCTAssertEqual(j["height"] as? Int, 480, "\(j)", file: file, line: line)
        XCTAssertGreaterThanOrEqual(j["fps"] as? Double ?? 0, 24, "\(j)", file: file, line: line)
        XCTAssertEqual(j["picture_moves"] as? Bool, true, "\(j)", file: file, line: line)
        XCTAssertGreaterThan(j["audio_frames"] as? Int ?? 0, Int(Self.seconds * 25), "\(j)", file: file, line: line)
        XCTAssertEqual(r.value("session.role") as? String, role, "\(r.report ?? [:])", file: file, line: line)
        XCTAssertNotNil(r.value("session.ended_by_peer") as? String, "\(r.report ?? [:])", file: file, line: line)
    }

    static func json(_ r: CLIResult) throws -> [String: Any] {
        let line = r.stdout.components(separatedBy: "AFTER:").first?.split(separator: "\n").last { $0.hasPrefix("{") }
        let j = line.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        return try XCTUnwrap(j, "no JSON line from aiortc_peer.py:\n\(r.stdout.suffix(2000))\n\(r.stderr.suffix(3000))")
    }
}
