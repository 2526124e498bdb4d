import Foundation
import SluiceTestSupport
import XCTest

/// Operating `sluice serve` and `sluice run`: `/metrics` read by Prometheus's own parser, the
/// probes, and the graceful drain on SIGTERM — each against a real process in a loopback-only
/// namespace.
final class OperateEndToEndTests: XCTestCase {
    static let aiortc = "Tests/Interop/aiortc/aiortc_peer.py"

    /// With one aiortc viewer playing, `/metrics` parses (prometheus_client), carries the
    /// conventional names and types, and agrees with `/streams.json` read just before and
    /// after it: the viewer gauge is 1 and the encoder's frame counter lies between the two.
    /// (The client part of `runClientWithServer` must not `exit`: the harness stops the
    /// server after it.)
    func testMetricsParseAndAgreeWithTheStreamList() throws {
        let client = """
            "$PYTHON" \(Self.aiortc) whep-play "$URL/whep/serve-testsrc" --token s3cret --seconds 8 >/dev/null &
            viewer=$!
            i=0; until curl -s -m 1 -H 'Authorization: Bearer s3cret' "$URL/streams.json" | grep -q '"viewers":1'; do i=$((i+1)); [ $i -lt 300 ] || break; sleep 0.05; done
            sleep 1   # a measuring gap: frames flow between the two reads
            "$PYTHON" Tests/Operate/metrics_check.py "$URL" serve-testsrc --token s3cret
            echo UNAUTHENTICATED: $(curl -s -o /dev/null -w '%{http_code}' "$URL/metrics")
            echo HEALTHZ: $(curl -s -o /dev/null -w '%{http_code}' "$URL/healthz") READYZ: $(curl -s -o /dev/null -w '%{http_code}' "$URL/readyz")
            kill $viewer 2>/dev/null; wait $viewer 2>/dev/null; true
            """
        let r = try CLI.runClientWithServer(
            serve: ["--pipeline", "Pipelines/serve-testsrc.yaml", "--token", "s3cret"],
            port: 18931, client: client, timeout: 90)
        XCTAssertEqual(r.status, 0, r.stderr.suffix(3000) + "")
        let j = try InteropAiortcTests.json(r)
        XCTAssertEqual(j["status"] as? Int, 200)
        XCTAssertTrue((j["content_type"] as? String ?? "").hasPrefix("text/plain; version=0.0.4"), "\(j)")
        let families = try XCTUnwrap(j["families"] as? [String: String])
        for (name, type) in [
            "sluice_stream_viewers": "gauge", "sluice_stream_encoded_video_frames": "counter",
            "sluice_stream_encoded_video_bytes": "counter", "process_cpu_seconds": "counter",
            "process_resident_memory_bytes": "gauge", "process_open_fds": "gauge",
            "sluice_draining": "gauge", "sluice_whip_sessions": "gauge"
        ] {
            XCTAssertEqual(families[name], type, "\(name) in \(families)")
        }
        let samples = try XCTUnwrap(j["samples"] as? [String: Double])
        let before = try XCTUnwrap(j["before"] as? [String: Any]), after = try XCTUnwrap(j["after"] as? [String: Any])
        XCTAssertEqual(samples["sluice_stream_viewers{stream=serve-testsrc}"], 1, "\(samples)")
        // One viewer of video and audio: a lane for each medium carries it.
        XCTAssertEqual(samples["sluice_stream_viewer_lanes{stream=serve-testsrc}"], 2, "\(samples)")
        let frames = try XCTUnwrap(samples["sluice_stream_encoded_video_frames_total{stream=serve-testsrc}"], "\(samples)")
        let lo = Double(before["encoded_video_frames"] as? Int ?? -1), hi = Double(after["encoded_video_frames"] as? Int ?? -1)
        XCTAssertTrue(lo <= frames && frames <= hi, "\(lo) ≤ \(frames) ≤ \(hi)")
        XCTAssertGreaterThan(frames, 30, "the encoder ran for more than a second")
        // Hummingbird's per-route figures through swift-metrics, under Prometheus names: the
        // viewer's WHEP POST and the /streams.json reads before the scrape (route patterns,
        // not paths, so sessions do not make series).
        XCTAssertEqual(families["sluice_http_requests"], "counter", "\(families)")
        XCTAssertEqual(families["sluice_http_request_duration_seconds"], "histogram", "\(families)")
        let whepPosts = samples.filter { $0.key.hasPrefix("sluice_http_requests_total{method=POST,route=/whep/") && $0.key.hasSuffix(",status=201}") }
        XCTAssertEqual(whepPosts.count, 1, "one series for every WHEP POST: \(samples.keys.filter { $0.hasPrefix("sluice_http_requests") })")
        XCTAssertGreaterThanOrEqual(whepPosts.values.first ?? 0, 1)
        XCTAssertFalse(whepPosts.keys.first?.contains("serve-testsrc") ?? true, "a route pattern, not the path: \(whepPosts)")
        XCTAssertGreaterThanOrEqual(samples["sluice_http_requests_total{method=GET,route=/streams.json,status=200}"] ?? 0, 1)
        XCTAssertGreaterThan(samples["process_resident_memory_bytes{}"] ?? 0, 10_000_000)
        XCTAssertGreaterThan(samples["process_cpu_seconds_total{}"] ?? 0, 0)
        XCTAssertEqual(samples["sluice_draining{}"], 0)
        XCTAssertTrue(r.stdout.contains("UNAUTHENTICATED: 401"), "metrics need the token like the JSON lists: \(r.stdout)")
        XCTAssertTrue(r.stdout.contains("HEALTHZ: 200 READYZ: 200"), "probes are public: \(r.stdout)")
    }

