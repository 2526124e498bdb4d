import Foundation
import SluiceTestSupport
import XCTest

/// `sink: {kind: record}`: segmented recordings through splitmuxsink, read back by programs
/// nobody here wrote (gst-discoverer-1.0, ffprobe): an RTSP camera (gst-rtsp-server)
/// recorded as it arrived, cut at keyframes; a recording killed with SIGKILL that still
/// plays; old segments deleted by `keep` and nothing else; decoded media encoded again.
final class RecordSinkEndToEndTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-record-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    private func segments(_ report: CLIResult) -> [String] {
        ((report.value("recordings") as? [[String: Any]])?.first?["segments"] as? [String]) ?? []
    }

    /// An IP camera's H.264 (gst-rtsp-server, a keyframe a second) passed through WebRTC and
    /// recorded with `decode: none`: segments of at most 3 s, each a file gst-discoverer reads,
    /// each starting with a keyframe, at the camera's size, its picture the camera's red.
    /// Nothing was decoded on the receiving side (no size learned from a decoder).
    func testACameraIsRecordedAsItArrivesInSegmentsThatStartAtKeyframes() throws {
        let file = dir.appendingPathComponent("camera.yaml").path
        try """
        name: door
        transport: { ice: { addresses: [127.0.0.1] } }
        send:
          video:
            capture: { kind: rtsp, url: "rtsp://127.0.0.1:18621/cam", transport: tcp }
            encode: none
        receive:
          video:
            decode: none
            sink: { kind: record, path: "\(dir.path)/rec/{name}-%Y%m%d-%H%M%S.mp4", segment: 3 }
        """.write(toFile: file, atomically: true, encoding: .utf8)
        let report = dir.appendingPathComponent("report.json").path
        let r = try CLI.execute(
            inNamespace: """
                ip link set lo up
                \(RTSPCaptureEndToEndTests.startServer(port: 18621, "--pattern red --size 640x360 --gop 30"))
                "$SLUICE" run '\(file)' --duration 7 --report '\(report)'
                status=$?
                stop_rtsp
                exit $status
                """,
            env: ["SLUICE": CLI.binary.path, "TMP": dir.appendingPathComponent("t").path], timeout: 90, reportPath: report)
        XCTAssertEqual(r.status, 0, r.stderr.suffix(3000).description)
        XCTAssertEqual(r.int("receive.video.width"), 0, "no decoder on the receiving side: \(r.report ?? [:])")
        let files = segments(r)
        XCTAssertTrue((2...5).contains(files.count), "about 6 s in segments of at most 3 s: \(files)\n\(r.stdout)")
        XCTAssertTrue(r.stdout.contains("recording"), r.stdout)
        for path in files {
            XCTAssertTrue(path.contains("/rec/door-"), path)
            let discovered = try RecordingProbe.discovers(path)
            XCTAssertTrue(discovered.ok, "\(path): \(discovered.text)")
            let p = try RecordingProbe.video(of: path)
            XCTAssertTrue(p.firstIsKeyframe, "\(path) starts with a keyframe")
            XCTAssertEqual(p.codec, "h264")
            XCTAssertEqual(p.width, 640, "the camera's own size")
            XCTAssertEqual(p.height, 360)
        }
        // Each full segment is two or three of the camera's 1-second groups of pictures: the
        // cut comes at the last keyframe that keeps a segment within 3 s.
        for path in files.dropFirst().dropLast() {
            let frames = try RecordingProbe.video(of: path).frames
            XCTAssertTrue((55...92).contains(frames), "\(path): \(frames) frames")
        }
        guard let last = files.last else { return }
        let picture = try RGBRecording.decoding(last, width: 640, height: 360)
        XCTAssertGreaterThan(picture.frames, 0)
        guard picture.frames > 0 else { return }
        let pixel = picture.lastPixel(320, 180)
        XCTAssertTrue(pixel[0] > 200 && pixel[1] < 60 && pixel[2] < 60, "the camera's red: \(pixel)")
    }

    /// SIGKILL in the middle of a segment: the fragmented MP4 written so far plays, up to
    /// its last whole fragment (a second each).
    func testARecordingKilledMidSegmentStillPlays() throws {
        let file = dir.appendingPathComponent("killed.yaml").path
        let rec = dir.appendingPathComponent("killed").path
        try """
        name: killed
        transport: { ice: { addresses: [127.0.0.1] } }
        send:
          video:
            capture: { kind: test, pattern: ball, width: 320, height: 240, fps: 30 }
            encode: { codec: h264, bitrate: 800 }
        receive:
          video:
            decode: none
            sink: { kind: record, path: "\(rec)/{n}.mp4", segment: 60 }
        """.write(toFile: file, atomically: true, encoding: .utf8)
        // Waits (bounded) until ffprobe reads at least 90 frames of the first segment, then kills.
        let r = try CLI.execute(
            inNamespace: """
                ip link set lo up
                "$SLUICE" run '\(file)' --duration 60 > /dev/null 2>&1 &
                run=$!
                i=0
                until [ "$(ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames -of csv=p=0 '\(rec)/00000.mp4' 2>/dev/null)" -ge 90 ] 2>/dev/null; do
                  i=$((i+1)); [ $i -lt 300 ] || { kill -9 $run; echo "never reached 90 frames" >&2; exit 91; }
                  kill -0 $run 2>/dev/null || { echo "the run ended early" >&2; exit 92; }
                  sleep 0.1
                done
                kill -9 $run; wait $run
                echo "KILLED: $?"
                """,
            env: ["SLUICE": CLI.binary.path], timeout: 90, reportPath: nil)
        XCTAssertEqual(r.keyedLines["KILLED"], "137", r.stdout + r.stderr)
        let path = rec + "/00000.mp4"
        let discovered = try RecordingProbe.discovers(path)
        XCTAssertTrue(discovered.ok, discovered.text)
        let p = try RecordingProbe.video(of: path)
        XCTAssertGreaterThanOrEqual(p.frames, 90, "everything up to the last fragment")
        XCTAssertTrue(p.firstIsKeyframe)
    }

    /// `keep: 1h` deletes this pipeline's segments older than an hour, as the first new one
    /// starts, and nothing else: not a newer one, not another pipeline's, not a file the path
    /// could not have named. Decoded media (VP8 over WebRTC) is encoded again, here to
    /// H.264 in MPEG-TS, with the sound as Opus.
    func testKeepDeletesOnlyOldSegmentsOfThisRecording() throws {
        let rec = dir.appendingPathComponent("rec")
        try FileManager.default.createDirectory(at: rec, withIntermediateDirectories: true)
        let old = Date().addingTimeInterval(-3 * 3600)
        let planted = [
            "yard-20200101-000000.ts": old, "yard-20200101-000001-1.ts": old, "yard-20991231-235959.ts": Date(),
            "gate-20200101-000000.ts": old, "yard-notes.ts": old, "yard-20200101-000000.mp4": old
        ]
        for (name, date) in planted {
            let path = rec.appendingPathComponent(name).path
            FileManager.default.createFile(atPath: path, contents: Data("x".utf8))
            try FileManager.default.setAttributes([.modificationDate: date], ofItemAtPath: path)
        }
        let file = dir.appendingPathComponent("keep.yaml").path
        try """
        name: yard
        transport: { ice: { addresses: [127.0.0.1] } }
        send:
          video:
            capture: { kind: test, pattern: blue, width: 320, height: 240, fps: 30 }
            encode: { codec: vp8, bitrate: 600 }
          audio:
            capture: { kind: test, wave: sine }
        receive:
          video: { sink: { kind: record, path: "\(rec.path)/{name}-%Y%m%d-%H%M%S.ts", segment: 2, keep: 1h } }
          audio: { sink: { kind: record, path: "\(rec.path)/{name}-%Y%m%d-%H%M%S.ts", segment: 2, keep: 1h } }
        """.write(toFile: file, atomically: true, encoding: .utf8)
        let r = try CLI.run(["run", file, "--duration", "5"], timeout: 60, report: true)
        XCTAssertEqual(r.status, 0, r.stderr.suffix(3000).description)
        let left = Set(try FileManager.default.contentsOfDirectory(atPath: rec.path))
        XCTAssertFalse(left.contains("yard-20200101-000000.ts"), "\(left)")
        XCTAssertFalse(left.contains("yard-20200101-000001-1.ts"), "\(left)")
        for kept in ["yard-20991231-235959.ts", "gate-20200101-000000.ts", "yard-notes.ts", "yard-20200101-000000.mp4"] {
            XCTAssertTrue(left.contains(kept), "\(kept) is not this recording's old segment: \(left)")
        }
        let deleted = (r.value("recordings") as? [[String: Any]])?.first?["deleted"] as? [String] ?? []
        XCTAssertEqual(deleted.map { ($0 as NSString).lastPathComponent }.sorted(), ["yard-20200101-000000.ts", "yard-20200101-000001-1.ts"])
        let files = segments(r)
        XCTAssertGreaterThanOrEqual(files.count, 2, r.stdout)
        guard let first = files.first else { return }
        let discovered = try RecordingProbe.discovers(first)
        XCTAssertTrue(discovered.ok, discovered.text)
        XCTAssertTrue(discovered.text.contains("H.264"), discovered.text)
        XCTAssertTrue(discovered.text.lowercased().contains("opus"), discovered.text)
        XCTAssertTrue(try RecordingProbe.video(of: first).firstIsKeyframe)
    }
    /// `send.video.record` with `transport: none`: an RTSP camera (gst-rtsp-server, H.264 and
    /// Opus) recorded as it comes, with no WebRTC and no encoder: MPEG-TS segments holding
    /// the camera's picture and sound, each starting with a keyframe.
    func testACameraIsRecordedWithoutWebRTCOrAnEncoder() throws {
        let file = dir.appendingPathComponent("recorder.yaml").path
        let path = "\(dir.path)/cam/{name}-{n}.ts"
        try """
        name: porch
        transport: { kind: none }
        send:
          video:
            capture: { kind: rtsp, url: "rtsp://127.0.0.1:18622/cam", transport: tcp }
            encode: none
            record: { path: "\(path)", segment: 2 }
          audio:
            capture: { kind: rtsp, url: "rtsp://127.0.0.1:18622/cam", transport: tcp }
            encode: none
            record: { path: "\(path)", segment: 2 }
        """.write(toFile: file, atomically: true, encoding: .utf8)
        let report = dir.appendingPathComponent("recorder.json").path
        let r = try CLI.execute(
            inNamespace: """
                ip link set lo up
                \(RTSPCaptureEndToEndTests.startServer(port: 18622, "--pattern green --size 480x270 --gop 15 --audio"))
                "$SLUICE" run '\(file)' --duration 6 --report '\(report)'
                status=$?
                stop_rtsp
                exit $status
                """,
            env: ["SLUICE": CLI.binary.path, "TMP": dir.appendingPathComponent("t").path], timeout: 90, reportPath: report)
        XCTAssertEqual(r.status, 0, r.stderr.suffix(3000).description)
        XCTAssertEqual(r.value("send.video.passthrough") as? Bool, true, "\(r.report ?? [:])")
        let files = segments(r)
        XCTAssertGreaterThanOrEqual(files.count, 2, "about 5 s in segments of at most 2 s: \(files)")
        for path in files {
            let discovered = try RecordingProbe.discovers(path)
            XCTAssertTrue(discovered.ok, "\(path): \(discovered.text)")
            XCTAssertTrue(discovered.text.lowercased().contains("opus"), "the camera's sound: \(discovered.text)")
            let p = try RecordingProbe.video(of: path)
            XCTAssertTrue(p.firstIsKeyframe, "\(path) starts with a keyframe")
            XCTAssertEqual(p.width, 480, "the camera's own size")
        }
        guard let first = files.first else { return }
        let picture = try RGBRecording.decoding(first, width: 480, height: 270)
        XCTAssertGreaterThan(picture.frames, 10)
        guard picture.frames > 0 else { return }
        let pixel = picture.lastPixel(240, 135)
        XCTAssertTrue(pixel[1] > 200 && pixel[0] < 60 && pixel[2] < 60, "the camera's green: \(pixel)")
    }

    /// `sluice serve` records the stream it serves (encoded once, for the viewers and the
    /// recording alike) while a WHEP viewer plays it; stopping the server finishes the last
    /// segment, and every segment plays.
    func testAServedStreamIsRecordedWhileViewersWatch() throws {
        let file = dir.appendingPathComponent("served.yaml").path
        let rec = dir.appendingPathComponent("served").path
        try """
        name: served
        transport: { kind: server, ice: { addresses: [127.0.0.1] } }
        send:
          video:
            capture: { kind: test, pattern: ball, width: 320, height: 240, fps: 30 }
            encode: { codec: h264, bitrate: 600 }
            record: { path: "\(rec)/{name}-%Y%m%d-%H%M%S.mkv", segment: 2 }
        """.write(toFile: file, atomically: true, encoding: .utf8)
        let r = try CLI.runWithServer(
            serve: ["--pipeline", file], port: 18623,
            run: ["Pipelines/whep-play.yaml", "--duration", "5", "--quiet"],
            env: ["SLUICE_WHEP": "http://127.0.0.1:18623/whep/served"])
        XCTAssertEqual(r.status, 0, r.stderr.suffix(2000).description)
        XCTAssertGreaterThan(r.int("receive.video.frames") ?? 0, 90, "the viewer saw the stream: \(r.stdout)")
        let files = try FileManager.default.contentsOfDirectory(atPath: rec).filter { $0.hasSuffix(".mkv") }.sorted()
        XCTAssertGreaterThanOrEqual(files.count, 2, "\(files)")
        var frames = 0
        for name in files {
            let path = rec + "/" + name
            let discovered = try RecordingProbe.discovers(path)
            XCTAssertTrue(discovered.ok, "\(path): \(discovered.text)")
            let p = try RecordingProbe.video(of: path)
            XCTAssertTrue(p.firstIsKeyframe, "\(name) starts with a keyframe")
            XCTAssertEqual(p.width, 320)
            frames += p.frames
        }
        XCTAssertGreaterThan(frames, 120, "the server ran longer than the viewer's 5 s, recording throughout")
    }
    /// `Pipelines/rtsp-record.yaml` in `sluice serve`: an RTSP camera (gst-rtsp-server) played
    /// by a WHEP viewer and recorded as it comes; stopping the server (SIGINT) finishes the
    /// segment, which holds the camera's frames at its size.
    func testTheRTSPRecordExampleServesAndRecordsTheCamera() throws {
        let rec = dir.appendingPathComponent("rec").path
        let report = dir.appendingPathComponent("viewer.json").path
        let r = try CLI.execute(
            inNamespace: """
                ip link set lo up
                \(RTSPCaptureEndToEndTests.startServer(port: 18624, "--pattern red --size 480x270 --gop 30"))
                RTSP_URL=rtsp://127.0.0.1:18624/cam RECORDINGS='\(rec)' "$SLUICE" serve --port 18625 --pipeline Pipelines/rtsp-record.yaml > /dev/null 2>&1 &
                server=$!
                i=0; until curl -s -m 1 -o /dev/null http://127.0.0.1:18625/status.json; do i=$((i+1)); [ $i -lt 200 ] || exit 90; sleep 0.05; done
                SLUICE_WHEP=http://127.0.0.1:18625/whep/rtsp-record "$SLUICE" run Pipelines/whep-play.yaml --duration 5 --quiet --report '\(report)'
                status=$?
                kill -INT $server; wait $server
                echo "SERVER: $?"
                stop_rtsp
                exit $status
                """,
            env: ["SLUICE": CLI.binary.path, "TMP": dir.appendingPathComponent("t").path], timeout: 90, reportPath: report)
        XCTAssertEqual(r.status, 0, r.stderr.suffix(3000).description)
        XCTAssertEqual(r.keyedLines["SERVER"], "0", r.stdout)
        XCTAssertGreaterThan(r.int("receive.video.frames") ?? 0, 90, "the viewer saw the camera: \(r.report ?? [:])")
        XCTAssertEqual(r.int("receive.video.width"), 480)
        let files = (try? FileManager.default.contentsOfDirectory(atPath: rec)) ?? []
        XCTAssertEqual(files.count, 1, "one segment of at most 60 s: \(files)")
        guard let name = files.first else { return }
        XCTAssertTrue(name.hasPrefix("rtsp-record-") && name.hasSuffix(".mp4"), name)
        let discovered = try RecordingProbe.discovers(rec + "/" + name)
        XCTAssertTrue(discovered.ok, discovered.text)
        let p = try RecordingProbe.video(of: rec + "/" + name)
        XCTAssertTrue(p.firstIsKeyframe)
        XCTAssertEqual(p.width, 480, "the camera's own size")
        XCTAssertGreaterThan(p.frames, 120, "recorded from the server's start to its stop, beyond the viewer's 5 s")
    }
    /// Records `pattern` for `seconds` into `rec` with `transport: none` (H.264, 2-second
    /// segments named by the time); returns the segments written.
    private func recordPattern(_ pattern: String, seconds: Int, into rec: String) throws -> [String] {
        let file = dir.appendingPathComponent("rec-\(pattern).yaml").path
        try """
        name: lobby
        transport: { kind: none }
        send:
          video:
            capture: { kind: test, pattern: \(pattern), width: 320, height: 240, fps: 30 }
            encode: { codec: h264, bitrate: 500, keyframe_interval: 30 }
            record: { path: "\(rec)/{name}-%Y%m%d-%H%M%S.mp4", segment: 2 }
        """.write(toFile: file, atomically: true, encoding: .utf8)
        let r = try CLI.run(["run", file, "--duration", "\(seconds)"], timeout: 60, report: true)
        XCTAssertEqual(r.status, 0, r.stderr.suffix(2000).description)
        return segments(r)
    }

    /// `kind: recording` plays segments back as they were recorded: a red recording, then a
    /// blue one a second later, into the same path. From the start: every recorded frame
    /// crosses WebRTC (never decoded on the way), red first and blue last; `from` the blue
    /// one's first second: blue from the first frame.
    func testARecordingPlaysBackEveryFrameFromTheSegmentAsked() throws {
        let rec = dir.appendingPathComponent("lobby").path
        let red = try recordPattern("red", seconds: 3, into: rec)
        // The second recording's names must start in a later second than the first's last.
        let lastRed = (red.last as NSString?)?.lastPathComponent ?? ""
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline, Self.stamp(Date()) <= String(lastRed.dropFirst("lobby-".count).prefix(15)) { usleep(50_000) }
        let blue = try recordPattern("blue", seconds: 3, into: rec)
        XCTAssertFalse(red.isEmpty || blue.isEmpty, "\(red) \(blue)")
        let recorded = try (red + blue).reduce(0) { $0 + (try RecordingProbe.video(of: $1).frames) }
        let blueStart = String(((blue.first ?? "") as NSString).lastPathComponent.dropFirst("lobby-".count).prefix(15))
        let from = Self.isoMoment(blueStart)
        for (name, start) in [("all", nil), ("blue", from)] as [(String, String?)] {
            let record = dir.appendingPathComponent("played-\(name).mkv").path
            let file = dir.appendingPathComponent("play-\(name).yaml").path
            try """
            transport: { ice: { addresses: [127.0.0.1] } }
            send:
              video:
                capture: { kind: recording, path: "\(rec)/{name}-%Y%m%d-%H%M%S.mp4", name: lobby\(start.map { ", from: \"\($0)\"" } ?? "") }
                encode: none
            receive:
              video: { sink: { kind: file, path: "\(record)" } }
            """.write(toFile: file, atomically: true, encoding: .utf8)
            let r = try CLI.run(["run", file, "--duration", "30"], timeout: 60, report: true)
            XCTAssertEqual(r.status, 0, "\(name): \(r.stderr.suffix(2000))")
            XCTAssertLessThan(r.seconds, 20, "\(name): ends with the recording")
            XCTAssertEqual(r.value("send.video.passthrough") as? Bool, true)
            let sent = r.int("send.video.frames") ?? 0
            if start == nil { XCTAssertEqual(sent, recorded, "every recorded frame, once: \(r.stdout)") }
            let picture = try RGBRecording.decoding(record, width: 320, height: 240)
            XCTAssertGreaterThan(picture.frames, 30, name)
            guard picture.frames > 0 else { continue }
            let first = picture.pixel(frame: 0, 160, 120), last = picture.lastPixel(160, 120)
            if start == nil {
                XCTAssertTrue(first[0] > 200 && first[2] < 60, "red first: \(first)")
            } else {
                XCTAssertTrue(first[2] > 200 && first[0] < 60, "blue from the first frame: \(first)")
            }
            XCTAssertTrue(last[2] > 200 && last[0] < 60, "\(name): blue last: \(last)")
        }
    }

    private static func stamp(_ date: Date) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.dateFormat = "yyyyMMdd-HHmmss"
        return f.string(from: date)
    }

    /// `20261127-093000` → `2026-11-27T09:30:00`.
    private static func isoMoment(_ stamp: String) -> String {
        let c = Array(stamp)
        guard c.count == 15 else { return stamp }
        return "\(String(c[0..<4]))-\(String(c[4..<6]))-\(String(c[6..<8]))T\(String(c[9..<11])):\(String(c[11..<13])):\(String(c[13..<15]))"
    }
    /// `POST /whep/<stream>?at=<time>` on `sluice serve`: a WHEP viewer (`sluice run`, a file
    /// sink) plays the served stream's recording from that time in a pipeline of its own, at
    /// the recorded frame rate, the recorded picture; a time that is not one, a stream that
    /// is not recorded and one that does not exist get 422, 422 and 404 with the reason.
    func testAWHEPViewerPlaysAServedStreamsRecordingFromATime() throws {
        let rec = dir.appendingPathComponent("served-rec").path
        let served = dir.appendingPathComponent("served.yaml").path
        let plain = dir.appendingPathComponent("plain.yaml").path
        try """
        name: hall
        transport: { kind: server, ice: { addresses: [127.0.0.1] } }
        send:
          video:
            capture: { kind: test, pattern: ball, width: 320, height: 240, fps: 30 }
            encode: { codec: h264, bitrate: 1500, keyframe_interval: 30 }
            record: { path: "\(rec)/{name}-%Y%m%d-%H%M%S.mp4", segment: 2 }
        """.write(toFile: served, atomically: true, encoding: .utf8)
        try """
        name: plain
        transport: { kind: server, ice: { addresses: [127.0.0.1] } }
        send:
          video: { capture: { kind: test }, encode: { codec: h264 } }
        """.write(toFile: plain, atomically: true, encoding: .utf8)
        let record = dir.appendingPathComponent("viewer.mkv").path
        let viewer = dir.appendingPathComponent("viewer.yaml").path
        try """
        transport: { kind: whep, endpoint: "${SLUICE_WHEP}", ice: { addresses: [127.0.0.1] } }
        receive:
          video: { sink: { kind: file, path: "\(record)" } }
        """.write(toFile: viewer, atomically: true, encoding: .utf8)
        let report = dir.appendingPathComponent("viewer.json").path
        let offer = "v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\na=rtpmap:96 H264/90000\r\n"
        let r = try CLI.execute(
            inNamespace: """
                ip link set lo up
                "$SLUICE" serve --port 18628 --pipeline '\(served)' --pipeline '\(plain)' > "$TMP.serve" 2>&1 &
                server=$!
                i=0; until [ "$(ls '\(rec)' 2>/dev/null | wc -l)" -ge 6 ]; do i=$((i+1)); [ $i -lt 400 ] || exit 90; sleep 0.05; done
                first=$(ls '\(rec)' | head -1)
                at=$(echo "$first" | sed -E 's/^hall-([0-9]{4})([0-9]{2})([0-9]{2})-([0-9]{2})([0-9]{2})([0-9]{2}).*/\\1-\\2-\\3T\\4:\\5:\\6/')
                echo "AT: $at"
                SLUICE_WHEP="http://127.0.0.1:18628/whep/hall?at=$at" "$SLUICE" run '\(viewer)' --duration 5 --report '\(report)'
                status=$?
                for q in "hall?at=yesterday" "plain?at=$at" "nobody?at=$at"; do
                  echo "ANSWER $q: $(curl -s -o "$TMP.body" -w '%{http_code}' -H 'Content-Type: application/sdp' --data-binary '\(offer)' "http://127.0.0.1:18628/whep/$q") $(cat "$TMP.body")"
                done
                kill -INT $server; wait $server
                exit $status
                """,
            env: ["SLUICE": CLI.binary.path, "TMP": dir.appendingPathComponent("pb").path], timeout: 90, reportPath: report)
        XCTAssertEqual(r.status, 0, r.stderr.suffix(3000).description + r.stdout)
        XCTAssertEqual(r.keyedLines["AT"]?.count, 19, "a time like 2026-11-27T09:30:00: \(r.stdout)")
        let frames = r.int("receive.video.frames") ?? 0
        // Four finished segments (8 s) outlast the viewer's 5 s.
        XCTAssertGreaterThan(frames, 60, "the recording from its start: \(r.report ?? [:])")
        let lines = r.stdout.split(separator: "\n").filter { $0.hasPrefix("ANSWER") }
        XCTAssertTrue(lines.contains { $0.contains("hall?at=yesterday: 422") && $0.contains("is not a time") }, "\(lines)")
        XCTAssertTrue(lines.contains { $0.contains("plain?at=") && $0.contains(": 422") && $0.contains("is not recorded") }, "\(lines)")
        XCTAssertTrue(lines.contains { $0.contains("nobody?at=") && $0.contains(": 404") }, "\(lines)")
        let picture = try RGBRecording.decoding(record, width: 320, height: 240)
        XCTAssertGreaterThan(picture.frames, 60)
        guard picture.frames > 0 else { return }
        // The playback waits for its viewer's connection: the viewer's first frame is the
        // recording's first, the ball where videotestsrc draws it in its first frame (and
        // not where it is a second later, the next keyframe).
        let start = dir.appendingPathComponent("ball.raw").path
        _ = try ProcessRunner.run(
            URL(fileURLWithPath: "/usr/bin/gst-launch-1.0"),
            [
                "-q", "videotestsrc", "pattern=ball", "num-buffers=31", "!", "video/x-raw,width=320,height=240,framerate=30/1", "!", "videoconvert", "!",
                "video/x-raw,format=RGB", "!", "filesink", "location=\(start)"
            ],
            timeout: 30)
        let ball = RGBRecording(path: start, width: 320, height: 240)
        XCTAssertEqual(ball.frames, 31)
        guard ball.frames == 31 else { return }
        let atStart = picture.meanDifference(frame: 0, to: ball, frame: 0), aSecondLater = picture.meanDifference(frame: 0, to: ball, frame: 30)
        XCTAssertLessThan(atStart, aSecondLater / 3, "the viewer's first frame is the recording's first: \(atStart) vs \(aSecondLater) a second in")
    }
}
