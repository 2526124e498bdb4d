import Foundation
import SluiceTestSupport
import XCTest

/// Simulcast through Janus VideoRoom: Sluice publishes three layers, Janus forwards each
/// subscriber the one it asks for.
extension JanusEndToEndTests {
    /// `Pipelines/janus-publish-simulcast.yaml` sends 640×360, 320×180 and 160×90 at once;
    /// three Sluice subscribers ask Janus for substream 0, 1 and 2 and each decodes its
    /// layer's size at the full frame rate; the publisher's summary names the layers.
    /// The publisher runs with `adaptive_layers`: Janus's transport-wide feedback on the
    /// layers' packets reaches its estimator, which keeps every layer on over loopback.
    func testEachSubscriberGetsTheSimulcastLayerItAsksFor() throws {
        try Janus.requireInstalled()
        let janus = Janus(httpPort: 18094, wsPort: 18194)
        let t = FileManager.default.temporaryDirectory.appendingPathComponent("janus-simulcast-\(UUID().uuidString.prefix(6))").path
        defer { for s in ["p", "0", "1", "2"] { for e in ["json", "err"] { try? FileManager.default.removeItem(atPath: "\(t).\(s).\(e)") } } }
        let view = { (substream: Int) in
            "\"$SLUICE\" run Pipelines/janus-room-view.yaml --set transport.substream=\(substream) --set 'transport.subscribe=[sc]' "
                + "--set transport.display=v\(substream) --quiet --log-level info --report \(t).\(substream).json --duration 8 "
                + "> /dev/null 2> \(t).\(substream).err &"
        }
        let (lines, raw) = try inRoom(
            janus,
            """
            SLUICE_JANUS_DISPLAY=sc "$SLUICE" run Pipelines/janus-publish-simulcast.yaml --quiet --log-level info \
              --set send.video.encode.adaptive_layers=true --report \(t).p.json --duration 40 > /dev/null 2> \(t).p.err &
            p=$!
            waitfor \(t).p.err 'publishing to room' 300
            \(view(0)) v0=$!
            \(view(1)) v1=$!
            \(view(2)) v2=$!
            wait $v0; echo "V0-STATUS: $?"; wait $v1; echo "V1-STATUS: $?"; wait $v2; echo "V2-STATUS: $?"
            kill -INT $p; wait $p; echo "P-STATUS: $?"
            echo "LOGS: $(cat \(t).p.err \(t).0.err \(t).1.err \(t).2.err | tr '\\n' ' ' | cut -c1-3000)"
            """)
        XCTAssertEqual(lines["P-STATUS"], "0", raw)
        let sent = ((report("\(t).p.json")["send"] as? [String: Any])?["video"] as? [String: Any])?["simulcast"] as? [[String: Any]] ?? []
        print("janus simulcast: publisher sent \(sent)")
        XCTAssertEqual(sent.map { $0["rid"] as? String ?? "?" }, ["h", "m", "l"], "the report lists the layers, best first: \(sent)")
        XCTAssertEqual(sent.map { ($0["width"] as? NSNumber)?.intValue ?? 0 }, [640, 320, 160])
        for layer in sent {
            XCTAssertGreaterThan((layer["frames"] as? NSNumber)?.intValue ?? 0, 200, "each layer is encoded at the capture's rate: \(layer)")
            XCTAssertNotNil(layer["switched_off"] as? NSNumber, "adaptive layers are counted: \(layer)")
        }
        let publisherLog = (try? String(contentsOfFile: "\(t).p.err", encoding: .utf8)) ?? ""
        XCTAssertFalse(
            publisherLog.contains("no congestion feedback"), "Janus's transport-wide feedback reaches the layers' estimator: \(publisherLog.suffix(1500))")
        let bytes = sent.map { ($0["bytes"] as? NSNumber)?.intValue ?? 0 }
        XCTAssertTrue(bytes.count == 3 && bytes[0] > bytes[1] && bytes[1] > bytes[2], "smaller layers are smaller streams: \(bytes)")
        for (substream, width, height) in [(0, 160, 90), (1, 320, 180), (2, 640, 360)] {
            XCTAssertEqual(lines["V\(substream)-STATUS"], "0", raw)
            let streams = ((report("\(t).\(substream).json")["receive"] as? [String: Any])?["streams"] as? [[String: Any]]) ?? []
            let video = streams.first { $0["publisher"] as? String == "sc" && $0["media"] as? String == "video" }
            let frames = (video?["frames"] as? NSNumber)?.intValue ?? 0
            print("janus simulcast: substream \(substream) decoded \(frames) frames at \(video?["width"] ?? "?")x\(video?["height"] ?? "?")")
            XCTAssertEqual((video?["width"] as? NSNumber)?.intValue, width, "substream \(substream): \(streams) \(raw)")
            XCTAssertEqual((video?["height"] as? NSNumber)?.intValue, height, "substream \(substream): \(streams)")
            XCTAssertGreaterThan(frames, 150, "substream \(substream) at the full frame rate: \(streams)")
        }
    }
}