    /// An aiortc viewer that loses 5% of its video packets on arrival: while it plays,
    /// `/metrics` shows the stream's packets sent, the viewer's NACKs and the retransmissions
    /// that answered them, its round trip, and no leaky-queue drops; after it leaves, the
    /// counters keep what it was sent (they never go back) and the round trip is absent.
    func testViewerNetworkFiguresReachMetrics() throws {
        let client = """
            out=$(mktemp)
            "$PYTHON" \(Self.aiortc) whep-play "$URL/whep/serve-testsrc" --token s3cret --seconds 8 --no-audio --drop 0.05 > "$out" &
            viewer=$!
            i=0; until curl -s -m 1 -H 'Authorization: Bearer s3cret' "$URL/streams.json" | grep -q '"viewers":1'; do i=$((i+1)); [ $i -lt 300 ] || break; sleep 0.05; done
            sleep 4   # statistics are read each second; NACKs need losses first
            echo "DURING $("$PYTHON" Tests/Operate/metrics_check.py "$URL" serve-testsrc --token s3cret)"
            wait $viewer; echo "VIEWER $(cat "$out")"; rm -f "$out"
            i=0; until curl -s -m 1 -H 'Authorization: Bearer s3cret' "$URL/streams.json" | grep -q '"viewers":0'; do i=$((i+1)); [ $i -lt 100 ] || break; sleep 0.05; done
            echo "AFTER $("$PYTHON" Tests/Operate/metrics_check.py "$URL" serve-testsrc --token s3cret)"
            """
        let r = try CLI.runClientWithServer(
            serve: [
                "--pipeline", "Pipelines/serve-testsrc.yaml", "--token", "s3cret",
                "--viewer-stats-interval", "1"
            ],
            port: 18932, client: client, timeout: 90)
        XCTAssertEqual(r.status, 0, r.stderr.suffix(3000) + "")
        func object(_ prefix: String) throws -> [String: Any] {
            let line = try XCTUnwrap(
                r.stdout.split(separator: "\n").last { $0.hasPrefix(prefix) }, "\(prefix) in \(r.stdout.suffix(2000)) \(r.stderr.suffix(2000))")
            let j = try JSONSerialization.jsonObject(with: Data(line.dropFirst(prefix.count).utf8)) as? [String: Any]
            return try XCTUnwrap(j, String(line))
        }
        let during = try XCTUnwrap(try object("DURING ")["samples"] as? [String: Double])
        let after = try XCTUnwrap(try object("AFTER ")["samples"] as? [String: Double])
        let viewer = try object("VIEWER ")
        func v(_ s: [String: Double], _ name: String) -> Double? { s["sluice_stream_\(name){stream=serve-testsrc}"] }
        XCTAssertEqual(v(during, "viewers"), 1, "\(during)")
        XCTAssertEqual(v(during, "viewer_lanes"), 1, "a video-only viewer rides one lane: \(during)")
        XCTAssertGreaterThan(v(during, "rtp_sent_packets_total") ?? 0, 30, "\(during)")
        XCTAssertGreaterThan(v(during, "nack_received_total") ?? 0, 0, "the lossy viewer's NACKs: \(during)")
        XCTAssertGreaterThan(v(during, "rtx_sent_packets_total") ?? 0, 0, "retransmissions answer them: \(during)")
        let rtt = try XCTUnwrap(v(during, "viewer_round_trip_median_seconds"), "\(during)")
        XCTAssertTrue(rtt > 0 && rtt < 0.25, "a loopback round trip: \(rtt) s")
        XCTAssertEqual(v(during, "viewer_queue_dropped_buffers_total"), 0, "one healthy viewer's queue drops nothing: \(during)")
        // The viewer saw a moving picture, repaired.
        XCTAssertEqual(viewer["picture_moves"] as? Bool, true, "\(viewer)")
        let arrived = Double(viewer["rtp_packets"] as? Int ?? 0), dropped = viewer["rtp_dropped"] as? Int ?? 0
        XCTAssertGreaterThan(dropped, 0, "\(viewer)")
        // After it left: counters hold what it was sent (read at most a second before the
        // DELETE, so within a second of what arrived) and never went back.
        XCTAssertEqual(v(after, "viewers"), 0, "\(after)")
        XCTAssertEqual(v(after, "viewer_lanes"), 0, "its lane went with it: \(after)")
        let sent = v(after, "rtp_sent_packets_total") ?? 0
        XCTAssertTrue(sent >= 0.75 * arrived && sent <= 1.1 * arrived + 40, "sent \(sent) vs \(arrived) arrived at the viewer")
        for name in ["rtp_sent_packets_total", "rtp_sent_bytes_total", "nack_received_total", "rtx_sent_packets_total"] {
            XCTAssertGreaterThanOrEqual(v(after, name) ?? -1, v(during, name) ?? 0, "\(name) never goes back")
        }
        XCTAssertLessThanOrEqual(v(after, "rtx_sent_packets_total") ?? 0, arrived, "\(after)")
        XCTAssertNil(v(after, "viewer_round_trip_median_seconds"), "no viewer, no round trip: \(after)")
    }

