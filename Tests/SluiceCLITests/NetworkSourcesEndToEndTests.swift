import Foundation
import SluiceTestSupport
import XCTest

/// `capture: {kind: rtmp | srt | uri}` against programs nobody here wrote, all Debian's:
/// ffmpeg publishing to nginx with libnginx-mod-rtmp, ffmpeg and srt-live-transmit sending
/// SRT as caller and as listener, and HLS written by ffmpeg and served by nginx. Each source's
/// H.264 crosses WebRTC untouched (`encode: none`), and the recording after WebRTC shows the
/// source's own picture at its own size. Sources that are not there, or that send garbage,
/// end the run with exit 3 and the reason, or are survived.
final class NetworkSourcesEndToEndTests: XCTestCase {
    static let nginx = "Tests/Interop/rtmp/nginx.sh"
    private var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-net-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    /// Shell lines that start nginx (RTMP at `rtmp`, HTTP at `http` if given) under `$TMP.nginx`
    /// and wait, bounded, until it runs. Its PID is in `$nginx`.
    static func startNginx(rtmp: Int, http: Int? = nil) -> String {
        """
        \(nginx) "$TMP.nginx" \(rtmp) \(http.map(String.init) ?? "") > "$TMP.nginx.log" 2>&1 &
        nginx=$!
        i=0; until [ -s "$TMP.nginx/nginx.pid" ]; do
          i=$((i+1)); [ $i -lt 200 ] || { echo "nginx did not start: $(cat "$TMP.nginx.log" "$TMP.nginx/error.log")" >&2; exit 92; }
          kill -0 $nginx 2>/dev/null || { echo "nginx exited: $(cat "$TMP.nginx.log" "$TMP.nginx/error.log")" >&2; exit 93; }
          sleep 0.05
        done
        """
    }

    /// ffmpeg's input: a 640×360 30 fps picture of `color`.
    static func picture(_ color: String) -> String { "-f lavfi -i color=c=\(color):size=640x360:rate=30" }
    /// ffmpeg's output options: H.264 with a keyframe a second.
    static let x264 = "-c:v libx264 -preset ultrafast -tune zerolatency -g 30 -pix_fmt yuv420p"

    /// A loopback file whose video comes from `capture` (passed through unless `encode` says
    /// otherwise) and is recorded after WebRTC to `record`; `audio` adds an audio branch.
    private func loopback(_ name: String, capture: String, encode: String = "none", audio: String? = nil) throws -> (file: String, record: String) {
        let path = dir.appendingPathComponent("\(name).yaml").path, record = dir.appendingPathComponent("\(name).mkv").path
        let sendAudio = audio.map { "\n  audio:\n    capture: \(capture)\n    encode: \($0)" } ?? ""
        let receiveAudio = audio == nil ? "" : "\n  audio: { sink: { kind: null } }"
        try """
        transport: { ice: { addresses: [127.0.0.1] } }
        send:
          video:
            capture: \(capture)
            encode: \(encode)\(sendAudio)
        receive:
          video: { sink: { kind: file, path: "\(record)" } }\(receiveAudio)
        """.write(toFile: path, atomically: true, encoding: .utf8)
        return (path, record)
    }

    /// Runs `start` (shell lines that start the source; they append their PIDs to `$pids`),
    /// then `sluice run FILE` for 5 s in one namespace; the recording's RGB frames land in `record`.rgb.
    private func run(_ name: String, start: String, file: String, record: String, env: [String: String] = [:]) throws -> CLIResult {
        let report = dir.appendingPathComponent("report-\(name).json").path
        let script = """
            ip link set lo up
            pids=""
            \(start)
            "$SLUICE" run '\(file)' --duration 5 --report '\(report)'
            status=$?
            kill $pids 2>/dev/null; wait
            for log in "$TMP".ffmpeg "$TMP".slt "$TMP".nginx.log; do [ ! -s "$log" ] || echo "SOURCE-LOG $log: $(tail -c 600 "$log" | tr '\\n' ' ')"; done
            # A failed run shows what nginx served (the HLS case) and its own complaints.
            [ $status -eq 0 ] || for log in "$TMP".nginx/access.log "$TMP".nginx/error.log; do
              [ ! -s "$log" ] || echo "SOURCE-LOG $log: $(tail -c 1500 "$log" | tr '\\n' ' ')" >&2; done
            gst-launch-1.0 -q filesrc location='\(record)' ! decodebin ! videoconvert ! video/x-raw,format=RGB \\
              ! filesink location='\(record).rgb' || echo "DECODE FAILED" >&2
            exit $status
            """
        return try CLI.execute(
            inNamespace: script,
            env: env.merging(["SLUICE": CLI.binary.path, "TMP": dir.appendingPathComponent(name).path]) { a, _ in a },
            timeout: 90, reportPath: report)
    }