extension JanusEndToEndTests {
    /// Chromium through Debian's janus.js subscribes to the simulcast Sluice publisher and
    /// asks Janus for substream 0, then 2, then 1 (`configure`, as janus.js's demo does): each
    /// time the picture it decodes moves at that layer's size.
    func testChromiumThroughJanusSwitchesBetweenTheSimulcastLayers() throws {
        try Janus.requireInstalled()
        try CLI.requireBrowserTools()
        let janus = Janus(httpPort: 18095, wsPort: 18195)
        let t = FileManager.default.temporaryDirectory.appendingPathComponent("janus-simulcast-browser-\(UUID().uuidString.prefix(6))").path
        defer { for e in ["out", "pub", "berr"] { try? FileManager.default.removeItem(atPath: "\(t).\(e)") } }
        let (lines, raw) = try inRoom(
            janus, timeout: 150,
            """
            SLUICE_JANUS_DISPLAY=sc "$SLUICE" run Pipelines/janus-publish-simulcast.yaml --set send.video.capture.pattern=snow --duration 90 --quiet --log-level info > /dev/null 2> \(t).pub &
            a=$!
            waitfor \(t).pub 'the publishing PeerConnection is up' 300
            '\(Repository.python)' '\(Repository.path("Tests/Interop/janus/janus_browser.py"))' '\(janus.url)' 1234 sc \
              --substreams 0,2,1 --timeout 40 > \(t).out 2> \(t).berr
            echo "BROWSER-STATUS: $?"
            echo "BROWSER: $(cat \(t).out)"
            kill -INT $a; wait $a; echo "PUB-STATUS: $?"
            echo "LOGS: $(cat \(t).berr \(t).pub | tr '\\n' ' ' | cut -c1-2000)"
            """)
        XCTAssertEqual(lines["BROWSER-STATUS"], "0", raw)
        XCTAssertEqual(lines["PUB-STATUS"], "0", raw)
        let browser = (lines["BROWSER"].flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) } as? [String: Any]) ?? [:]
        let layers = browser["substreams"] as? [[String: Any]] ?? []
        let sizes = layers.map { l in
            "\(l["substream"] ?? "?"): \(l["trackWidth"] ?? "?")x\(l["trackHeight"] ?? "?") (\(l["trackFrames"] ?? "?") frames in 1.5 s)"
        }
        print("janus simulcast with chromium: first picture \((browser["picture"] as? [String: Any])?["trackWidth"] ?? "?") wide; \(sizes)")
        let int = { (l: [String: Any], k: String) in (l[k] as? NSNumber)?.intValue ?? 0 }
        XCTAssertEqual(layers.map { int($0, "substream") }, [0, 2, 1], "\(browser) \(raw)")
        XCTAssertEqual(layers.map { int($0, "trackWidth") }, [160, 640, 320], "each layer at its own size: \(sizes)")
        XCTAssertEqual(layers.map { int($0, "trackHeight") }, [90, 360, 180], "\(sizes)")
        for layer in layers {
            XCTAssertGreaterThan((layer["maxFrameDiff"] as? NSNumber)?.doubleValue ?? 0, 0.5, "a moving picture: \(layer)")
            XCTAssertGreaterThanOrEqual(int(layer, "trackFrames"), 30, "at least 20 of the 30 frames a second: \(layer)")
        }
    }
}

