import Foundation
import SluiceTestSupport
import XCTest

/// Simulcast through Janus VideoRoom: Sluice publishes three layers, Janus forwards each
/// subscriber the one it asks for.
extension JanusEndToEndTests {
    /// `Pipelines/janus-publish-simulcast.yaml` sends 640×360, 320×180 and 160×90 at once;
    /// three Sluice subscribers ask Janus for substream 0, 1 and 2 and each decodes its
    /// layer's size at the full frame rate; the publisher's summary names the layers.
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
              --report \(t).p.json --duration 40 > /dev/null 2> \(t).p.err &
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
        }
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
