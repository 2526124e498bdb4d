import Foundation
import SluiceTestSupport
import XCTest

/// `transport.kind: janus` end to end against Debian's Janus 1.1 (VideoRoom), started by the
/// test in a loopback-only namespace: Sluice publishers and a Sluice multistream subscriber
/// in one room, and the errors users meet.
final class JanusEndToEndTests: XCTestCase {
    /// Runs `body` (shell) after Janus started, in one namespace; returns its stdout lines as KEY: VALUE.
    func inRoom(_ janus: Janus, timeout: Double = 120, _ body: String) throws -> (lines: [String: String], raw: String) {
        let script = """
            ip link set lo up
            \(janus.startScript)
            waitfor() { i=0; until grep -q "$2" "$1" 2>/dev/null; do i=$((i+1)); [ $i -lt $3 ] || { echo "TIMEOUT: $2"; return 1; }; sleep 0.05; done; }
            \(body)
            \(janus.stopScript)
            """
        let r = try CLI.execute(
            inNamespace: script,
            env: ["SLUICE": CLI.binary.path, "SLUICE_JANUS": janus.url], timeout: timeout, reportPath: nil)
        var lines: [String: String] = [:]
        for line in r.stdout.components(separatedBy: "\n") {
            guard let colon = line.range(of: ": ") else { continue }
            lines[String(line[..<colon.lowerBound])] = String(line[colon.upperBound...])
        }
        return (lines, r.stdout + r.stderr)
    }

    /// Shell decoding the sound of `mkv` and printing `AUDIO-STATUS: …` and `TONES: {json}`: over
    /// its last second, the spectrum's peak near 500, 1200 and 800 Hz divided by its median.
    func tones(mkv: String) -> String {
        """
        gst-launch-1.0 -q filesrc location=\(mkv) ! matroskademux name=d d.audio_0 ! queue ! decodebin ! audioconvert ! audioresample ! audio/x-raw,format=S16LE,channels=1,rate=48000 ! filesink location=\(mkv).pcm
        echo "AUDIO-STATUS: $?"
        echo "TONES: $('\(Repository.python)' -c '
        import json, numpy, sys
        pcm = numpy.fromfile(sys.argv[1], dtype="<i2").astype(float)[-48000:]
        spectrum = numpy.abs(numpy.fft.rfft(pcm * numpy.hanning(len(pcm))))
        floor = float(numpy.median(spectrum)) or 1.0
        at = lambda hz: float(spectrum[int(hz * len(pcm) / 48000) - 3:int(hz * len(pcm) / 48000) + 4].max()) / floor
        print(json.dumps({"seconds": len(pcm) / 48000, "500": at(500), "1200": at(1200), "800": at(800)}))' \(mkv).pcm)"
        rm -f \(mkv).pcm
        """
    }