extension JanusEndToEndTests {
    /// A Sluice subscriber that starts on substream 0 is moved to 2 through the control API
    /// (`PATCH /pipelines/{name}/receive/video/simulcast`): Janus says it switched, the picture
    /// it decodes ends at 640x360; a layer out of range is refused with 422.
    func testTheControlAPIMovesASubscriberToAnotherLayer() throws {
        try Janus.requireInstalled()
        let janus = Janus(httpPort: 18096, wsPort: 18196)
        let t = FileManager.default.temporaryDirectory.appendingPathComponent("janus-layer-api-\(UUID().uuidString.prefix(6))").path
        defer { for e in ["p.err", "v.err", "v.json", "body"] { try? FileManager.default.removeItem(atPath: "\(t).\(e)") } }
        let api = "http://127.0.0.1:18946/api/v1/pipelines/janus-room-view/receive/video/simulcast"
        let (lines, raw) = try inRoom(
            janus,
            """
            SLUICE_JANUS_DISPLAY=sc "$SLUICE" run Pipelines/janus-publish-simulcast.yaml --quiet --log-level info --duration 60 > /dev/null 2> \(t).p.err &
            p=$!
            waitfor \(t).p.err 'publishing to room' 300
            "$SLUICE" run Pipelines/janus-room-view.yaml --set transport.substream=0 --control 127.0.0.1:18946 --quiet --log-level info \
              --report \(t).v.json --duration 60 > /dev/null 2> \(t).v.err &
            v=$!
            waitfor \(t).v.err 'now receiving substream 0' 300
            echo "MOVE: $(curl -s -o \(t).body -w '%{http_code}' -X PATCH -H 'Content-Type: application/json' -d '{"substream": 2}' \(api)) $(tr -d ' \\n' < \(t).body)"
            waitfor \(t).v.err 'now receiving substream 2' 300
            echo "SWITCHED: $?"
            echo "RANGE: $(curl -s -o /dev/null -w '%{http_code}' -X PATCH -H 'Content-Type: application/json' -d '{"substream": 5}' \(api))"
            echo "NOBODY: $(curl -s -o /dev/null -w '%{http_code}' -X PATCH -H 'Content-Type: application/json' -d '{"substream": 1, "publisher": "nobody"}' \(api))"
            sleep 1
            kill -INT $v; wait $v; echo "V-STATUS: $?"
            kill -INT $p; wait $p; echo "P-STATUS: $?"
            echo "LOGS: $(cat \(t).p.err \(t).v.err | tr '\\n' ' ' | cut -c1-3000)"
            """)
        let move = lines["MOVE"] ?? ""
        XCTAssertTrue(move.hasPrefix("202 "), raw)
        XCTAssertTrue(move.contains("\"publishers\":[\"sc\"]") && move.contains("\"substream\":2"), "the answer names who was asked for: \(move)")
        XCTAssertEqual(lines["SWITCHED"], "0", "Janus said it forwards substream 2: \(raw)")
        XCTAssertEqual(lines["RANGE"], "422", raw)
        XCTAssertEqual(lines["NOBODY"], "404", raw)
        XCTAssertEqual(lines["V-STATUS"], "0", raw)
        XCTAssertEqual(lines["P-STATUS"], "0", raw)
        let streams = ((report("\(t).v.json")["receive"] as? [String: Any])?["streams"] as? [[String: Any]]) ?? []
        let video = streams.first { $0["media"] as? String == "video" }
        print("janus simulcast via the control API: \(video ?? [:])")
        XCTAssertEqual((video?["substream"] as? NSNumber)?.intValue, 2, "\(streams)")
        XCTAssertEqual((video?["width"] as? NSNumber)?.intValue, 640, "the picture after the switch is the top layer's: \(streams)")
    }
}