    /// The run passed the source's H.264 through, and the recording shows `expected` (RGB
    /// bounds) at the source's 640×360 in most of the frames sent.
    private func assertPassedThrough(_ r: CLIResult, record: String, _ what: String, pixel isExpected: ([Int]) -> Bool) {
        XCTAssertEqual(r.status, 0, "\(what): \(r.stderr.suffix(3000))")
        XCTAssertEqual(r.value("send.video.passthrough") as? Bool, true, "\(what): \(r.report ?? [:])")
        XCTAssertTrue(r.stdout.contains("passthrough: not transcoded"), r.stdout)
        XCTAssertEqual(r.int("receive.video.width"), 640, "\(what): the source's own size: \(r.report ?? [:])")
        let sent = r.int("send.video.frames") ?? 0, received = r.int("receive.video.frames") ?? 0
        XCTAssertGreaterThan(sent, 75, "\(what): about 30 fps for most of 5 s")
        XCTAssertGreaterThanOrEqual(Double(received), 0.9 * Double(sent), "\(what): received \(received) of \(sent)")
        let picture = RGBRecording(path: record + ".rgb", width: 640, height: 360)
        XCTAssertGreaterThan(picture.frames, 50, "\(what): \(r.stderr.suffix(2000)) \(r.stdout.suffix(1500))")
        guard picture.frames > 0 else { return }
        let pixel = picture.lastPixel(320, 180)
        XCTAssertTrue(isExpected(pixel), "\(what): the source's colour, got \(pixel)")
    }

    /// Runs `sluice run FILE` for 14 s against nginx-rtmp at `port`, where ffmpeg publishes
    /// red, leaves 4 s in, and another ffmpeg publishes blue 3 s later, all in one namespace;
    /// the run's output is printed and the recording's RGB frames land in `record`.rgb.
    private func runAcrossAPublisherOutage(_ name: String, port: Int, file: String, record: String) throws -> CLIResult {
        let report = dir.appendingPathComponent("report-\(name).json").path
        let publish = { (color: String) in
            """
            ffmpeg -hide_banner -loglevel error -re \(Self.picture(color)) \(Self.x264) -f flv rtmp://127.0.0.1:\(port)/live/cam \\
              > "$TMP.ffmpeg" 2>&1 &
            ffmpeg=$!
            """
        }
        let script = """
            ip link set lo up
            \(Self.startNginx(rtmp: port))
            \(publish("red"))
            "$SLUICE" run '\(file)' --duration 14 --report '\(report)' > "$TMP.run" 2>&1 &
            run=$!
            sleep 4; kill $ffmpeg; wait $ffmpeg
            sleep 3
            \(publish("blue"))
            wait $run; status=$?
            kill $ffmpeg $nginx; wait
            cat "$TMP.run"
            gst-launch-1.0 -q filesrc location='\(record)' ! decodebin ! videoconvert ! video/x-raw,format=RGB \\
              ! filesink location='\(record).rgb' || echo "DECODE FAILED" >&2
            exit $status
            """
        return try CLI.execute(
            inNamespace: script, env: ["SLUICE": CLI.binary.path, "TMP": dir.appendingPathComponent(name).path],
            timeout: 90, reportPath: report)
    }

    /// ffmpeg publishes H.264 and AAC to nginx-rtmp; Sluice plays `rtmp://`, passes the video
    /// through and encodes the AAC as Opus (WebRTC has no AAC).
    func testRTMPFromFFmpegThroughNginxPassesTheVideoThrough() throws {
        let (file, record) = try loopback(
            "rtmp", capture: "{ kind: rtmp, url: 'rtmp://127.0.0.1:18581/live/cam' }", audio: "{ codec: opus }")
        let start = """
            \(Self.startNginx(rtmp: 18581))
            pids="$pids $nginx"
            ffmpeg -hide_banner -loglevel error -re \(Self.picture("red")) -f lavfi -i sine=frequency=440:sample_rate=48000 \\
              \(Self.x264) -c:a aac -f flv rtmp://127.0.0.1:18581/live/cam > "$TMP.ffmpeg" 2>&1 &
            pids="$pids $!"
            """
        let r = try run("rtmp", start: start, file: file, record: record)
        assertPassedThrough(r, record: record, "rtmp") { $0[0] > 200 && $0[1] < 60 && $0[2] < 60 }
        XCTAssertGreaterThan(r.int("receive.audio.buffers") ?? 0, 150, "the AAC arrived as Opus: \(r.report ?? [:])")
        XCTAssertEqual(r.value("send.audio.codec") as? String, "opus")
    }

