import Foundation
import SluiceTestSupport
import XCTest

/// The interop matrix, Pion column (Go; Debian `golang-github-pion-webrtc.v3-dev`, the stack
/// under LiveKit, MediaMTX and go2rtc): Pion plays Sluice over WHEP, publishes pre-encoded
/// files to Sluice over WHIP, and serves WHEP to Sluice — VP8, H.264 and VP9, with Opus.
/// Pion demultiplexes by SSRC and MID: before Sluice signalled both correctly, it got ICE and
/// DTLS up and then 0 frames ("mid RTP Extensions required").
final class InteropPionTests: XCTestCase {
    static let seconds = 4
    static let codecs = ["vp8", "h264", "vp9"]

    /// Built once per test run (`Tests/Interop/pion/build.sh`, offline, GOPATH mode), with
    /// media files made by gst-launch: 10 s of 640x360 per codec and Opus in Ogg.
    static let setup: Result<(peer: String, media: URL), Error> = Result {
        let peer = Repository.path(".build/interop/pionpeer")
        let build = try CLI.execute(
            URL(fileURLWithPath: "/bin/bash"), [Repository.path("Tests/Interop/pion/build.sh"), peer],
            env: [:], timeout: 400, reportPath: nil)
        guard build.status == 0 else { throw Failure("Tests/Interop/pion/build.sh failed (run Scripts/install.sh):\n\(build.stderr.suffix(3000))") }
        let media = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-pion-media-\(getpid())")
        try FileManager.default.createDirectory(at: media, withIntermediateDirectories: true)
        let raw = "videotestsrc num-buffers=300 pattern=ball ! video/x-raw,width=640,height=360,framerate=30/1"
        let pipelines = [
            "vp8.ivf": "\(raw) ! vp8enc deadline=1 keyframe-max-dist=30 ! avmux_ivf",
            "vp9.ivf": "\(raw) ! vp9enc deadline=1 cpu-used=8 keyframe-max-dist=30 ! avmux_ivf",
            "h264.h264":
                "\(raw) ! x264enc tune=zerolatency speed-preset=ultrafast key-int-max=30 bframes=0 ! video/x-h264,profile=constrained-baseline,stream-format=byte-stream",
            "a.ogg": "audiotestsrc num-buffers=500 ! audio/x-raw,rate=48000,channels=2 ! opusenc ! oggmux max-page-delay=1"
        ]
        for (file, p) in pipelines {
            let args = ["-q"] + p.split(separator: " ").map(String.init) + ["!", "filesink", "location=\(media.appendingPathComponent(file).path)"]
            let r = try CLI.execute(URL(fileURLWithPath: "/usr/bin/gst-launch-1.0"), args, env: [:], timeout: 120, reportPath: nil)
            guard r.status == 0 else { throw Failure("gst-launch could not make \(file): \(r.stderr.suffix(2000))") }
        }
        return (peer, media)
    }

    struct Failure: Error, CustomStringConvertible { var description: String; init(_ d: String) { description = d } }

    var peer: String { (try? Self.setup.get().peer) ?? "" }
    func video(_ codec: String) -> String {
        ((try? Self.setup.get().media) ?? URL(fileURLWithPath: "/nonexistent")).appendingPathComponent(codec == "h264" ? "h264.h264" : "\(codec).ivf").path
    }
    var audio: String { ((try? Self.setup.get().media) ?? URL(fileURLWithPath: "/nonexistent")).appendingPathComponent("a.ogg").path }

    override func setUpWithError() throws { _ = try Self.setup.get() }

    func testPionPlaysSluiceOverWHEP() throws {
        for (i, codec) in Self.codecs.enumerated() {
            let r = try CLI.runClientWithServer(
                serve: ["--pipeline", "Pipelines/serve-av.yaml"], port: 18611 + i,
                client: "'\(peer)' whep-play --url \"$URL/whep/serve-av\" --seconds \(Self.seconds) --codec \(codec)",
                env: ["CODEC": codec], timeout: 90)
            XCTAssertEqual(r.status, 0, "\(codec): \(r.stderr.suffix(4000))")
            let j = try InteropAiortcTests.json(r)
            XCTAssertEqual(j["video_codec"] as? String, codec, "\(j)")
            XCTAssertEqual(j["width"] as? Int, 640, "\(codec): \(j)")
            XCTAssertEqual(j["height"] as? Int, 360, "\(codec): \(j)")
            XCTAssertGreaterThanOrEqual(j["fps"] as? Double ?? 0, 24, "\(codec): ≥ 80% of 30 fps: \(j)")
            XCTAssertGreaterThan(j["audio_packets"] as? Int ?? 0, Self.seconds * 40, "\(codec): Opus arrives: \(j)")
            let unhandled = (j["unhandled"] as? [String] ?? []).filter { $0.contains("RTP") && !$0.contains("RTCP") }
            XCTAssertEqual(unhandled, [], "\(codec): every RTP stream is matched to its track")
        }
    }