    /// Asserts the TONES line holds both publishers' tones (500 and 1200 Hz) well above the floor.
    func assertBothTones(_ lines: [String: String], _ raw: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(lines["AUDIO-STATUS"], "0", raw, file: file, line: line)
        let tones = (lines["TONES"].flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) } as? [String: Double]) ?? [:]
        print("room mix, peak over the spectrum's median at 500 / 1200 / 800 Hz: \(tones)")
        XCTAssertGreaterThan(tones["seconds"] ?? 0, 0.9, "\(tones)", file: file, line: line)
        XCTAssertGreaterThan(tones["500"] ?? 0, 100, "cam-a's 500 Hz is in the mix: \(tones)", file: file, line: line)
        XCTAssertGreaterThan(tones["1200"] ?? 0, 100, "cam-b's 1200 Hz is in the mix: \(tones)", file: file, line: line)
        XCTAssertLessThan(tones["800"] ?? .infinity, (tones["500"] ?? 0) / 20, "nothing where nobody sent: \(tones)", file: file, line: line)
    }

    func report(_ path: String) -> [String: Any] {
        (FileManager.default.contents(atPath: path).flatMap { try? JSONSerialization.jsonObject(with: $0) } as? [String: Any]) ?? [:]
    }

    /// Two publishers (640x360 and 320x240) and one multistream subscriber in room 1234. The
    /// subscriber receives both over one PeerConnection, each at its own size; when cam-b
    /// leaves, its streams are marked as left and the log says so; a third publisher (160x120)
    /// joining later is picked up by the same subscription.
    /// The README's Janus lines, beside the throwaway Janus `Scripts/janus-sandbox.sh` starts
    /// (it makes its own namespace: the test runs it directly, not inside another).
    func testTheREADMEsJanusLinesWorkBesideTheSandboxJanus() throws {
        try Janus.requireInstalled()
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("janus-publish-\(UUID().uuidString).log").path
        let lines = """
            "$SLUICE" run Pipelines/janus-publish.yaml --set 'send.video.filters=[{filter: framestamp}]' --duration 25 > '\(log)' 2>&1 &
            i=0; until grep -qE 'ice (connected|completed)' '\(log)'; do i=$((i+1)); [ $i -lt 400 ] || { cat '\(log)'; exit 90; }; sleep 0.05; done
            "$SLUICE" load Pipelines/load-janus.yaml --clients 3 --ramp 5/s --duration 5 --decode some
            status=$?; kill %1; wait; rm -f '\(log)'; exit $status
            """
        let r = try CLI.execute(
            URL(fileURLWithPath: Repository.path("Scripts/janus-sandbox.sh")), ["sh", "-c", lines],
            env: ["SLUICE": CLI.binary.path], timeout: 120, reportPath: nil)
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.contains("3 of 3 succeeded"), r.stdout)
        XCTAssertTrue(r.stdout.contains("glass-to-glass p50"), "the decoding subscriber measured through Janus: \(r.stdout)")
    }

    func testTwoPublishersAndAMultistreamSubscriberFollowTheRoom() throws {
        try Janus.requireInstalled()
        let janus = Janus(httpPort: 18088, wsPort: 18188)
        let t = FileManager.default.temporaryDirectory.appendingPathComponent("janus-room-\(UUID().uuidString.prefix(6))").path
        defer { for s in ["a", "b", "c", "v"] { for e in ["json", "err"] { try? FileManager.default.removeItem(atPath: "\(t).\(s).\(e)") } } }
        let run = { (who: String, file: String, extra: String) in
            "\"$SLUICE\" run Pipelines/\(file) --quiet --log-level info --report \(t).\(who).json \(extra) > /dev/null 2> \(t).\(who).err"
        }
        let (lines, raw) = try inRoom(
            janus,
            """
            SLUICE_JANUS_DISPLAY=cam-a \(run("a", "janus-publish.yaml", "--duration 20")) &
            a=$!
            SLUICE_JANUS_DISPLAY=cam-b SLUICE_JANUS_WIDTH=320 SLUICE_JANUS_HEIGHT=240 \(run("b", "janus-publish.yaml", "--duration 60")) &
            b=$!
            waitfor \(t).a.err 'publishing to room' 300; waitfor \(t).b.err 'publishing to room' 300
            \(run("v", "janus-room-view.yaml", "--duration 12")) &
            v=$!
            waitfor \(t).v.err "receiving.*cam-b" 300
            # cam-b is watched for 4 s, then leaves (Ctrl-C: its run leaves the room and ends).
            sleep 4
            kill -INT $b; wait $b; echo "B-STATUS: $?"
            waitfor \(t).v.err "'cam-b' left the room" 200 && echo "LEFT: seen"
            SLUICE_JANUS_DISPLAY=cam-c SLUICE_JANUS_WIDTH=160 SLUICE_JANUS_HEIGHT=120 \(run("c", "janus-publish.yaml", "--duration 20")) &
            c=$!
            waitfor \(t).v.err "receiving.*cam-c" 300 && echo "JOINED: seen"
            wait $v; echo "V-STATUS: $?"
            kill -INT $a $c; wait $a; echo "A-STATUS: $?"; wait $c; echo "C-STATUS: $?"
            echo "VIEWER-LOG: $(tr '\\n' ' ' < \(t).v.err | cut -c1-1500)"
            """)
        XCTAssertEqual(lines["V-STATUS"], "0", raw)
        XCTAssertEqual(lines["A-STATUS"], "0", raw)
        XCTAssertEqual(lines["B-STATUS"], "0", "cam-b left cleanly: \(raw)")
        XCTAssertEqual(lines["C-STATUS"], "0", raw)
        XCTAssertEqual(lines["LEFT"], "seen", raw)
        XCTAssertEqual(lines["JOINED"], "seen", raw)
        let viewer = report("\(t).v.json")
        XCTAssertEqual((viewer["session"] as? [String: Any])?["role"] as? String, "subscriber")
        let streams = ((viewer["receive"] as? [String: Any])?["streams"] as? [[String: Any]]) ?? []
        func stream(_ publisher: String, _ media: String) -> [String: Any]? {
            streams.first { $0["publisher"] as? String == publisher && $0["media"] as? String == media }
        }
        let frames = { (s: [String: Any]?) in (s?["frames"] as? NSNumber)?.intValue ?? 0 }
        let size = { (s: [String: Any]?) in "\((s?["width"] as? NSNumber)?.intValue ?? 0)x\((s?["height"] as? NSNumber)?.intValue ?? 0)" }
        // Each publisher's picture at its own size: the streams are told apart, not mixed up.
        XCTAssertEqual(size(stream("cam-a", "video")), "640x360", "\(streams)")
        XCTAssertEqual(size(stream("cam-b", "video")), "320x240", "\(streams)")
        XCTAssertEqual(size(stream("cam-c", "video")), "160x120", "\(streams)")
        XCTAssertGreaterThan(frames(stream("cam-a", "video")), 150, "\(streams)")
        XCTAssertGreaterThan(frames(stream("cam-b", "video")), 60, "\(streams)")
        XCTAssertGreaterThan(frames(stream("cam-c", "video")), 30, "\(streams)")
        for p in ["cam-a", "cam-b", "cam-c"] { XCTAssertGreaterThan(frames(stream(p, "audio")), 50, "\(p) audio: \(streams)") }
        XCTAssertEqual(stream("cam-b", "video")?["left"] as? Bool, true)
        XCTAssertEqual(stream("cam-a", "video")?["left"] as? Bool, false)
        XCTAssertEqual(stream("cam-c", "video")?["left"] as? Bool, false)
        // The publishers sent what the subscriber decoded.
        let a = report("\(t).a.json")
        XCTAssertEqual((a["session"] as? [String: Any])?["role"] as? String, "publisher")
        XCTAssertGreaterThan((((a["send"] as? [String: Any])?["video"] as? [String: Any])?["frames"] as? NSNumber)?.intValue ?? 0, 300)
    }

    /// What users get wrong, the room destroyed under a publisher and a subscriber (both end at
    /// once, exit 0, and say why), and Janus going away: each a clear error at the file's
    /// transport, exit status 3, no hang.
    func testWrongRoomPinServerAndJanusGoingAwayGiveClearErrors() throws {
        try Janus.requireInstalled()
        let janus = Janus(httpPort: 18089, wsPort: 18189)
        let t = FileManager.default.temporaryDirectory.appendingPathComponent("janus-bad-\(UUID().uuidString.prefix(6))").path
        let publish = "\"$SLUICE\" run Pipelines/janus-publish.yaml --quiet"
        let (lines, raw) = try inRoom(
            janus,
            """
            \(publish) --duration 5 --set transport.room=4321 > /dev/null 2> \(t).room; echo "ROOM-STATUS: $?"; echo "ROOM: $(cat \(t).room)"
            \(publish) --duration 5 --set transport.room=5678 --set transport.pin=guess > /dev/null 2> \(t).pin; echo "PIN-STATUS: $?"; echo "PIN: $(cat \(t).pin)"
            \(publish) --duration 2 --set transport.room=5678 --set transport.pin=letmein > /dev/null 2> \(t).goodpin; echo "GOODPIN-STATUS: $?"
            SLUICE_JANUS=ws://127.0.0.1:9 \(publish) --duration 5 > /dev/null 2> \(t).none; echo "NONE-STATUS: $?"; echo "NONE: $(cat \(t).none)"
            SLUICE_JANUS=ws://127.0.0.1:\(janus.httpPort) \(publish) --duration 5 > /dev/null 2> \(t).http; echo "HTTP-STATUS: $?"; echo "HTTP: $(cat \(t).http)"
            # The room destroyed under a publisher and a subscriber: both end at once, cleanly, and say why.
            \(publish) --duration 60 --log-level info --report \(t).dp.json > /dev/null 2> \(t).dp &
            dp=$!
            waitfor \(t).dp 'the publishing PeerConnection is up' 300
            "$SLUICE" run Pipelines/janus-room-view.yaml --quiet --duration 60 --log-level info --report \(t).dv.json > /dev/null 2> \(t).dv &
            dv=$!
            waitfor \(t).dv 'the subscribing PeerConnection is up' 300
            start=$(date +%s)
            python3 '\(Repository.root.path)/Tests/Interop/janus/videoroom.py' http://127.0.0.1:\(janus.httpPort)/janus destroy 1234 > /dev/null; echo "DESTROY-STATUS: $?"
            wait $dp; echo "DP-STATUS: $?"; wait $dv; echo "DV-STATUS: $?"; echo "DESTROY-SECONDS: $(( $(date +%s) - start ))"
            echo "DP-WHY: $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["session"].get("ended_by_peer"))' \(t).dp.json)"
            echo "DV-WHY: $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["session"].get("ended_by_peer"))' \(t).dv.json)"
            # Room 1234 is gone now: Janus going away is seen from room 5678.
            \(publish) --duration 60 --log-level info --set transport.room=5678 --set transport.pin=letmein > /dev/null 2> \(t).gone &
            p=$!
            waitfor \(t).gone 'the publishing PeerConnection is up' 300
            kill -9 $janus
            start=$(date +%s)
            wait $p; echo "GONE-STATUS: $?"; echo "GONE-SECONDS: $(( $(date +%s) - start ))"
            echo "GONE: $(grep -v ' info: \\| info ' \(t).gone | tr '\\n' ' ')"
            rm -f \(t).*
            """)
        XCTAssertEqual(lines["ROOM-STATUS"], "3", raw)
        XCTAssertTrue(
            lines["ROOM"]?.contains("Pipelines/janus-publish.yaml:12:1: Janus: Janus refused 'join': No such room (4321) (error 426); check 'room'") ?? false,
            raw)
        XCTAssertEqual(lines["PIN-STATUS"], "3", raw)
        XCTAssertTrue(lines["PIN"]?.contains("(error 433); check 'pin'") ?? false, raw)
        XCTAssertEqual(lines["GOODPIN-STATUS"], "0", "the right pin joins: \(raw)")
        XCTAssertEqual(lines["NONE-STATUS"], "3", raw)
        XCTAssertTrue(lines["NONE"]?.contains("Janus:") ?? false, raw)
        XCTAssertEqual(lines["HTTP-STATUS"], "3", raw)
        XCTAssertEqual(lines["DESTROY-STATUS"], "0", raw)
        XCTAssertEqual(lines["DP-STATUS"], "0", "the room's end is not this side's failure: \(raw)")
        XCTAssertEqual(lines["DV-STATUS"], "0", raw)
        XCTAssertLessThanOrEqual(Int(lines["DESTROY-SECONDS"] ?? "") ?? 99, 5, raw)
        XCTAssertEqual(lines["DP-WHY"], "Janus: room 1234 was destroyed", raw)
        XCTAssertEqual(lines["DV-WHY"], "Janus: room 1234 was destroyed", raw)
        XCTAssertEqual(lines["GONE-STATUS"], "3", raw)
        XCTAssertLessThanOrEqual(Int(lines["GONE-SECONDS"] ?? "") ?? 99, 10, raw)
        XCTAssertTrue(lines["GONE"]?.contains("the connection to Janus (ws://127.0.0.1:\(janus.wsPort)) closed") ?? false, raw)
    }

    /// A Janus that asks for an API secret: a wrong or missing one is refused with Janus's own
    /// error; the right one publishes.
    func testAnAPISecretIsSentAndAWrongOneRefused() throws {
        try Janus.requireInstalled()
        let janus = Janus(httpPort: 18090, wsPort: 18190, apiSecret: "s3cret")
        let publish = "\"$SLUICE\" run Pipelines/janus-publish.yaml --quiet --duration 2"
        let (lines, raw) = try inRoom(
            janus,
            """
            \(publish) --set transport.secret=wrong > /dev/null 2> /tmp/janus-secret.$$; echo "WRONG-STATUS: $?"; echo "WRONG: $(cat /tmp/janus-secret.$$)"
            \(publish) > /dev/null 2> /tmp/janus-secret.$$; echo "MISSING-STATUS: $?"
            \(publish) --set transport.secret=s3cret > /dev/null 2> /tmp/janus-secret.$$; echo "RIGHT-STATUS: $?"; echo "RIGHT: $(cat /tmp/janus-secret.$$)"
            rm -f /tmp/janus-secret.$$
            """)
        XCTAssertEqual(lines["WRONG-STATUS"], "3", raw)
        XCTAssertTrue(lines["WRONG"]?.contains("Janus refused 'create': Unauthorized request (wrong or missing secret/token) (error 403)") ?? false, raw)
        XCTAssertEqual(lines["MISSING-STATUS"], "3", raw)
        XCTAssertEqual(lines["RIGHT-STATUS"], "0", raw)
    }

    /// A peer nobody here wrote, both ways: Chromium joins the room through Janus's own
    /// JavaScript API (Debian's janus.js, Tests/Interop/janus/room.html), plays Sluice's
    /// publication (a moving picture at 640x360 in its <video>) and publishes its fake camera;
    /// a Sluice subscriber that names only `chromium` receives that one at Chromium's 640x480.
    func testChromiumThroughJanusJSAndSluiceReceiveEachOther() throws {
        try Janus.requireInstalled()
        try CLI.requireBrowserTools()
        let janus = Janus(httpPort: 18092, wsPort: 18192)
        let t = FileManager.default.temporaryDirectory.appendingPathComponent("janus-browser-\(UUID().uuidString.prefix(6))").path
        defer { for e in ["json", "out", "done"] { try? FileManager.default.removeItem(atPath: "\(t).\(e)") } }
        let (lines, raw) = try inRoom(
            janus, timeout: 150,
            """
            SLUICE_JANUS_DISPLAY=cam-a "$SLUICE" run Pipelines/janus-publish.yaml --set send.video.capture.pattern=snow --duration 90 --quiet --log-level info > /dev/null 2> \(t).pub &
            a=$!
            waitfor \(t).pub 'the publishing PeerConnection is up' 300
            '\(Repository.python)' '\(Repository.root.path)/Tests/Interop/janus/janus_browser.py' '\(janus.url)' 1234 cam-a --publish --hold-until \(t).done --timeout 40 > \(t).out &
            b=$!
            waitfor \(t).out picture 900
            "$SLUICE" run Pipelines/janus-room-view.yaml --set 'transport.subscribe=[chromium]' --duration 5 --quiet --report \(t).json > /dev/null 2>&1
            echo "VIEW-STATUS: $?"
            touch \(t).done
            wait $b; echo "BROWSER-STATUS: $?"
            echo "BROWSER: $(cat \(t).out)"
            kill -INT $a; wait $a; echo "PUB-STATUS: $?"
            rm -f \(t).pub
            """)
        XCTAssertEqual(lines["BROWSER-STATUS"], "0", raw)
        XCTAssertEqual(lines["VIEW-STATUS"], "0", raw)
        XCTAssertEqual(lines["PUB-STATUS"], "0", raw)
        let browser = (lines["BROWSER"].flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) } as? [String: Any]) ?? [:]
        let picture = browser["picture"] as? [String: Any] ?? [:]
        XCTAssertEqual(browser["subscribed"] as? String, "cam-a", raw)
        XCTAssertEqual((picture["videoWidth"] as? NSNumber)?.intValue, 640, "\(browser)")
        XCTAssertEqual((picture["videoHeight"] as? NSNumber)?.intValue, 360, "\(browser)")
        XCTAssertGreaterThan((picture["maxFrameDiff"] as? NSNumber)?.doubleValue ?? 0, 0.5, "a moving picture: \(browser)")
        let streams = ((report("\(t).json")["receive"] as? [String: Any])?["streams"] as? [[String: Any]]) ?? []
        XCTAssertEqual(Set(streams.compactMap { $0["publisher"] as? String }), ["chromium"], "only the publisher named in subscribe: \(streams)")
        let video = streams.first { $0["media"] as? String == "video" }
        XCTAssertEqual((video?["width"] as? NSNumber)?.intValue, 640, "\(streams)")
        XCTAssertEqual((video?["height"] as? NSNumber)?.intValue, 480, "\(streams)")
        XCTAssertGreaterThan((video?["frames"] as? NSNumber)?.intValue ?? 0, 30, "\(streams)")
        XCTAssertGreaterThan((streams.first { $0["media"] as? String == "audio" }?["frames"] as? NSNumber)?.intValue ?? 0, 50, "\(streams)")
    }

    /// The room bridge: `sluice serve --pipeline Pipelines/room-bridge.yaml --run
    /// Pipelines/janus-room-bridge.yaml` composes the room (cam-a: moving noise and 500 Hz, cam-b: red and 1200 Hz)
    /// and serves it. Chromium plays it from the server's own page (a moving picture in its
    /// <video>), and a WHEP viewer's recording shows cam-b's red in the right cell and holds both tones.
    func testABrowserWatchesTheRoomThroughSluiceServe() throws {
        try Janus.requireInstalled()
        try CLI.requireBrowserTools()
        let janus = Janus(httpPort: 18094, wsPort: 18194)
        let t = FileManager.default.temporaryDirectory.appendingPathComponent("janus-bridge-\(UUID().uuidString.prefix(6))").path
        defer { for e in ["yaml", "mkv", "rgb", "a", "b", "serve", "browser"] { try? FileManager.default.removeItem(atPath: "\(t).\(e)") } }
        try """
        version: 1
        name: room-view
        transport: {kind: whep, endpoint: 'http://127.0.0.1:18665/whep/room', ice: {addresses: [127.0.0.1]}}
        receive:
          video: {sink: {kind: file, path: '\(t).mkv'}}
          audio: {sink: {kind: file, path: '\(t).mkv'}}
        """.write(toFile: "\(t).yaml", atomically: true, encoding: .utf8)
        let publish = "\"$SLUICE\" run Pipelines/janus-publish.yaml --duration 90 --quiet --log-level info"
        let (lines, raw) = try inRoom(
            janus, timeout: 150,
            """
            export SLUICE_ROOM_WIDTH=640 SLUICE_ROOM_HEIGHT=360
            SLUICE_JANUS_DISPLAY=cam-a \(publish) --set send.video.capture.pattern=snow --set send.audio.capture.frequency=500 > /dev/null 2> \(t).a &
            a=$!
            SLUICE_JANUS_DISPLAY=cam-b SLUICE_JANUS_WIDTH=320 SLUICE_JANUS_HEIGHT=240 \(publish) --set send.video.capture.pattern=red --set send.audio.capture.frequency=1200 > /dev/null 2> \(t).b &
            b=$!
            waitfor \(t).a 'the publishing PeerConnection is up' 300; waitfor \(t).b 'the publishing PeerConnection is up' 300
            "$SLUICE" serve --port 18665 --pipeline Pipelines/room-bridge.yaml --run Pipelines/janus-room-bridge.yaml --log-level info > \(t).serve 2>&1 &
            serve=$!
            waitfor \(t).serve 'the subscribing PeerConnection is up' 300
            '\(Repository.python)' Tests/Browser/browser_check.py play http://127.0.0.1:18665 room --min-frames 30 --measure 0 > \(t).browser 2>&1
            echo "BROWSER-STATUS: $?"
            echo "BROWSER: $(grep '^{' \(t).browser)"
            echo "BROWSER-ERR: $(grep -v '^{' \(t).browser | tr '\\n' ' ' | cut -c1-600)"
            # 6 s from start, connecting included: 3 s once left an empty recording (no
            # keyframe yet) on a busy machine.
            "$SLUICE" run \(t).yaml --duration 6 --quiet > /dev/null 2>&1; echo "VIEW-STATUS: $?"
            kill -INT $serve; wait $serve; echo "SERVE-STATUS: $?"
            kill -INT $a $b; wait $a; wait $b
            gst-launch-1.0 -q filesrc location=\(t).mkv ! matroskademux name=d d.video_0 ! queue ! decodebin ! videoconvert ! video/x-raw,format=RGB ! filesink location=\(t).rgb
            echo "DECODE-STATUS: $?"
            \(tones(mkv: "\(t).mkv"))
            """)
        XCTAssertEqual(lines["BROWSER-STATUS"], "0", raw)
        let browser = (lines["BROWSER"].flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) } as? [String: Any]) ?? [:]
        XCTAssertEqual((browser["width"] as? NSNumber)?.intValue, 640, "\(browser)")
        XCTAssertEqual((browser["height"] as? NSNumber)?.intValue, 360, "\(browser)")
        XCTAssertGreaterThan(((browser["picture"] as? [String: Any])?["maxFrameDiff"] as? NSNumber)?.doubleValue ?? 0, 0.5, "a moving picture: \(browser)")
        XCTAssertEqual(lines["VIEW-STATUS"], "0", raw)
        XCTAssertEqual(lines["SERVE-STATUS"], "0", raw)
        XCTAssertEqual(lines["DECODE-STATUS"], "0", raw)
        let recording = RGBRecording(path: "\(t).rgb", width: 640, height: 360)
        XCTAssertGreaterThan(recording.frames, 30, "frames the WHEP viewer recorded")
        guard recording.frames >= 1 else { return }
        let red = recording.lastPixel(480, 180)
        XCTAssertTrue(red[0] > 200 && red[1] < 60 && red[2] < 60, "cam-b's cell, right of cam-a's, is red: \(red)")
        // The room's mixed sound reached the WHEP viewer too.
        assertBothTones(lines, raw)
    }

    /// A Janus with token authentication (HMAC-signed tokens, `token_auth_secret`): the file
    /// takes its token from the environment (`token: ${JANUS_TOKEN}`); one signed with another
    /// secret, and an expired one, are refused with Janus's error; a valid one publishes.
    func testATokenFromTheEnvironmentIsSentAndBadOnesRefused() throws {
        try Janus.requireInstalled()
        let janus = Janus(httpPort: 18095, wsPort: 18195, tokenSecret: "t0ken-secret")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("janus-token-\(UUID().uuidString.prefix(6)).yaml").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        let publish = try String(contentsOfFile: Repository.path("Pipelines/janus-publish.yaml"), encoding: .utf8)
            .replacingOccurrences(of: "  display: ${SLUICE_JANUS_DISPLAY:-sluice-camera}", with: "  display: tokened\n  token: ${JANUS_TOKEN}")
        try publish.write(toFile: file, atomically: true, encoding: .utf8)
        let run = "\"$SLUICE\" run \(file) --quiet --duration 2 > /dev/null 2> \(file).err"
        let (lines, raw) = try inRoom(
            janus,
            """
            JANUS_TOKEN=$(\(janus.signedToken(validFor: 600, secret: "not-the-secret"))) \(run); echo "FORGED-STATUS: $?"; echo "FORGED: $(cat \(file).err)"
            JANUS_TOKEN=$(\(janus.signedToken(validFor: -60))) \(run); echo "EXPIRED-STATUS: $?"
            JANUS_TOKEN=$(\(janus.signedToken(validFor: 600))) \(run); echo "VALID-STATUS: $?"; echo "VALID: $(cat \(file).err)"
            rm -f \(file).err
            """)
        XCTAssertEqual(lines["FORGED-STATUS"], "3", raw)
        XCTAssertTrue(lines["FORGED"]?.contains("Janus refused 'create': Unauthorized request (wrong or missing secret/token) (error 403)") ?? false, raw)
        XCTAssertEqual(lines["EXPIRED-STATUS"], "3", raw)
        XCTAssertEqual(lines["VALID-STATUS"], "0", raw)
    }
}