    /// Python that sends 300 datagrams of random bytes (20 to 1500 long) to `port` on loopback.
    static func udpGarbage(to port: Int) -> String {
        """
        import os, random, socket
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        for _ in range(300): s.sendto(os.urandom(random.randint(20, 1500)), ("127.0.0.1", \(port)))
        """
    }

    /// Sluice listens (`srt://:port`) with a passphrase from the environment; 300 datagrams of
    /// garbage arrive first, and are survived; then ffmpeg calls it with that passphrase; then Sluice calls srt-live-transmit's listener, which relays
    /// ffmpeg's MPEG-TS. Both pass the H.264 through.
    func testSRTAsListenerWithAPassphraseAndAsCaller() throws {
        let phrase = "correct-horse-battery"
        let listen = try loopback("srt-listener", capture: "{ kind: srt, url: 'srt://:18582', passphrase: '${SRT_PASSPHRASE}' }")
        let caller = """
            ( sleep 0.3; python3 -c '\(Self.udpGarbage(to: 18582))'; exec ffmpeg -hide_banner -loglevel error -re \(Self.picture("lime")) \(Self.x264) -f mpegts \\
              "srt://127.0.0.1:18582?mode=caller&passphrase=$SRT_PASSPHRASE&pbkeylen=16" ) > "$TMP.ffmpeg" 2>&1 &
            pids="$pids $!"
            """
        let r1 = try run("srt-listener", start: caller, file: listen.file, record: listen.record, env: ["SRT_PASSPHRASE": phrase])
        assertPassedThrough(r1, record: listen.record, "srt listener") { $0[1] > 200 && $0[0] < 60 && $0[2] < 60 }
        let sluiceSaid = r1.stderr + r1.stdout.split(separator: "\n").filter { !$0.hasPrefix("SOURCE-LOG") }.joined(separator: "\n")
        XCTAssertFalse(sluiceSaid.contains(phrase), "the passphrase never shows (ffmpeg's own log may show it): \(sluiceSaid)")

        let call = try loopback("srt-caller", capture: "{ kind: srt, url: 'srt://127.0.0.1:18583', latency: 80 }")
        let listener = """
            srt-live-transmit -q udp://127.0.0.1:18584 "srt://:18583?mode=listener" > "$TMP.slt" 2>&1 &
            pids="$pids $!"
            ffmpeg -hide_banner -loglevel error -re \(Self.picture("blue")) \(Self.x264) -f mpegts "udp://127.0.0.1:18584?pkt_size=1316" > "$TMP.ffmpeg" 2>&1 &
            pids="$pids $!"
            """
        let r2 = try run("srt-caller", start: listener, file: call.file, record: call.record)
        assertPassedThrough(r2, record: call.record, "srt caller") { $0[2] > 200 && $0[0] < 60 && $0[1] < 60 }
    }

    /// ffmpeg writes an HLS playlist and its segments, nginx serves them over HTTP, and Sluice
    /// plays the playlist: passed through, paced to the clock (a playlist is not live).
    func testHLSServedByNginxIsPlayedAtItsRate() throws {
        let (file, record) = try loopback("hls", capture: "{ kind: uri, url: 'http://127.0.0.1:18586/hls/index.m3u8' }")
        let start = """
            \(Self.startNginx(rtmp: 18585, http: 18586))
            pids="$pids $nginx"
            mkdir -p "$TMP.nginx/www/hls"
            ffmpeg -hide_banner -loglevel error \(Self.picture("yellow")) \(Self.x264) -t 8 -f hls -hls_time 1 -hls_list_size 0 \\
              -hls_playlist_type vod "$TMP.nginx/www/hls/index.m3u8" || exit 94
            """
        var r = try run("hls", start: start, file: file, record: record)
        if r.status == 3, r.stderr.contains("Couldn't download fragments") {
            // GStreamer 1.22.0's hlsdemux2 failed its first fragments at once with nginx serving
            // them, once in CI and once in 170 runs here under load: said, and played once more
            // from scratch (a second failure fails the test).
            print("hls: hlsdemux2 could not download the first fragments; once more: \(r.stderr.suffix(1500))")
            r = try run("hls-again", start: start, file: file, record: record)
        }
        assertPassedThrough(r, record: record, "hls") { $0[0] > 200 && $0[1] > 200 && $0[2] < 60 }
        let fps = r.value("receive.video.fps") as? Double ?? 0
        XCTAssertLessThan(fps, 33, "paced to the playlist's 30 fps, not read as fast as possible: \(r.report ?? [:])")
    }