    /// `sluice run --metrics`: scraped every 0.2 s until the run ends and its server closes,
    /// the last scrape agrees with the run's own summary (`--report`): no counter is above
    /// the final figure, and none is behind by more than the last second of the run.
    func testRunMetricsMatchTheRunSummary() throws {
        let script = """
            ip link set lo up
            "$SLUICE" run Pipelines/control-loopback.yaml --metrics 18943 --duration 6 --quiet --report "$TMP/report.json" > "$TMP/run.out" 2>&1 &
            run=$!
            "$PYTHON" Tests/Operate/metrics_check.py http://127.0.0.1:18943 --until-gone || exit 91
            wait $run || exit 92
            echo "REPORT $(tr -d '\\n' < "$TMP/report.json")"
            """
        let tmp = FileManager.default.temporaryDirectory.appendingPathComponent("run-metrics-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: tmp, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: tmp) }
        let r = try CLI.execute(
            inNamespace: script,
            env: ["SLUICE": CLI.binary.path, "PYTHON": Repository.python, "TMP": tmp.path], timeout: 90, reportPath: nil)
        XCTAssertEqual(r.status, 0, String(r.stdout.suffix(2000)) + String(r.stderr.suffix(3000)))
        let lines = r.stdout.split(separator: "\n")
        let scrape = try XCTUnwrap(
            lines.first { $0.hasPrefix("{") }.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }, r.stdout)
        let reportLine = try XCTUnwrap(lines.first { $0.hasPrefix("REPORT ") }, r.stdout)
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(reportLine.dropFirst(7).utf8)) as? [String: Any])
        XCTAssertGreaterThanOrEqual(scrape["scrapes"] as? Int ?? 0, 15, "scraped through the run: \(scrape["scrapes"] ?? "?")")
        let samples = try XCTUnwrap(scrape["samples"] as? [String: Double])
        func m(_ name: String) -> Double { samples["sluice_run_\(name){pipeline=control-loopback}"] ?? -1 }
        func field(_ path: String) -> Double {
            var node: Any? = report
            for key in path.split(separator: ".") { node = (node as? [String: Any])?[String(key)] }
            return (node as? NSNumber)?.doubleValue ?? -1
        }
        let duration = field("duration_s")
        XCTAssertGreaterThan(duration, 5)
        // Name in /metrics, field in the report, how much of the last second may be missing.
        let rate = { (total: Double) in total / duration * 1.2 + 2 }
        let pairs: [(String, String)] = [
            ("captured_video_frames_total", "send.video.captured"), ("encoded_video_frames_total", "send.video.frames"),
            ("encoded_video_bytes_total", "send.video.bytes"), ("encoded_audio_buffers_total", "send.audio.buffers"),
            ("received_video_frames_total", "receive.video.frames"), ("received_audio_buffers_total", "receive.audio.buffers"),
            ("rtp_sent_packets_total", "network.packets_sent"), ("rtp_sent_bytes_total", "network.bytes_sent")
        ]
        for (name, path) in pairs {
            let scraped = m(name), final = field(path)
            XCTAssertGreaterThan(final, 0, "\(path) in \(report)")
            // Statistics from webrtcbin are read once a second with --metrics; the media counters live.
            let allowance = name.hasPrefix("rtp_") ? rate(final) * 1.5 : rate(final)
            XCTAssertTrue(
                scraped <= final && final - scraped <= allowance,
                "\(name) \(scraped) vs \(path) \(final) (allowed behind: \(allowance))")
        }
        for (name, path) in [
            ("nack_total", "network.nack_count"), ("pli_total", "network.pli_count"),
            ("rtx_sent_packets_total", "network.rtx_packets_sent")
        ] {
            XCTAssertTrue(m(name) >= 0 && m(name) <= field(path), "\(name) \(m(name)) vs \(path) \(field(path))")
        }
        // Playing while the run ran; the last scrape may fall between the pipeline stopping
        // and the server closing, when it is rightly 0.
        XCTAssertGreaterThanOrEqual(scrape["playing_scrapes"] as? Int ?? 0, 10, "scraped while playing: \(scrape["playing_scrapes"] ?? "?")")
        XCTAssertNotNil(samples["sluice_run_playing{pipeline=control-loopback}"])
    }

    /// SIGTERM while aiortc publishes into a recording: `/readyz` turns 503, a new WHEP or
    /// WHIP session gets 503 with `Retry-After`, the publisher is ended when the drain time
    /// is up, the WebM it was recording is finalized and decodes, and the server exits 0.
    func testSIGTERMDrainsAndFinalizesARecording() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-drain-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let recording = dir.appendingPathComponent("rec.webm").path
        let file = dir.appendingPathComponent("rec.yaml")
        try """
        version: 1
        name: rec
        transport: { kind: server, ice: { addresses: [127.0.0.1] } }
        receive:
          video:
            sink: { kind: file, path: \(recording), encode: { codec: vp8, bitrate: 500 } }
        """.write(to: file, atomically: true, encoding: .utf8)
        let script = """
            ip link set lo up
            URL=http://127.0.0.1:18932
            "$SLUICE" serve --port 18932 --receive '\(file.path)' --pipeline Pipelines/serve-testsrc.yaml --drain-timeout 3 >/dev/null 2>&1 &
            server=$!
            i=0; until curl -s -m 1 -o /dev/null "$URL/healthz"; do i=$((i+1)); [ $i -lt 300 ] || exit 90; sleep 0.05; done
            "$PYTHON" \(Self.aiortc) whip-publish "$URL/whip/rec" --seconds 60 >/dev/null 2>&1 &
            publisher=$!
            i=0; until curl -s -m 1 "$URL/whip.json" | grep -Eq '"video_frames":[0-9]{2,}'; do i=$((i+1)); [ $i -lt 400 ] || exit 91; sleep 0.05; done
            start=$(date +%s%N)
            kill -TERM $server
            i=0; until [ "$(curl -s -o /dev/null -w '%{http_code}' "$URL/readyz")" = 503 ]; do i=$((i+1)); [ $i -lt 100 ] || exit 92; sleep 0.02; done
            echo READYZ: 503
            echo WHEP: $(curl -s -o /dev/null -D - -X POST -H 'Content-Type: application/sdp' --data 'v=0' "$URL/whep/serve-testsrc" | tr -d '\\r' | grep -Ei '^(HTTP|retry-after)' | tr '\\n' ' ')
            echo WHIP: $(curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Content-Type: application/sdp' --data 'v=0' "$URL/whip/rec")
            echo JOIN: $(curl -s -o /dev/null -w '%{http_code}' -X POST "$URL/join/drainroom")
            echo HEALTHZ: $(curl -s -o /dev/null -w '%{http_code}' "$URL/healthz")
            wait $server; status=$?
            echo SERVER: $status after $(( ($(date +%s%N) - start) / 1000000 )) ms
            kill $publisher 2>/dev/null; wait $publisher 2>/dev/null
            gst-discoverer-1.0 '\(recording)' 2>&1 | grep -E 'Duration|video' | head -3
            exit $status
            """
        let r = try CLI.execute(
            inNamespace: script,
            env: ["SLUICE": CLI.binary.path, "PYTHON": Repository.python], timeout: 120, reportPath: nil)
        XCTAssertEqual(r.status, 0, "the server exits 0 after draining: \(r.stdout)\n\(r.stderr.suffix(3000))")
        XCTAssertTrue(r.stdout.contains("READYZ: 503"), r.stdout)
        XCTAssertTrue(r.stdout.contains("WHEP: HTTP/1.1 503"), r.stdout)
        XCTAssertTrue(r.stdout.lowercased().contains("retry-after: 5"), r.stdout)
        XCTAssertTrue(r.stdout.contains("WHIP: 503"), r.stdout)
        XCTAssertTrue(r.stdout.contains("JOIN: 503"), r.stdout)
        XCTAssertTrue(r.stdout.contains("HEALTHZ: 200"), "alive while draining: \(r.stdout)")
        let ms = r.stdout.components(separatedBy: "SERVER: 0 after ").last.flatMap { Int($0.prefix { $0.isNumber }) } ?? -1
        XCTAssertTrue((2500...9000).contains(ms), "the live publisher held the drain for its 3 s, then it ended: \(ms) ms")
        // gst-discoverer reads the finalized file: a duration and a VP8 stream.
        XCTAssertTrue(r.stdout.contains("Duration: 0:00:"), r.stdout)
        XCTAssertFalse(r.stdout.contains("Duration: 0:00:00.000"), r.stdout)
        XCTAssertTrue(r.stdout.lowercased().contains("video"), r.stdout)
    }

    /// A second SIGTERM ends the drain at once: with a 60 s drain time and a publisher that
    /// would keep it waiting, the server is gone within a few seconds, still exiting 0.
    func testSecondSIGTERMStopsAtOnce() throws {
        let script = """
            ip link set lo up
            URL=http://127.0.0.1:18933
            "$SLUICE" serve --port 18933 --receive Pipelines/server.yaml --drain-timeout 60 >/dev/null 2>&1 &
            server=$!
            i=0; until curl -s -m 1 -o /dev/null "$URL/healthz"; do i=$((i+1)); [ $i -lt 300 ] || exit 90; sleep 0.05; done
            "$PYTHON" \(Self.aiortc) whip-publish "$URL/whip/server" --seconds 60 >/dev/null 2>&1 &
            publisher=$!
            i=0; until curl -s -m 1 "$URL/whip.json" | grep -Eq '"video_frames":[0-9]{2,}'; do i=$((i+1)); [ $i -lt 400 ] || exit 91; sleep 0.05; done
            kill -TERM $server
            i=0; until [ "$(curl -s -o /dev/null -w '%{http_code}' "$URL/readyz")" = 503 ]; do i=$((i+1)); [ $i -lt 100 ] || exit 92; sleep 0.02; done
            start=$(date +%s%N)
            kill -TERM $server
            wait $server; status=$?
            echo SERVER: $status after $(( ($(date +%s%N) - start) / 1000000 )) ms
            kill $publisher 2>/dev/null; wait $publisher 2>/dev/null
            exit $status
            """
        let r = try CLI.execute(
            inNamespace: script,
            env: ["SLUICE": CLI.binary.path, "PYTHON": Repository.python], timeout: 120, reportPath: nil)
        XCTAssertEqual(r.status, 0, "\(r.stdout)\n\(r.stderr.suffix(3000))")
        let ms = r.stdout.components(separatedBy: "SERVER: 0 after ").last.flatMap { Int($0.prefix { $0.isNumber }) } ?? -1
        XCTAssertTrue((0...8000).contains(ms), "gone soon after the second SIGTERM, not after 60 s: \(ms) ms")
    }

    /// `sluice graph` plays `Pipelines/loopback.yaml` until both receive branches flow and
    /// draws what was built: the text tree names the encoders, both webrtcbins, what they link
    /// to and the decoders the receive side built; `-o .dot` is GStreamer's dot and `-o .svg`
    /// an SVG drawn by Graphviz.
    func testGraphDrawsWhatAFileBuilds() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-graph-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let tree = try CLI.run(["graph", "Pipelines/loopback.yaml"], timeout: 60)
        XCTAssertEqual(tree.status, 0, tree.stderr)
        for part in ["sluice (pipeline)", "vp8enc", "opusenc", "webrtcbin", "vp8dec", "opusdec", "src → "] {
            XCTAssertTrue(tree.stdout.contains(part), "the tree lacks \(part):\n\(tree.stdout)")
        }
        XCTAssertFalse(tree.stderr.contains("not every medium"), tree.stderr)
        let dot = dir.appendingPathComponent("g.dot").path, svg = dir.appendingPathComponent("g.svg").path
        XCTAssertEqual(try CLI.run(["graph", "Pipelines/loopback.yaml", "-o", dot], timeout: 60).status, 0)
        XCTAssertEqual(try CLI.run(["graph", "Pipelines/loopback.yaml", "-o", svg], timeout: 60).status, 0)
        let dotText = try String(contentsOfFile: dot, encoding: .utf8), svgText = try String(contentsOfFile: svg, encoding: .utf8)
        XCTAssertTrue(dotText.hasPrefix("digraph"), String(dotText.prefix(100)))
        XCTAssertTrue(dotText.contains("vp8dec"), "the receive branch is in the picture")
        XCTAssertTrue(svgText.contains("<svg"), String(svgText.prefix(200)))
        XCTAssertTrue(svgText.contains("vp8enc"), "Graphviz drew the elements")
        let bad = try CLI.run(["graph", "Pipelines/loopback.yaml", "-o", dir.appendingPathComponent("g.png").path], timeout: 30)
        XCTAssertNotEqual(bad.status, 0)
        XCTAssertTrue(bad.stderr.contains(".svg or .dot"), bad.stderr)
    }

    /// A served stream's pipeline as it is now, viewers' branches included, at
    /// `/pipelines/<name>/graph.{svg,dot,txt}` (protected like the lists).
    func testServedPipelineGraph() throws {
        let client = """
            curl -s "$URL/pipelines/serve-testsrc/graph.txt"; echo
            echo SVG: $(curl -s -D - -o /tmp/sluice-graph-$$.svg "$URL/pipelines/serve-testsrc/graph.svg" | tr -d '\\r' | grep -i '^content-type') $(grep -c '<svg' /tmp/sluice-graph-$$.svg); rm -f /tmp/sluice-graph-$$.svg
            echo UNKNOWN: $(curl -s -o /dev/null -w '%{http_code}' "$URL/pipelines/nope/graph.svg") $(curl -s -o /dev/null -w '%{http_code}' "$URL/pipelines/serve-testsrc/graph.png")
            """
        let r = try CLI.runClientWithServer(serve: ["--pipeline", "Pipelines/serve-testsrc.yaml"], port: 18934, client: client, timeout: 60)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("hub-serve-testsrc (pipeline)"), r.stdout)
        XCTAssertTrue(r.stdout.contains("tee"), r.stdout)
        XCTAssertTrue(r.stdout.contains("vp8enc"), r.stdout)
        XCTAssertTrue(r.stdout.lowercased().contains("svg: content-type: image/svg+xml 1"), r.stdout)
        XCTAssertTrue(r.stdout.contains("UNKNOWN: 404 404"), r.stdout)
    }
}
