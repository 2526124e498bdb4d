import Foundation
import SluiceTestSupport
import XCTest

/// `sluice serve --cast`: a Cast-style receiver driven by pychromecast (PyPI), a sender nobody
/// here wrote, in a loopback-only namespace with multicast on loopback for discovery.
final class CastEndToEndTests: XCTestCase {
    private func requireSender() throws {
        let r = try CLI.execute(URL(fileURLWithPath: Repository.python), ["-c", "import pychromecast"], env: [:], timeout: 30, reportPath: nil)
        if r.status != 0 {
            XCTFail("pychromecast is not installed in .venv: run Scripts/install.sh testing")
            throw XCTSkip("pychromecast is not installed")
        }
    }

    private func lines(_ stdout: String) -> [String: String] {
        var out: [String: String] = [:]
        for line in stdout.components(separatedBy: "\n") {
            guard let colon = line.range(of: ": ") else { continue }
            out[String(line[..<colon.lowerBound])] = String(line[colon.upperBound...])
        }
        return out
    }

    /// pychromecast discovers the receiver, launches the Default Media Receiver and loads a
    /// file the test made (red, 3 s); sees PLAYING and a currentTime that moves; a second
    /// pychromecast sender sees the same media and state; pause (both see PAUSED), seek, play,
    /// volume (the second sees it), and a queued item from HTTP (blue) that starts when the
    /// first ends, seen by both. A WHEP viewer of `sluice serve` records what plays then: blue.
    /// Last, the first sender stops the app and the second sees the receiver without one.
    func testPychromecastDrivesTheReceiverAndAWHEPViewerSeesTheMedia() throws {
        try requireSender()
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("cast-\(UUID().uuidString.prefix(6))").path
        try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: d) }
        try """
        version: 1
        name: cast-view
        transport: {kind: whep, endpoint: 'http://127.0.0.1:18662/whep/cast', ice: {addresses: [127.0.0.1]}}
        receive:
          video: {sink: {kind: file, path: '\(d)/view.mkv'}}
        """.write(toFile: "\(d)/view.yaml", atomically: true, encoding: .utf8)
        let root = Repository.root.path
        let script = """
            ip link set lo up; ip link set lo multicast on; ip route add 224.0.0.0/4 dev lo
            cd '\(root)'
            gst-launch-1.0 -q videotestsrc num-buffers=90 pattern=red ! video/x-raw,width=320,height=240,framerate=30/1 ! vp8enc deadline=1 ! webmmux ! filesink location=\(d)/first.webm || exit 91
            gst-launch-1.0 -q videotestsrc num-buffers=600 pattern=blue ! video/x-raw,width=320,height=240,framerate=30/1 ! vp8enc deadline=1 ! webmmux ! filesink location=\(d)/second.webm || exit 92
            (cd \(d) && exec python3 -m http.server 18710 --bind 127.0.0.1 > /dev/null 2>&1) &
            web=$!
            SLUICE_CAST_WIDTH=640 SLUICE_CAST_HEIGHT=360 "$SLUICE" serve --port 18662 --pipeline Pipelines/cast-receiver.yaml --cast "Sluice Test TV" \\
              --cast-allow file: --cast-allow http://127.0.0.1:18710/ --cast-size 640x360 > \(d)/serve.out 2>&1 &
            serve=$!
            i=0; until curl -s -m 1 -o /dev/null http://127.0.0.1:18662/status.json && curl -s -m 1 -o /dev/null http://127.0.0.1:18710/; do
              i=$((i+1)); [ $i -lt 200 ] || exit 93; sleep 0.05; done
            PYTHONFAULTHANDLER=1 '\(Repository.python)' Tests/Interop/cast/cast_sender.py "Sluice Test TV" file://\(d)/first.webm http://127.0.0.1:18710/second.webm \\
              --timeout 15 --hold-until \(d)/viewed > \(d)/sender.out 2> \(d)/sender.err &
            sender=$!
            # While the queued item plays, a WHEP viewer records what the receiver serves.
            i=0; until grep -q QUEUED \(d)/sender.out 2>/dev/null; do i=$((i+1)); [ $i -lt 1200 ] || break; kill -0 $sender 2>/dev/null || break; sleep 0.05; done
            "$SLUICE" run \(d)/view.yaml --duration 3 --quiet > /dev/null 2> \(d)/view.err; echo "VIEW-STATUS: $?"
            touch \(d)/viewed
            wait $sender; echo "SENDER-STATUS: $?"
            echo "SENDER: $(grep '^{' \(d)/sender.out)"
            echo "SENDER-ERR: $(grep -v 'Failed to determine cast type' \(d)/sender.err | tr '\\n' ' ' | cut -c1-800)"
            echo "VIEW-ERR: $(tr '\\n' ' ' < \(d)/view.err | cut -c1-600)"
            kill -INT $serve; wait $serve; echo "SERVE-STATUS: $?"
            kill $web
            gst-launch-1.0 -q filesrc location=\(d)/view.mkv ! matroskademux ! decodebin ! videoconvert ! video/x-raw,format=RGB ! filesink location=\(d)/view.rgb
            echo "DECODE-STATUS: $?"
            echo "SERVE: $(tr '\\n' ' ' < \(d)/serve.out | cut -c1-600)"
            """
        let r = try CLI.execute(
            inNamespace: script,
            env: ["SLUICE": CLI.binary.path], timeout: 150, reportPath: nil)
        let l = lines(r.stdout)
        XCTAssertEqual(l["SENDER-STATUS"], "0", r.stdout + r.stderr)
        let seen = (l["SENDER"].flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) } as? [String: Any]) ?? [:]
        let discovered = seen["discovered"] as? [String: Any]
        XCTAssertEqual(discovered?["name"] as? String, "Sluice Test TV", "discovered over multicast DNS: \(seen)")
        XCTAssertEqual((discovered?["port"] as? NSNumber)?.intValue, 8009)
        XCTAssertEqual(seen["app"] as? String, "Default Media Receiver")
        let first = seen["first"] as? [String: Any]
        XCTAssertEqual(first?["content"] as? String, "file://\(d)/first.webm")
        XCTAssertGreaterThanOrEqual(
            ((first?["time_to"] as? NSNumber)?.doubleValue ?? 0) - ((first?["time_from"] as? NSNumber)?.doubleValue ?? 0), 1.0,
            "currentTime moved: \(seen)")
        XCTAssertEqual((first?["duration"] as? NSNumber)?.doubleValue ?? 0, 3, accuracy: 0.2, "the file's own duration")
        XCTAssertEqual((seen["second_sees"] as? [String: Any])?["content"] as? String, "file://\(d)/first.webm")
        XCTAssertEqual((seen["paused"] as? [String: Any])?["second"] as? String, "PAUSED", "the pause reached the other sender")
        XCTAssertEqual((seen["volume_seen_by_second"] as? NSNumber)?.doubleValue ?? 0, 0.3, accuracy: 0.01)
        let queued = seen["queued"] as? [String: Any]
        XCTAssertEqual(queued?["second_sees"] as? String, "http://127.0.0.1:18710/second.webm", "the queued item followed the first: \(seen)")
        XCTAssertEqual(queued?["state"] as? String, "PLAYING")
        let stopped = seen["stopped"] as? [String: Any]
        XCTAssertNotNil(stopped, "the app was stopped: \(seen)")
        XCTAssertTrue(stopped?["second_app"] is NSNull, "the second sender saw the receiver without an app: \(seen)")
        XCTAssertEqual(l["VIEW-STATUS"], "0", r.stdout)
        XCTAssertEqual(l["SERVE-STATUS"], "0", r.stdout)
        XCTAssertEqual(l["DECODE-STATUS"], "0", r.stdout)
        // What the WHEP viewer recorded is the cast media (blue), not the receiver's black.
        let recording = RGBRecording(path: "\(d)/view.rgb", width: 640, height: 360)
        XCTAssertGreaterThan(recording.frames, 30, "frames the viewer recorded")
        guard recording.frames >= 1 else { return }
        let pixel = recording.lastPixel(320, 180)
        XCTAssertTrue(pixel[2] > 180 && pixel[0] < 60 && pixel[1] < 60, "the viewer sees the cast media (blue): \(pixel)")
    }

    /// Malformed frames (a 16 MiB length, a body that is not protobuf, a 70 KB message), an
    /// unknown namespace, text that is not JSON, an unknown app, a URL outside --cast-allow, a
    /// device-auth challenge, plain bytes instead of TLS, and 100 senders that connect, ping and
    /// vanish: each gets its error reply or a close (pychromecast's own protobuf makes the
    /// frames), and a well-behaved sender is then answered as before.
    func testHostileSendersGetErrorsOrClosesAndTheReceiverKeepsServing() throws {
        try requireSender()
        let script = """
            ip link set lo up
            cd '\(Repository.root.path)'
            "$SLUICE" serve --port 18663 --pipeline Pipelines/cast-receiver.yaml --cast "Hostile TV" --cast-port 18009 --cast-allow file: > /dev/null 2>&1 &
            serve=$!
            i=0; until curl -s -m 1 -o /dev/null http://127.0.0.1:18663/status.json; do i=$((i+1)); [ $i -lt 200 ] || exit 93; sleep 0.05; done
            echo "HOSTILE: $('\(Repository.python)' Tests/Interop/cast/cast_hostile.py 127.0.0.1 18009 --senders 100)"
            kill -INT $serve; wait $serve; echo "SERVE-STATUS: $?"
            """
        let r = try CLI.execute(
            inNamespace: script,
            env: ["SLUICE": CLI.binary.path], timeout: 120, reportPath: nil)
        let l = lines(r.stdout)
        let got = (l["HOSTILE"].flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) } as? [String: Any]) ?? [:]
        for closing in ["bad-length", "broken-protobuf", "oversized", "tls-garbage"] {
            XCTAssertEqual(got[closing] as? String, "closed", "\(closing): \(got) \(r.stderr)")
        }
        XCTAssertEqual((got["unknown-ns"] as? [String: Any])?["reason"] as? String, "UNKNOWN_NAMESPACE", "\(got)")
        XCTAssertEqual(got["not-json"] as? String, "INVALID_REQUEST")
        XCTAssertEqual(got["unknown-app"] as? String, "LAUNCH_ERROR")
        XCTAssertEqual((got["disallowed"] as? [String: Any])?["type"] as? String, "LOAD_FAILED")
        XCTAssertTrue(((got["disallowed"] as? [String: Any])?["reason"] as? String)?.contains("is not allowed") ?? false, "\(got)")
        XCTAssertEqual(got["device-auth"] as? String, "error", "device authentication is answered, with an AuthError")
        XCTAssertEqual((got["flood-pongs"] as? NSNumber)?.intValue, 100)
        XCTAssertEqual(got["after-ping"] as? String, "PONG")
        XCTAssertEqual(got["after-status"] as? String, "RECEIVER_STATUS")
        XCTAssertEqual(l["SERVE-STATUS"], "0", "the server stopped cleanly: \(r.stdout)")
    }

    /// `transport.kind: cast` — the receiver as a pipeline file (Pipelines/cast-record.yaml):
    /// pychromecast (Tests/Interop/cast/cast_queue.py) loads a red item with a 700 Hz tone, queues
    /// a blue one with 1500 Hz, jumps to it with queue_next and back with queue_prev. The run's
    /// recording shows it: black (nothing cast yet), then red, blue, red, each for more than half
    /// a second; its last second sounds at 700 Hz, not 1500.
    func testACastReceiverFileRecordsWhatSendersPlayThroughTheQueue() throws {
        try requireSender()
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("cast-run-\(UUID().uuidString.prefix(6))").path
        try FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: d) }
        let root = Repository.root.path
        let media = { (colour: String, hz: Int) in
            "gst-launch-1.0 -q videotestsrc num-buffers=300 pattern=\(colour) ! video/x-raw,width=320,height=240,framerate=30/1 ! vp8enc deadline=1 "
                + "! webmmux name=m ! filesink location=\(d)/\(colour).webm audiotestsrc num-buffers=500 freq=\(hz) ! audio/x-raw,rate=48000,channels=2 ! opusenc ! m."
        }
        let script = """
            ip link set lo up; ip link set lo multicast on; ip route add 224.0.0.0/4 dev lo
            cd '\(root)'
            \(media("red", 700)) || exit 91
            \(media("blue", 1500)) || exit 92
            SLUICE_CAST_NAME="Sluice Run TV" SLUICE_CAST_PORT=18012 SLUICE_CAST_ALLOW=file: SLUICE_CAST_SIZE=320x240 SLUICE_RECORDING=\(d)/cast.mkv \
              "$SLUICE" run Pipelines/cast-record.yaml --duration 40 --log-level info --report \(d)/run.json > \(d)/run.out 2>&1 &
            run=$!
            i=0; until grep -q 'accepts senders' \(d)/run.out; do i=$((i+1)); [ $i -lt 300 ] || exit 93; sleep 0.05; done
            cd Tests/Interop/cast && PYTHONFAULTHANDLER=1 '\(Repository.python)' cast_queue.py "Sluice Run TV" file://\(d)/red.webm file://\(d)/blue.webm --dwell 1.5 > \(d)/queue.out 2> \(d)/queue.err
            echo "QUEUE-STATUS: $?"
            echo "QUEUE: $(grep '^{' \(d)/queue.out)"
            echo "QUEUE-ERR: $(grep -v 'Failed to determine cast type' \(d)/queue.err | tr '\\n' ' ' | cut -c1-800)"
            kill -INT $run; wait $run; echo "RUN-STATUS: $?"
            echo "RUN: $(grep -v '^ *[0-9.]*s  send' \(d)/run.out | tr '\\n' ' ' | cut -c1-800)"
            gst-launch-1.0 -q filesrc location=\(d)/cast.mkv ! matroskademux name=v v.video_0 ! queue ! decodebin ! videoconvert ! video/x-raw,format=RGB,width=320,height=240 ! filesink location=\(d)/cast.rgb
            gst-launch-1.0 -q filesrc location=\(d)/cast.mkv ! matroskademux name=a a.audio_0 ! queue ! decodebin ! audioconvert ! audioresample ! audio/x-raw,format=S16LE,channels=1,rate=48000 ! filesink location=\(d)/cast.pcm
            echo "SEEN: $('\(Repository.python)' -c '
            import json, numpy, sys
            frames = numpy.fromfile(sys.argv[1], dtype=numpy.uint8).reshape(-1, 240, 320, 3)
            runs = []
            for f in frames:
                r, g, b = (int(x) for x in f[120, 160])
                c = "red" if r > 200 and g < 60 and b < 60 else "blue" if b > 200 and r < 60 and g < 60 else "black" if max(r, g, b) < 40 else "other"
                if runs and runs[-1][0] == c:
                    runs[-1][1] += 1
                else:
                    runs.append([c, 1])
            pcm = numpy.fromfile(sys.argv[2], dtype="<i2").astype(float)[-48000:]
            spectrum = numpy.abs(numpy.fft.rfft(pcm * numpy.hanning(len(pcm))))
            floor = float(numpy.median(spectrum)) or 1.0
            at = lambda hz: float(spectrum[int(hz * len(pcm) / 48000) - 3:int(hz * len(pcm) / 48000) + 4].max()) / floor
            print(json.dumps({"runs": runs, "700": at(700), "1500": at(1500)}))' \(d)/cast.rgb \(d)/cast.pcm)"
            """
        let r = try CLI.execute(
            inNamespace: script,
            env: ["SLUICE": CLI.binary.path], timeout: 150, reportPath: nil)
        let l = lines(r.stdout)
        let raw = r.stdout + r.stderr
        XCTAssertEqual(l["QUEUE-STATUS"], "0", raw)
        XCTAssertEqual(l["RUN-STATUS"], "0", raw)
        let queue = (l["QUEUE"].flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) } as? [String: Any]) ?? [:]
        XCTAssertEqual((queue["supports"] as? [String: Bool]) ?? [:], ["next": true, "prev": true], "\(queue)")
        XCTAssertEqual((queue["next"] as? [String: Any])?["content"] as? String, "file://\(d)/blue.webm", "\(queue)")
        XCTAssertEqual((queue["prev"] as? [String: Any])?["content"] as? String, "file://\(d)/red.webm", "\(queue)")
        let seen = (l["SEEN"].flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) } as? [String: Any]) ?? [:]
        print("cast run recording, colour runs and tones: \(seen)")
        // The recording's picture, in runs of one colour longer than half a second: what the
        // senders did, in order.
        let runs = ((seen["runs"] as? [[Any]]) ?? []).compactMap { run -> String? in
            guard let colour = run.first as? String, let n = (run.last as? NSNumber)?.intValue, n > 15 else { return nil }
            return colour
        }
        XCTAssertEqual(runs, ["red", "blue", "red"].reduce(into: runs.first == "black" ? ["black"] : []) { $0.append($1) }, "\(seen)")
        XCTAssertTrue(runs.first == "black" || runs.first == "red", "\(seen)")
        XCTAssertGreaterThan((seen["700"] as? NSNumber)?.doubleValue ?? 0, 100, "the red item's tone at the end: \(seen)")
        XCTAssertLessThan(
            (seen["1500"] as? NSNumber)?.doubleValue ?? .infinity, ((seen["700"] as? NSNumber)?.doubleValue ?? 0) / 1000,
            "the blue item's tone is gone (at most a thousandth of the red one's): \(seen)")
        let report = (FileManager.default.contents(atPath: "\(d)/run.json").flatMap { try? JSONSerialization.jsonObject(with: $0) } as? [String: Any]) ?? [:]
        XCTAssertEqual((report["session"] as? [String: Any])?["role"] as? String, "cast receiver", "\(report)")
        XCTAssertEqual((((report["receive"] as? [String: Any])?["video"] as? [String: Any])?["width"] as? NSNumber)?.intValue, 320, "\(report)")
    }
}