    /// Sources that are not there, or answer with garbage: each run ends with exit 3, the
    /// source's URL without its password, and the reason, in bounded time.
    func testSourcesThatAreNotThereOrSendGarbageEndTheRunWithTheReason() throws {
        let cases: [(capture: String, shows: String, reason: String)] = [
            ("{ kind: rtmp, url: 'rtmp://bob:${PW}@127.0.0.1:18587/live/x' }", "rtmp capture rtmp://bob@127.0.0.1:18587/live/x", "refused"),
            ("{ kind: srt, url: 'srt://127.0.0.1:18588' }", "srt caller srt://127.0.0.1:18588", "timeout"),
            ("{ kind: uri, url: 'http://127.0.0.1:18589/live/index.m3u8' }", "uri capture http://127.0.0.1:18589/live/index.m3u8", "error"),
            ("{ kind: rtmp, url: 'rtmp://127.0.0.1:18590/live/x' }", "rtmp capture rtmp://127.0.0.1:18590/live/x", "connect")
        ]
        let garbage = """
            import os, socket, sys
            s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(("127.0.0.1", 18590)); s.listen()
            print("READY", flush=True)
            c, _ = s.accept(); c.sendall(os.urandom(100000)); c.close()
            """
        for (i, c) in cases.enumerated() {
            let path = dir.appendingPathComponent("absent-\(i).yaml").path
            try "transport: { kind: none }\nsend:\n  video: { capture: \(c.capture), encode: none }\n"
                .write(toFile: path, atomically: true, encoding: .utf8)
            let script = """
                ip link set lo up
                python3 -c '\(garbage)' > "$TMP.garbage" 2>&1 &
                g=$!
                i=0; until grep -q READY "$TMP.garbage"; do i=$((i+1)); [ $i -lt 100 ] || exit 95; sleep 0.05; done
                "$SLUICE" run '\(path)' --duration 40
                status=$?; kill $g 2>/dev/null; exit $status
                """
            let r = try CLI.execute(
                inNamespace: script,
                env: ["SLUICE": CLI.binary.path, "PW": "s3cret-pa55", "TMP": dir.appendingPathComponent("g\(i)").path], timeout: 60,
                reportPath: nil)
            XCTAssertEqual(r.status, 3, "\(c.capture): \(r.stderr)")
            XCTAssertLessThan(r.seconds, 20, "\(c.capture): ended on its own, not at --duration")
            XCTAssertTrue(r.stderr.contains(c.shows), "\(c.capture): \(r.stderr)")
            XCTAssertTrue(r.stderr.lowercased().contains(c.reason), "\(c.capture): \(r.stderr)")
            XCTAssertFalse((r.stdout + r.stderr).contains("s3cret-pa55"), "the password never shows: \(r.stderr)")
        }
    }

    /// Hostile HLS served by nginx: a master playlist whose only variant is itself, and a
    /// media playlist whose only segment is itself. Each run ends at once with exit 3 and
    /// hlsdemux's reason, never a loop.
    func testPlaylistsThatPointAtThemselvesEndTheRunWithTheReason() throws {
        let playlists = [
            ("self", "#EXTM3U\\n#EXT-X-STREAM-INF:BANDWIDTH=1000000\\nself.m3u8\\n", "playlist"),
            ("loop", "#EXTM3U\\n#EXT-X-TARGETDURATION:1\\n#EXTINF:1.0,\\nloop.m3u8\\n#EXT-X-ENDLIST\\n", "fragment")
        ]
        for (name, text, reason) in playlists {
            let path = dir.appendingPathComponent("\(name).yaml").path
            let url = "http://127.0.0.1:18592/hls/\(name).m3u8"
            try "transport: { kind: none }\nsend:\n  video: { capture: { kind: uri, url: '\(url)' }, encode: none }\n"
                .write(toFile: path, atomically: true, encoding: .utf8)
            let script = """
                ip link set lo up
                \(Self.startNginx(rtmp: 18591, http: 18592))
                mkdir -p "$TMP.nginx/www/hls"; printf '\(text)' > "$TMP.nginx/www/hls/\(name).m3u8"
                "$SLUICE" run '\(path)' --duration 40
                status=$?; kill $nginx; wait; exit $status
                """
            let r = try CLI.execute(
                inNamespace: script, env: ["SLUICE": CLI.binary.path, "TMP": dir.appendingPathComponent(name).path], timeout: 60,
                reportPath: nil)
            XCTAssertEqual(r.status, 3, "\(name): \(r.stderr)")
            XCTAssertLessThan(r.seconds, 20, "\(name): ended on its own")
            XCTAssertTrue(r.stderr.contains("uri capture \(url)"), "\(name): \(r.stderr)")
            XCTAssertTrue(r.stderr.lowercased().contains(reason), "\(name): \(r.stderr)")
        }
    }

