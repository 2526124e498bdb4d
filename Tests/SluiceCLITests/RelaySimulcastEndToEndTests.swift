import Foundation
import SluiceTestSupport
import XCTest

/// A simulcast WHIP publisher into `sluice serve --relay`: the relay keeps every layer and
/// forwards each WHEP viewer one, without decoding (Pipelines/whip-publish-simulcast.yaml:
/// 640x360, 320x180 and 160x90 under rids h, m and l).
final class RelaySimulcastEndToEndTests: XCTestCase {
    /// Three viewers pin a layer each (`?layer=`) and decode that layer's picture size; the
    /// relay lists the layers it found; an unknown layer is refused with the layers there are.
    func testEachViewerPinnedToALayerGetsItsPictureSize() throws {
        let t = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-relay-simulcast-\(UUID().uuidString)").path
        defer { for suffix in ["h.json", "m.json", "l.json", "x.err", "p.err"] { try? FileManager.default.removeItem(atPath: "\(t).\(suffix)") } }
        let script = """
            ip link set lo up
            \(Self.relayWithPublisher(port: 18483))
            echo "STREAMS: $(curl -s http://127.0.0.1:18483/streams.json)"
            for layer in h m l; do
              SLUICE_WHEP="http://127.0.0.1:18483/whep/live?layer=$layer" "$SLUICE" run Pipelines/whep-play.yaml --duration 5 --quiet --report "$T.$layer.json" >/dev/null 2>&1 &
            done
            SLUICE_WHEP="http://127.0.0.1:18483/whep/live?layer=x" "$SLUICE" run Pipelines/whep-play.yaml --duration 2 --quiet >/dev/null 2>"$T.x.err"
            echo "UNKNOWN: $?"
            wait %2 %3 %4
            kill -INT $publisher; wait $publisher
            kill -INT $server; wait $server
            """
        let r = try CLI.execute(inNamespace: script, env: ["SLUICE": CLI.binary.path, "T": t], timeout: 120, reportPath: nil)
        let context =
            "\(r.stdout.suffix(3000))\n\(r.stderr.suffix(2000))\npublisher: \((try? String(contentsOfFile: "\(t).p.err", encoding: .utf8))?.suffix(2000) ?? "")"
        XCTAssertEqual(r.status, 0, context)
        let streams = r.keyedLines["STREAMS"] ?? ""
        XCTAssertTrue(
            streams.range(
                of:
                    #""layers":\[\{"height":360,"rid":"h","ssrc":[0-9]+,"width":640\},\{"height":180,"rid":"m","ssrc":[0-9]+,"width":320\},\{"height":90,"rid":"l","ssrc":[0-9]+,"width":160\}\]"#,
                options: .regularExpression) != nil,
            "the relay found the three layers by their rids and keyframes: \(streams)")
        for (layer, width, height) in [("h", 640, 360), ("m", 320, 180), ("l", 160, 90)] {
            let viewer = CLIResult.report(at: "\(t).\(layer).json")
            XCTAssertEqual(viewer.int("receive.video.width"), width, "layer \(layer): \(viewer.report ?? [:])")
            XCTAssertEqual(viewer.int("receive.video.height"), height, "layer \(layer)")
            XCTAssertGreaterThan(viewer.int("receive.video.frames") ?? 0, 90, "layer \(layer) plays on: \(viewer.report ?? [:])")
            XCTAssertGreaterThan(viewer.int("receive.audio.buffers") ?? 0, 50, "audio is relayed beside layer \(layer)")
        }
        XCTAssertNotEqual(r.keyedLines["UNKNOWN"], "0", context)
        let unknown = (try? String(contentsOfFile: "\(t).x.err", encoding: .utf8)) ?? ""
        XCTAssertTrue(unknown.contains("no layer 'x'") && unknown.contains("h, m, l"), "an unknown layer is refused with the layers there are: \(unknown)")
    }