    /// `gop_cache: true` with a keyframe every 20 s: three Pion viewers join one after the
    /// other, and each decodes its first picture within a second (before Pion's own keyframe
    /// request, which it sends after a second without one) from the cached keyframe and the
    /// frames after it; the encoder is asked for no keyframe.
    func testViewersOfAGOPCachedStreamStartFromTheCacheAndAskForNoKeyframe() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-gop-\(UUID().uuidString).yaml").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try """
        name: cached
        transport: { kind: server, ice: { addresses: [127.0.0.1] } }
        send:
          video:
            capture: { kind: test, width: 640, height: 360, fps: 30 }
            encode: { codec: vp8, bitrate: 800, keyframe_interval: 600, gop_cache: true }
        """.write(toFile: path, atomically: true, encoding: .utf8)
        let viewer = "'\(peer)' whep-play --url \"$URL/whep/cached\" --seconds 1 --codec vp8"
        let r = try CLI.runClientWithServer(
            serve: ["--pipeline", path], port: 18618,
            client: "sleep 1.5; for i in 1 2 3; do \(viewer) || exit 1; done; echo METRICS:; curl -s \"$URL/metrics\"",
            timeout: 90)
        XCTAssertEqual(r.status, 0, r.stderr.suffix(4000) + r.stdout)
        let parts = r.stdout.components(separatedBy: "METRICS:")
        let viewers = parts[0].split(separator: "\n").compactMap { line -> [String: Any]? in
            guard line.hasPrefix("{") else { return nil }
            return try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        }
        XCTAssertEqual(viewers.count, 3, r.stdout)
        for (i, v) in viewers.enumerated() {
            XCTAssertGreaterThan(v["video_frames"] as? Int ?? 0, 10, "viewer \(i + 1) decodes frames: \(v)")
            let first = ((v["steps_ms"] as? [String: Any])?["first frame complete"] as? NSNumber)?.doubleValue
            XCTAssertLessThan(first ?? 10_000, 1000, "viewer \(i + 1) starts before its own keyframe request: \(v)")
        }
        let metrics = parts.count > 1 ? parts[1] : ""
        let cached = metrics.split(separator: "\n").first { $0.hasPrefix("sluice_stream_cached_frames_sent_total") }
        XCTAssertGreaterThan(Double(cached?.split(separator: " ").last ?? "") ?? 0, 3, "viewers got the cached frames: \(metrics)")
        let passed = metrics.split(separator: "\n").first { $0.hasPrefix("sluice_stream_keyframe_requests_total") && $0.contains("passed") }
        XCTAssertEqual(Double(passed?.split(separator: " ").last ?? "0"), 0, "no keyframe was asked of the encoder: \(metrics)")
    }

    func testPionPublishesToSluiceOverWHIP() throws {
        for (i, codec) in Self.codecs.enumerated() {
            let client = "'\(peer)' whip-publish --url \"$URL/whip/server\" --seconds \(Self.seconds) --video '\(video(codec))' --audio '\(audio)'"
            let r = try CLI.runClientWithServer(serve: ["--receive", "Pipelines/server.yaml"], port: 18621 + i, client: client, timeout: 90)
            XCTAssertEqual(r.status, 0, "\(codec): \(r.stderr.suffix(4000))")
            let sent = try InteropAiortcTests.json(r)["video_frames_sent"] as? Int ?? 0
            let after = try XCTUnwrap(r.stdout.components(separatedBy: "AFTER:").last)
            let whip = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(after.utf8)) as? [String: Any], after)
            let ended = (whip["ended"] as? [String: Any])?["server"] as? [String: Any] ?? [:]
            XCTAssertGreaterThan(sent, Self.seconds * 25, "\(codec): Pion sent frames")
            XCTAssertGreaterThanOrEqual(Double(ended["video_frames"] as? Int ?? 0), 0.8 * Double(sent), "\(codec): decoded ≥ 80% of \(sent): \(after)")
            XCTAssertGreaterThan(ended["audio_buffers"] as? Int ?? 0, Self.seconds * 40, "\(codec): audio: \(after)")
        }
    }

    func testSluicePlaysPionOverWHEP() throws {
        for (i, codec) in Self.codecs.enumerated() {
            let port = 18631 + i
            let report = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-pion-\(UUID().uuidString).json").path
            let script = """
                ip link set lo up
                '\(peer)' whep-serve --listen 127.0.0.1:\(port) --video '\(video(codec))' --audio '\(audio)' --seconds 40 >/dev/null &
                peer=$!
                i=0; until curl -s -m 1 -o /dev/null http://127.0.0.1:\(port)/; do i=$((i+1)); [ $i -lt 300 ] || exit 90; sleep 0.05; done
                SLUICE_WHEP=http://127.0.0.1:\(port)/whep "$SLUICE" run Pipelines/whep-play.yaml --set 'receive.video.codecs=[\(codec)]' --duration \(Self.seconds + 1) --quiet --report '\(report)'
                status=$?
                kill $peer; wait $peer
                exit $status
                """
            let r = try CLI.execute(
                inNamespace: script,
                env: ["SLUICE": CLI.binary.path], timeout: 90, reportPath: report)
            XCTAssertEqual(r.status, 0, "\(codec): \(r.stderr.suffix(3000))")
            XCTAssertEqual(r.value("receive.video.codec") as? String, codec)
            XCTAssertEqual(r.int("receive.video.width"), 640, codec)
            XCTAssertEqual(r.int("receive.video.height"), 360, codec)
            // The rate once pictures flow: the run's own fps also counts the seconds before
            // the first frame, which a loaded machine stretches (1.2 s in one CI run).
            let frames = Double(r.int("receive.video.frames") ?? 0), duration = r.double("duration_s") ?? 0
            let firstFrame = (r.double("time_to_first_frame_ms") ?? 1e9) / 1000
            XCTAssertLessThan(firstFrame, 5, "\(codec): \(r.report ?? [:])")
            XCTAssertGreaterThanOrEqual(frames / max(0.1, duration - firstFrame), 24, "\(codec): \(r.report ?? [:])")
            XCTAssertGreaterThan(r.int("receive.audio.buffers") ?? 0, Self.seconds * 40, "\(codec): audio")
        }
    }

    /// A WHIP publisher that vanishes without DELETE (Pion killed mid-stream) is ended
    /// within 10 s, as its DELETE would have ended it: its session is gone from /whip.json,
    /// what it sent is counted, and the removal is counted as `silent`.
    func testAPublisherThatVanishesIsEndedWithinTenSeconds() throws {
        let client = """
            '\(peer)' whip-publish --url "$URL/whip/server" --seconds 120 --video '\(video("vp8"))' --audio '\(audio)' >/dev/null 2>&1 &
            pub=$!
            i=0; until curl -s -m 1 "$URL/whip.json" | grep -q '"video_frames":[1-9]'; do i=$((i+1)); [ $i -lt 300 ] || exit 93; sleep 0.05; done
            kill -9 $pub; t0=$(date +%s.%N)
            i=0; until curl -s -m 1 "$URL/whip.json" | grep -q '"sessions":\\[\\]'; do i=$((i+1)); [ $i -lt 300 ] || exit 94; sleep 0.05; done
            echo "GONE_AFTER $(awk "BEGIN{print $(date +%s.%N) - $t0}")"
            """
        let r = try CLI.runClientWithServer(serve: ["--receive", "Pipelines/server.yaml"], port: 18640, client: client, timeout: 90)
        XCTAssertEqual(r.status, 0, String(r.stdout.suffix(1000)) + String(r.stderr.suffix(2000)))
        let gone = Double(ServeLoadTests.line("GONE_AFTER ", in: r.stdout) ?? "") ?? 99
        XCTAssertLessThanOrEqual(gone, 10, "found and ended within 10 s")
        let after = try XCTUnwrap(r.stdout.components(separatedBy: "AFTER:").last)
        let whip = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(after.utf8)) as? [String: Any], after)
        XCTAssertEqual(whip["reaped"] as? [String: Int], ["silent": 1], after)
        let ended = (whip["ended"] as? [String: Any])?["server"] as? [String: Any] ?? [:]
        XCTAssertEqual(ended["sessions"] as? Int, 1, after)
        XCTAssertGreaterThan(ended["video_frames"] as? Int ?? 0, 0, after)
    }

    /// Sluice publishes three simulcast layers over WHIP to Pion's WHIP server (pionpeer
    /// whip-serve). With `--simulcast` Pion answers `a=simulcast:recv` and takes every layer as
    /// a track of its own, each at its size and the full frame rate (Pion takes a section's
    /// layers only when the offer names its track, `a=msid`). With `--one-stream` its answer
    /// takes one ordinary stream: it gets the best layer alone, and the others are never encoded.
    func testPionTakesSluicesSimulcastLayersOverWHIPOrTheBestAloneWhenItTakesOneStream() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-simulcast-whip-\(UUID().uuidString).yaml").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try """
        name: layers
        transport: { kind: whip, endpoint: "${PION_WHIP}", ice: { addresses: [127.0.0.1] } }
        send:
          video:
            capture: { kind: test, pattern: ball, width: 640, height: 360, fps: 30 }
            encode:
              codec: vp8
              simulcast:
                - { rid: h, bitrate: 800 }
                - { rid: m, scale: 2, bitrate: 300 }
                - { rid: l, scale: 4, bitrate: 100 }
        """.write(toFile: path, atomically: true, encoding: .utf8)
        for (i, mode) in ["--simulcast", "--one-stream"].enumerated() {
            let port = 18651 + i
            let report = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-pion-\(UUID().uuidString).json").path
            let pion = report + ".pion"
            defer { try? FileManager.default.removeItem(atPath: pion) }
            let script = """
                ip link set lo up
                '\(peer)' whip-serve --listen 127.0.0.1:\(port) --codec vp8 \(mode) --seconds 40 --out '\(pion)' &
                peer=$!
                i=0; until curl -s -m 1 -o /dev/null http://127.0.0.1:\(port)/; do i=$((i+1)); [ $i -lt 300 ] || exit 90; sleep 0.05; done
                PION_WHIP=http://127.0.0.1:\(port)/whip "$SLUICE" run '\(path)' --duration 6 --quiet --report '\(report)'
                status=$?
                kill $peer; wait $peer
                exit $status
                """
            let r = try CLI.execute(inNamespace: script, env: ["SLUICE": CLI.binary.path], timeout: 90, reportPath: report)
            XCTAssertEqual(r.status, 0, "\(mode): \(r.stderr.suffix(3000))")
            let summary = try XCTUnwrap(
                try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: pion))) as? [String: Any], "\(mode): Pion's summary")
            let session = try XCTUnwrap((summary["sessions"] as? [[String: Any]])?.first, "\(mode): \(summary)")
            let layers = session["layers"] as? [String: [String: Any]] ?? [:]
            let sizes = layers.mapValues { "\($0["width"] ?? 0)x\($0["height"] ?? 0)" }
            let sent = (r.value("send.video.simulcast") as? [[String: Any]] ?? []).map { ($0["rid"] as? String ?? "", $0["frames"] as? Int ?? -1) }
            print("pion \(mode): layers \(sizes), fps \(layers.mapValues { $0["fps"] ?? 0 }); Sluice encoded \(sent)")
            XCTAssertEqual(summary["unhandled"] as? [String], [], "\(mode): Pion matched every RTP stream to its track: \(summary)")
            if mode == "--simulcast" {
                XCTAssertEqual(sizes, ["h": "640x360", "m": "320x180", "l": "160x90"], "every layer, at its size: \(session)")
            } else {
                XCTAssertEqual(sizes, ["h": "640x360"], "the best layer alone: \(session)")
                XCTAssertEqual(sent.dropFirst().map(\.1), [0, 0], "m and l were never encoded: \(r.value("send.video.simulcast") ?? "")")
                XCTAssertEqual(r.value("send.video.simulcast").flatMap { ($0 as? [[String: Any]])?.map { $0["taken_by_peer"] as? Bool } }, [true, false, false])
            }
            for (rid, layer) in layers {
                XCTAssertGreaterThanOrEqual(layer["fps"] as? Double ?? 0, 25, "\(mode): layer \(rid) at the full frame rate: \(layer)")
            }
        }
    }
}