    /// `sluice serve --pipeline Pipelines/rtmp-ingest.yaml` in front of nginx-rtmp, to which
    /// ffmpeg publishes a moving picture with AAC: aiortc, then Chromium, play it over WHEP
    /// (both stacks nobody here wrote), moving, at the source's size and rate.
    func testAiortcAndChromiumPlayAnRTMPStreamThroughServe() throws {
        try CLI.requireBrowserTools()
        let port = 18593
        let script = """
            ip link set lo up
            \(Self.startNginx(rtmp: 18594))
            ffmpeg -hide_banner -loglevel error -re -f lavfi -i testsrc2=size=640x360:rate=30 -f lavfi -i sine=frequency=440 \\
              \(Self.x264) -c:a aac -f flv rtmp://127.0.0.1:18594/live/stream > "$TMP.ffmpeg" 2>&1 &
            ffmpeg=$!
            RTMP_URL=rtmp://127.0.0.1:18594/live/stream "$SLUICE" serve --port \(port) --pipeline Pipelines/rtmp-ingest.yaml > "$TMP.serve" 2>&1 &
            server=$!
            \(CLI.waitForServe(port: port))
            "$PYTHON" Tests/Interop/aiortc/aiortc_peer.py whep-play http://127.0.0.1:\(port)/whep/rtmp-ingest \\
              --codec h264 --seconds 4 --timeout 20 > "$TMP.view" 2> "$TMP.err"
            echo "VIEW-STATUS: $?"; echo "VIEW: $(grep '^{' "$TMP.view" | tail -1)"; echo "VIEW-ERR: $(tail -c 800 "$TMP.err" | tr '\\n' ' ')"
            "$PYTHON" Tests/Browser/browser_check.py play http://127.0.0.1:\(port) rtmp-ingest --min-frames 30 --measure 1 --timeout 40 \\
              > "$TMP.chromium" 2> "$TMP.cerr"
            echo "CHROMIUM-STATUS: $?"; echo "CHROMIUM: $(grep '^{' "$TMP.chromium" | tail -1)"
            echo "CHROMIUM-ERR: $(tail -c 800 "$TMP.cerr" | tr '\\n' ' ')"
            kill -INT $server; wait $server; echo "SERVE-STATUS: $?"
            kill $ffmpeg $nginx; wait
            echo "SERVE-LOG: $(tail -c 1500 "$TMP.serve" | tr '\\n' ' ')"
            """
        let r = try CLI.execute(
            inNamespace: script,
            env: ["SLUICE": CLI.binary.path, "PYTHON": Repository.python, "TMP": dir.appendingPathComponent("serve").path],
            timeout: 150, reportPath: nil)
        let lines = r.keyedLines
        let j = ServeNATEndToEndTests.assertAiortcPlayed(lines, r.stdout + r.stderr.suffix(2000))
        XCTAssertEqual(lines["SERVE-STATUS"], "0", r.stdout)
        XCTAssertEqual(lines["CHROMIUM-STATUS"], "0", r.stdout)
        let chromium = (lines["CHROMIUM"].flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) } as? [String: Any]) ?? [:]
        XCTAssertEqual(chromium["width"] as? Int, 640, r.stdout)
        XCTAssertEqual(chromium["height"] as? Int, 360, r.stdout)
        let picture = chromium["picture"] as? [String: Any]
        XCTAssertGreaterThan(picture?["maxFrameDiff"] as? Double ?? 0, 0.5, "Chromium's picture moves: \(r.stdout)")
        print("rtmp through serve: aiortc first frame \(j["first_frame_ms"] ?? "?") ms; Chromium \(chromium["fps"] ?? "?") fps")
    }

    /// The RTMP publisher (ffmpeg, red) stops 4 s into the run and another (blue) publishes
    /// to the same stream 3 s later: nginx ends the stream for its players, Sluice reconnects
    /// and waits, the outage is reported with its length, and the recording shows red, then blue.
    func testAnRTMPPublisherThatLeavesAndComesBackIsWaitedFor() throws {
        let (file, record) = try loopback("rtmp-outage", capture: "{ kind: rtmp, url: 'rtmp://127.0.0.1:18595/live/cam' }")
        let r = try runAcrossAPublisherOutage("rtmp-outage", port: 18595, file: file, record: record)
        XCTAssertEqual(r.status, 0, "\(r.stdout.suffix(3000)) \(r.stderr.suffix(2000))")
        let sources = r.value("sources") as? [[String: Any]] ?? []
        XCTAssertEqual(sources.first?["outages"] as? Int, 1, "\(r.report ?? [:])")
        XCTAssertEqual(sources.first?["back"] as? Bool, true, "\(sources)")
        XCTAssertEqual(sources.first?["source"] as? String, "rtmp capture rtmp://127.0.0.1:18595/live/cam")
        let away = sources.first?["away_s"] as? Double ?? 0
        XCTAssertTrue((2.5...9).contains(away), "away about 3 s plus the wait for a keyframe: \(away)")
        let picture = RGBRecording(path: record + ".rgb", width: 640, height: 360)
        XCTAssertGreaterThan(picture.frames, 150, r.stdout.suffix(2000).description)
        guard picture.frames > 30 else { return }
        let first = picture.pixel(frame: 10, 320, 180), last = picture.lastPixel(320, 180)
        XCTAssertTrue(first[0] > 200 && first[2] < 60, "the first publisher's red: \(first)")
        XCTAssertTrue(last[2] > 200 && last[0] < 60, "the second publisher's blue: \(last)")
        print("rtmp outage: away \(String(format: "%.2f", away)) s")
    }

    /// The same outage with the video decoded and sent as VP8, and a picture file as the
    /// fallback (`fallback: {image: offline.png, after: 0.5}`): half a second after the red
    /// publisher leaves, the viewer gets the file's white picture scaled to the branch's
    /// 640×360, then the blue publisher once it is back. Nothing about the fallback is RTSP's.
    func testAnImageFallsBackForADecodedRTMPStreamWhileItsPublisherIsAway() throws {
        let image = dir.appendingPathComponent("offline.png").path
        _ = try ProcessRunner.run(
            URL(fileURLWithPath: "/usr/bin/gst-launch-1.0"),
            [
                "-q", "videotestsrc", "num-buffers=1", "pattern=white", "!", "video/x-raw,width=320,height=180", "!", "pngenc", "!", "filesink",
                "location=\(image)"
            ],
            timeout: 30)
        let capture = "{ kind: rtmp, url: 'rtmp://127.0.0.1:18671/live/cam', width: 640, height: 360, fallback: { image: '\(image)', after: 0.5 } }"
        let (file, record) = try loopback("rtmp-fallback", capture: capture, encode: "{ codec: vp8 }")
        let r = try runAcrossAPublisherOutage("rtmp-fallback", port: 18671, file: file, record: record)
        XCTAssertEqual(r.status, 0, "\(r.stdout.suffix(3000)) \(r.stderr.suffix(2000))")
        let source = (r.value("sources") as? [[String: Any]])?.first ?? [:]
        XCTAssertEqual(source["fallback_shown"] as? Int, 1, "\(r.report ?? [:])")
        let shown = source["fallback_s"] as? Double ?? 0
        XCTAssertTrue((2...9).contains(shown), "on air from 0.5 s after the publisher left until the next one's picture: \(shown)")
        XCTAssertTrue(r.stdout.contains("sending the fallback (image offline.png)"), r.stdout)
        let picture = RGBRecording(path: record + ".rgb", width: 640, height: 360)
        let runs = picture.pictureRuns
        XCTAssertEqual(picture.pictureSequence(), ["red", "white", "blue"], "the publisher, the picture file, the next publisher: \(runs)")
        XCTAssertGreaterThan(picture.frames, 300, "a picture all along: \(runs)")
        print("rtmp image fallback (decoded, VP8): on air \(String(format: "%.2f", shown)) s; pictures \(runs)")
    }
}