    /// Offers whose simulcast cannot be taken get a WHIP 400 with the reason; the relay
    /// stays up for a good publisher after them.
    func testMalformedSimulcastOffersAreRefusedWithTheReason() throws {
        let script = #"""
            ip link set lo up
            "$SLUICE" serve --port 18484 --relay >/dev/null 2>&1 &
            server=$!
            i=0; until curl -s -m 1 -o /dev/null http://127.0.0.1:18484/status.json; do i=$((i+1)); [ $i -lt 200 ] || exit 90; sleep 0.05; done
            offer() {
              printf 'v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\nc=IN IP4 0.0.0.0\r\na=rtpmap:96 VP8/90000\r\na=mid:0\r\na=sendonly\r\n%b' "$1" \
                | curl -s -w ' HTTP %{http_code}' -X POST -H 'Content-Type: application/sdp' --data-binary @- http://127.0.0.1:18484/whip/bad \
                | tr '\r\n' '  '

            }
            echo "TWICE: $(offer 'a=rid:h send\r\na=rid:h send\r\na=simulcast:send h;h\r\n')"
            echo "FIVE: $(offer 'a=rid:a send\r\na=rid:b send\r\na=rid:c send\r\na=rid:d send\r\na=rid:e send\r\na=simulcast:send a;b;c;d;e\r\n')"
            echo "LONG: $(offer 'a=rid:abcdefghijklmnopq send\r\na=rid:l send\r\na=simulcast:send abcdefghijklmnopq;l\r\n')"
            echo "BADCHAR: $(offer 'a=rid:h! send\r\na=rid:l send\r\na=simulcast:send h!;l\r\n')"
            echo "UNDECLARED: $(offer 'a=rid:h send\r\na=simulcast:send h;l\r\n')"
            echo "RELAYS: $(curl -s http://127.0.0.1:18484/streams.json)"
            kill -INT $server; wait $server
            """#
        let r = try CLI.execute(inNamespace: script, env: ["SLUICE": CLI.binary.path], timeout: 60, reportPath: nil)
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        let lines = r.keyedLines
        for (key, reason) in [
            ("TWICE", "name 'h' twice"), ("FIVE", "at most 4 simulcast layers"), ("LONG", "is not 1 to 16 letters"),
            ("BADCHAR", "is not 1 to 16 letters"), ("UNDECLARED", "has no 'a=rid:l send' line")
        ] {
            let line = lines[key] ?? ""
            XCTAssertTrue(line.hasSuffix("HTTP 400") && line.contains(reason), "\(key): a 400 saying \(reason): \(line)")
        }
        XCTAssertFalse(lines["RELAYS"]?.contains("\"bad\"") ?? true, "no relay is left of a refused offer: \(lines["RELAYS"] ?? "")")
    }

    /// Chromium publishes three layers (`sendEncodings` with rids l, m, h) through the web
    /// page; the relay answers with `a=simulcast:recv` and keeps them; Sluice viewers pinned to
    /// the smallest and the largest decode those sizes, and aiortc, which knows nothing of
    /// simulcast, plays one ordinary stream.
    func testChromiumsLayersAreKeptAndEachViewerGetsOne() throws {
        try CLI.requireBrowserTools()
        let t = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-chromium-simulcast-\(UUID().uuidString)").path
        defer { for suffix in ["l.json", "h.json", "pub", "pub.err", "aiortc", "done"] { try? FileManager.default.removeItem(atPath: "\(t).\(suffix)") } }
        let script = """
            ip link set lo up
            "$SLUICE" serve --port 18485 --relay >/dev/null 2>&1 &
            server=$!
            i=0; until curl -s -m 1 -o /dev/null http://127.0.0.1:18485/status.json; do i=$((i+1)); [ $i -lt 200 ] || exit 90; sleep 0.05; done
            "$PYTHON" Tests/Browser/browser_check.py publish http://127.0.0.1:18485 cam --relay --simulcast --min-frames 60 \\
              --timeout 45 --hold-until "$T.done" > "$T.pub" 2> "$T.pub.err" &
            pub=$!
            i=0; until grep -q PUBLISHING "$T.pub.err"; do i=$((i+1)); [ $i -lt 1200 ] || break; kill -0 $pub 2>/dev/null || break; sleep 0.05; done
            # Chromium adds its top layer once its bandwidth estimate has grown: wait for it (bounded).
            \(Self.waitForLayers(["h", "l"], port: 18485))
            echo "STREAMS: $(curl -s http://127.0.0.1:18485/streams.json)"
            SLUICE_WHEP="http://127.0.0.1:18485/whep/cam?layer=l" "$SLUICE" run Pipelines/whep-play.yaml --duration 5 --quiet --report "$T.l.json" >/dev/null 2>&1 &
            SLUICE_WHEP="http://127.0.0.1:18485/whep/cam?layer=h" "$SLUICE" run Pipelines/whep-play.yaml --duration 5 --quiet --report "$T.h.json" >/dev/null 2>&1 &
            "$PYTHON" Tests/Interop/aiortc/aiortc_peer.py whep-play http://127.0.0.1:18485/whep/cam --seconds 5 > "$T.aiortc" 2>&1
            echo "AIORTC: $?"
            wait %3 %4
            touch "$T.done"
            wait $pub
            echo "PUBLISHER: $?"
            kill -INT $server; wait $server
            """
        let r = try CLI.execute(
            inNamespace: script, env: ["SLUICE": CLI.binary.path, "PYTHON": Repository.python, "T": t], timeout: 180, reportPath: nil)
        let publisher = ((try? String(contentsOfFile: "\(t).pub.err", encoding: .utf8)) ?? "").suffix(3000)
        let context = "\(r.stdout.suffix(3000))\n\(r.stderr.suffix(2000))\npublisher: \(publisher)"
        XCTAssertEqual(r.status, 0, context)
        XCTAssertEqual(r.keyedLines["PUBLISHER"], "0", context)
        let streams = r.keyedLines["STREAMS"] ?? ""
        for layer in ["l", "m", "h"] { XCTAssertTrue(streams.contains(#""rid":"\#(layer)""#), "the relay found Chromium's layer \(layer): \(streams)") }
        let small = CLIResult.report(at: "\(t).l.json"), large = CLIResult.report(at: "\(t).h.json")
        XCTAssertGreaterThan(small.int("receive.video.frames") ?? 0, 50, "the smallest layer plays: \(small.report ?? [:])")
        XCTAssertGreaterThan(large.int("receive.video.frames") ?? 0, 50, "the largest layer plays: \(large.report ?? [:])")
        let smallWidth = small.int("receive.video.width") ?? 0, largeWidth = large.int("receive.video.width") ?? 0
        XCTAssertEqual(largeWidth, 1280, "the largest layer is the camera's 720p: \(large.report ?? [:])")
        XCTAssertEqual(smallWidth, 320, "the smallest is a quarter of it: \(small.report ?? [:])")
        let aiortc = (try? String(contentsOfFile: "\(t).aiortc", encoding: .utf8)) ?? ""
        XCTAssertEqual(r.keyedLines["AIORTC"], "0", "aiortc played one ordinary stream: \(aiortc.suffix(2000))")
    }

    /// Three viewers behind 3 Mbit/s, 700 kbit/s and 250 kbit/s links (Benchmarks/ladder.py
    /// --simulcast: each link a token bucket in a router namespace) of a relayed publisher
    /// (a 640x360 moving scene in three layers, no audio): each viewer's own estimate takes it to
    /// the largest layer whose measured rate fits its link, switching at a keyframe it asks
    /// the publisher for.
    func testEachViewerGetsTheLayerItsLinkCarries() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("simulcast-\(UUID().uuidString).yaml").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        let publisher = try String(contentsOfFile: Repository.path("Pipelines/whip-publish-simulcast.yaml"), encoding: .utf8)
        // The scene (Swift source) keeps each encoder near its bitrate: the ball needs a fraction
        // of it (every layer fits every link) and snow six times the top layer's.
        try String(publisher[..<publisher.range(of: "  audio:")!.lowerBound])
            .replacingOccurrences(of: "{ kind: test, pattern: ball,", with: "{ kind: swift, name: scene,")
            .write(toFile: file, atomically: true, encoding: .utf8)
        let (r, result) = try CLI.ladder(["--simulcast", file, "--seconds", "20", "3mbit", "700kbit", "250kbit"])
        print("RelaySimulcast ladder:", r.stderr.suffix(600), r.stdout)
        let line = r.stdout
        let viewers = try XCTUnwrap(result["viewers"] as? [[String: Any]], line.description)
        XCTAssertEqual(viewers.count, 3)
        XCTAssertEqual(viewers.first?["width"] as? Int, 640, "the free link gets the largest layer: \(line)")
        XCTAssertNotEqual(viewers.last?["width"] as? Int, 640, "250 kbit/s cannot carry the largest layer: \(line)")
        // The slower viewers try the layer above now and then (RenditionChoice's probes, as for
        // a ladder), and the run may end during a try: two of three on the expected layer.
        XCTAssertGreaterThanOrEqual((result["right_rung"] as? NSNumber)?.intValue ?? 0, 2, "the largest layer that fits: \(line)")
        for viewer in viewers {
            XCTAssertGreaterThan((viewer["fps"] as? NSNumber)?.doubleValue ?? 0, 20, "frames keep coming across switches: \(viewer)")
        }
        let switches = try XCTUnwrap(result["switches"] as? [String: Any], line.description)
        XCTAssertGreaterThanOrEqual(
            ((switches["up"] as? NSNumber)?.intValue ?? 0) + ((switches["down"] as? NSNumber)?.intValue ?? 0), 2,
            "viewers start on the middle layer: two of them moved: \(line)")
    }

    /// A layer that stops mid-stream (its SSRC's packets dropped on arrival, as when a
    /// browser turns a layer off): its viewer is moved to the next smaller layer within 2 s
    /// of the last frame, and plays on at that size.
    func testAViewerOfALayerThatStopsMovesToAnother() throws {
        let t = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-layer-stops-\(UUID().uuidString)").path
        defer { for suffix in ["v.json", "p.err"] { try? FileManager.default.removeItem(atPath: "\(t).\(suffix)") } }
        let script = #"""
            ip link set lo up
            \#(Self.relayWithPublisher(port: 18486))
            ssrc=$(curl -s http://127.0.0.1:18486/streams.json | python3 -c 'import json,sys; print([l["ssrc"] for s in json.load(sys.stdin) for l in s.get("layers", []) if l["rid"] == "m"][0])')
            SLUICE_WHEP="http://127.0.0.1:18486/whep/live?layer=m" "$SLUICE" run Pipelines/whep-play.yaml --duration 10 --quiet --report "$T.v.json" >/dev/null 2>&1 &
            viewer=$!
            on() { curl -s http://127.0.0.1:18486/metrics | grep -Eq "^sluice_relay_layer_viewers\{.*layer=.$1.\} 1(\.0)?$"; }
            i=0; until on m; do i=$((i+1)); [ $i -lt 200 ] || exit 92; sleep 0.05; done
            iptables -I INPUT -i lo -p udp -m u32 --u32 "0>>22&0x3C@16=$ssrc" -j DROP || exit 93
            start=$(date +%s%N)
            i=0; until on l; do i=$((i+1)); [ $i -lt 100 ] || break; sleep 0.05; done
            echo "MOVED_MS: $(( ($(date +%s%N) - start) / 1000000 ))"
            echo "METRICS: $(curl -s http://127.0.0.1:18486/metrics | grep '^sluice_relay_layer' | tr '\n' ' ')"
            wait $viewer
            kill -INT $publisher; wait $publisher
            kill -INT $server; wait $server
            """#
        let r = try CLI.execute(inNamespace: script, env: ["SLUICE": CLI.binary.path, "T": t], timeout: 90, reportPath: nil)
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        let moved = try XCTUnwrap(Int(r.keyedLines["MOVED_MS"] ?? ""), r.stdout)
        print("a layer stopped: its viewer was on the next smaller one \(moved) ms after its packets were dropped")
        XCTAssertLessThan(moved, 2000, "the viewer left the stopped layer within 2 s: \(r.stdout)")
        XCTAssertTrue(r.keyedLines["METRICS"]?.contains(#"sluice_relay_layer_switches_total{relay="live",direction="down"} 1"#) ?? false, r.stdout)
        let viewer = CLIResult.report(at: "\(t).v.json")
        XCTAssertEqual(viewer.int("receive.video.width"), 160, "it plays on at the smaller layer's size: \(viewer.report ?? [:])")
        XCTAssertGreaterThan(viewer.int("receive.video.frames") ?? 0, 200, "frames kept coming: \(viewer.report ?? [:])")
    }

    /// A viewer that joins held on the smallest layer (`?layer=l`) negotiates no congestion
    /// feedback (nothing to estimate: its server spends nothing on it), so it cannot be let
    /// go: WHEP's layer selection without a layer (`{"mediaId": "0"}`) is refused with the
    /// reason, one naming a layer moves it there.
    func testAViewerThatJoinedHeldOnALayerIsMovedByNameOnly() throws {
        let t = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-layer-held-\(UUID().uuidString)").path
        defer { for suffix in ["server", "p.err"] { try? FileManager.default.removeItem(atPath: "\(t).\(suffix)") } }
        let script = #"""
            ip link set lo up
            \#(Self.relayWithPublisher(port: 18489, logged: true))
            SLUICE_WHEP="http://127.0.0.1:18489/whep/live?layer=l" "$SLUICE" run Pipelines/whep-play.yaml --duration 28 --quiet >/dev/null 2>&1 &
            viewer=$!
            on() { curl -s http://127.0.0.1:18489/metrics | grep -Eq "^sluice_relay_layer_viewers\{.*layer=.$1.\} 1(\.0)?$"; }
            i=0; until on l; do i=$((i+1)); [ $i -lt 200 ] || exit 92; sleep 0.05; done
            echo "HELD: $(on l && echo l)"
            session=$(grep -o "a viewer of 'live' (session [0-9a-f-]*)" "$T.server" | head -1 | sed 's/.*session \([0-9a-f-]*\))/\1/')
            select() { curl -s -o /dev/null -w '%{http_code}' -X POST -H 'Content-Type: application/json' -d "$1" http://127.0.0.1:18489/whep/live/$session/layer; }
            echo "LET-GO: $(select '{"mediaId": "0"}')"
            echo "LET-GO-BODY: $(curl -s -X POST -H 'Content-Type: application/json' -d '{"mediaId": "0"}' http://127.0.0.1:18489/whep/live/$session/layer)"
            echo "TO-H: $(select '{"mediaId": "0", "rid": "h"}')"
            i=0; until on h; do i=$((i+1)); [ $i -lt 200 ] || break; sleep 0.05; done
            echo "TOP: $(on h && echo h)"
            kill -INT $viewer; wait $viewer
            kill -INT $publisher; wait $publisher
            kill -INT $server; wait $server
            """#
        let r = try CLI.execute(inNamespace: script, env: ["SLUICE": CLI.binary.path, "T": t], timeout: 120, reportPath: nil)
        let context = "\(r.stdout.suffix(3000))\n\(r.stderr.suffix(1000))"
        XCTAssertEqual(r.status, 0, context)
        XCTAssertEqual(r.keyedLines["HELD"], "l", "the viewer joined on the layer it asked for: \(context)")
        XCTAssertEqual(r.keyedLines["LET-GO"], "400", context)
        XCTAssertTrue(r.keyedLines["LET-GO-BODY"]?.contains("joined held on layer 'l'") ?? false, "the refusal says why: \(context)")
        XCTAssertEqual(r.keyedLines["TO-H"], "200", context)
        XCTAssertEqual(r.keyedLines["TOP"], "h", "asked by name, it moved: \(context)")
    }

    /// `--relay-record`: the relay records what it forwards, without decoding: of a simulcast
    /// publisher, the top layer. Read back by ffprobe and gst-discoverer once the publisher has
    /// left: VP8 at the top layer's 640x360 from a keyframe on, the Opus beside it, a finished
    /// file (Matroska knows its duration only once the end of stream reached it).
    func testTheRelaysRecordingTakesTheTopLayer() throws {
        let t = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-relay-record-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: t, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: t) }
        let segment = "\(t)/live-00000.mkv"
        let script = """
            ip link set lo up
            \(Self.relayWithPublisher(port: 18487, serveArguments: "--relay-record \"$T/{name}-{n}.mkv\""))
            frames() { ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames -of csv=p=0 "$T/live-00000.mkv" 2>/dev/null; }
            i=0; until [ "$(frames)" -ge 90 ] 2>/dev/null; do i=$((i+1)); [ $i -lt 300 ] || exit 92; sleep 0.1; done
            kill -INT $publisher; wait $publisher
            kill -INT $server; wait $server
            echo "AUDIO: $(ffprobe -v error -select_streams a:0 -show_entries stream=codec_name -of csv=p=0 "$T/live-00000.mkv")"
            echo "DURATION: $(ffprobe -v error -show_entries format=duration -of csv=p=0 "$T/live-00000.mkv")"
            """
        let r = try CLI.execute(inNamespace: script, env: ["SLUICE": CLI.binary.path, "T": t], timeout: 120, reportPath: nil)
        let context = "\(r.stdout.suffix(3000))\n\(r.stderr.suffix(2000))\npublisher: \((try? String(contentsOfFile: "\(t).p.err", encoding: .utf8)) ?? "")"
        XCTAssertEqual(r.status, 0, context)
        let video = try RecordingProbe.video(of: segment)
        XCTAssertEqual(video.codec, "vp8", "the layers' VP8, as it came: \(video)")
        XCTAssertEqual(video.width, 640, "the top layer's picture: \(video)")
        XCTAssertEqual(video.height, 360, "the top layer's picture: \(video)")
        XCTAssertTrue(video.firstIsKeyframe, "the recording starts at a keyframe: \(video)")
        XCTAssertGreaterThanOrEqual(video.frames, 90, "\(video)")
        XCTAssertEqual(r.keyedLines["AUDIO"], "opus", context)
        XCTAssertGreaterThan(Double(r.keyedLines["DURATION"] ?? "") ?? 0, 2.5, "a finished file knows its duration: \(context)")
        XCTAssertTrue(try RecordingProbe.discovers(segment).ok, "gst-discoverer reads it")
    }

    /// `--relay-record` that cannot work is refused before anything listens (exit 2), saying
    /// what to write.
    func testARelayRecordingThatCannotWorkIsRefused() throws {
        let cases: [(args: [String], says: String)] = [
            (["--relay-record", "/tmp/{name}-{n}.mkv"], "add --relay"),
            (["--relay", "--relay-record", "/tmp/{name}-{n}.avi"], "end the path in .mkv, .mp4 or .ts"),
            (["--relay", "--relay-record", "/tmp/{name}.mkv"], "{n} (the segment's number)"),
            (["--relay", "--relay-record", "/tmp/{name}-{n}.mkv", "--relay-record-segment", "0"], "1 to 86400 seconds")
        ]
        for c in cases {
            let r = try CLI.run(["serve", "--port", "18488"] + c.args, timeout: 30)
            XCTAssertEqual(r.status, 2, "\(c.args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(c.says), "\(c.args) says '\(c.says)': \(r.stderr)")
        }
    }

    /// Shell lines: `sluice serve --relay` on `port` (`$server`), and
    /// Pipelines/whip-publish-simulcast.yaml publishing to its `live` (`$publisher`, its
    /// errors in `$T.p.err`), until the relay says it is live (bounded waits).
    /// `logged`: the relay logs at debug level into "$T.server" (its rendition moves);
    /// `serveArguments` go to `sluice serve`.
    static func relayWithPublisher(port: Int, logged: Bool = false, serveArguments: String = "") -> String {
        """
        "$SLUICE" serve --port \(port) --relay \(serveArguments) \(logged ? "--log-level debug >\"$T.server\"" : ">/dev/null") 2>&1 &
        server=$!
        i=0; until curl -s -m 1 -o /dev/null http://127.0.0.1:\(port)/status.json; do i=$((i+1)); [ $i -lt 200 ] || exit 90; sleep 0.05; done
        SLUICE_WHIP=http://127.0.0.1:\(port)/whip/live "$SLUICE" run Pipelines/whip-publish-simulcast.yaml --duration 40 --quiet >/dev/null 2>"$T.p.err" &
        publisher=$!
        i=0; until curl -s -m 1 http://127.0.0.1:\(port)/streams.json | grep -q '"live":true'; do i=$((i+1)); [ $i -lt 300 ] || exit 91; sleep 0.05; done
        # The publisher sends its best layer alone until the server's answer says it takes the
        # others (a WHIP server may take one stream): they follow a moment later. Each is
        # listed by its rid once a packet showed it, with its size once a keyframe did.
        \(waitForLayers(["h", "m", "l"], port: port, tries: 200))
        """
    }

    /// A shell line that waits (`tries` × 50 ms at most, then goes on: the test's assertions
    /// say what was missing) until the relay on `port` is live and has each of `rids` sized.
    /// A layer's rid shows in /streams.json from its first packet, before its first keyframe
    /// gives it a size; a viewer asking for it before then is refused (`?layer=`), and one
    /// asking before the relay is live gets a 422.
    static func waitForLayers(_ rids: [String], port: Int, tries: Int = 400) -> String {
        let wanted = rids.map { "\"\($0)\"" }.joined(separator: ",")
        let check =
            "import json,sys; d=json.load(sys.stdin); sys.exit(not any(s.get(\"live\") and {\(wanted)} <= {l[\"rid\"] for l in s.get(\"layers\", []) if l[\"width\"] > 0} for s in d))"
        return
            "i=0; until curl -s -m 1 http://127.0.0.1:\(port)/streams.json | python3 -c '\(check)'; do i=$((i+1)); [ $i -lt \(tries) ] || break; sleep 0.05; done"
    }
}
