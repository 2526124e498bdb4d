import Foundation
import SluiceTestSupport
import XCTest

/// A room as one picture and one sound, recordings per publisher, and a publisher flood.
extension JanusEndToEndTests {
    /// `receive.video.mosaic` and `receive.audio.mix`: the room as one picture and one sound.
    /// A red publisher (640x360, a 500 Hz tone) and a blue one (320x240, 1200 Hz) are composed
    /// into a 640x360 grid and mixed, recorded to one file: in its last frame the left cell is
    /// red with black bars above and below (the aspect kept), the right cell blue, and its sound
    /// holds both tones. A second viewer records each publisher to a file of its own
    /// (`{publisher}` in the path): cam-a's is red at 640x360, cam-b's blue at 320x240.
    func testAMosaicAndAMixMakeTheRoomOnePictureAndOneSound() throws {
        try Janus.requireInstalled()
        try CLI.requireBrowserTools()
        let janus = Janus(httpPort: 18093, wsPort: 18193)
        let t = FileManager.default.temporaryDirectory.appendingPathComponent("janus-mosaic-\(UUID().uuidString.prefix(6))").path
        defer {
            for e in ["yaml", "each.yaml", "view", "eachlog", "mkv", "rgb", "pcm", "json", "a", "b", "cam-a.mkv", "cam-b.mkv", "cam-a.rgb", "cam-b.rgb"] {
                try? FileManager.default.removeItem(atPath: "\(t).\(e)")
            }
        }
        try """
        version: 1
        name: mosaic
        transport: {kind: janus, server: '${SLUICE_JANUS}', room: 1234, display: mosaic-viewer}
        receive:
          video:
            mosaic: {width: 640, height: 360}
            sink: {kind: file, path: '\(t).mkv'}
          audio:
            mix: true
            sink: {kind: file, path: '\(t).mkv'}
        """.write(toFile: "\(t).yaml", atomically: true, encoding: .utf8)
        try """
        version: 1
        name: each
        transport: {kind: janus, server: '${SLUICE_JANUS}', room: 1234, display: recorder}
        receive:
          video: {sink: {kind: file, path: '\(t).{publisher}.mkv'}}
        """.write(toFile: "\(t).each.yaml", atomically: true, encoding: .utf8)
        let publish = "\"$SLUICE\" run Pipelines/janus-publish.yaml --duration 60 --quiet --log-level info"
        let decode =
            "gst-launch-1.0 -q filesrc location=FILE ! matroskademux name=d d.video_0 ! queue ! decodebin ! videoconvert ! video/x-raw,format=RGB ! filesink location=OUT"
        let (lines, raw) = try inRoom(
            janus,
            """
            SLUICE_JANUS_DISPLAY=cam-a \(publish) --set send.video.capture.pattern=red --set send.audio.capture.frequency=500 > /dev/null 2> \(t).a &
            a=$!
            SLUICE_JANUS_DISPLAY=cam-b SLUICE_JANUS_WIDTH=320 SLUICE_JANUS_HEIGHT=240 \(publish) --set send.video.capture.pattern=blue --set send.audio.capture.frequency=1200 > /dev/null 2> \(t).b &
            b=$!
            waitfor \(t).a 'the publishing PeerConnection is up' 300; waitfor \(t).b 'the publishing PeerConnection is up' 300
            "$SLUICE" run \(t).yaml --duration 5 --quiet --log-level debug --report \(t).json > /dev/null 2> \(t).view; echo "VIEW-STATUS: $?"
            echo "VIEW-ROOM: $(grep -E 'streams of|subscription updated|left the room|joined' \(t).view | cut -c1-200 | tr '\\n' ' ')"
            echo "VIEW-ERR: $(tail -c 800 \(t).view | tr '\\n' ' ')"
            "$SLUICE" run \(t).each.yaml --duration 3 --quiet > /dev/null 2> \(t).eachlog; echo "EACH-STATUS: $?"
            echo "EACH-ERR: $(tail -c 800 \(t).eachlog | tr '\\n' ' ')"
            kill -INT $a $b; wait $a; wait $b
            \(decode.replacingOccurrences(of: "FILE", with: "\(t).mkv").replacingOccurrences(of: "OUT", with: "\(t).rgb"))
            echo "DECODE-STATUS: $?"
            for p in cam-a cam-b; do \(decode.replacingOccurrences(of: "FILE", with: "\(t).$p.mkv").replacingOccurrences(of: "OUT", with: "\(t).$p.rgb")); done
            \(tones(mkv: "\(t).mkv"))
            """)
        XCTAssertEqual(lines["VIEW-STATUS"], "0", raw)
        XCTAssertEqual(lines["EACH-STATUS"], "0", raw)
        XCTAssertEqual(lines["DECODE-STATUS"], "0", raw)
        let r = report("\(t).json")
        let video = (r["receive"] as? [String: Any])?["video"] as? [String: Any]
        XCTAssertEqual((video?["width"] as? NSNumber)?.intValue, 640)
        XCTAssertGreaterThan((video?["frames"] as? NSNumber)?.intValue ?? 0, 60, "\(r)")
        XCTAssertGreaterThan((((r["receive"] as? [String: Any])?["audio"] as? [String: Any])?["buffers"] as? NSNumber)?.intValue ?? 0, 100, "\(r)")
        func lastFrame(_ path: String, _ width: Int, _ height: Int) -> ((Int, Int) -> [Int])? {
            let recording = RGBRecording(path: path, width: width, height: height)
            return recording.isWhole ? { recording.lastPixel($0, $1) } : nil
        }
        let isRed = { (p: [Int]) in p[0] > 200 && p[1] < 50 && p[2] < 50 }
        let isBlue = { (p: [Int]) in p[2] > 200 && p[0] < 50 && p[1] < 50 }
        let recording = RGBRecording(path: "\(t).rgb", width: 640, height: 360)
        XCTAssertTrue(recording.isWhole, "a 640x360 recording")
        XCTAssertGreaterThan(recording.frames, 60, "frames in the recording")
        // The picture the recording ends on; a frame or two drawn from the black backdrop alone
        // while the run stops are allowed (CI once ended on a black frame: the runs are printed).
        let runs = recording.pictureRuns.map { "\($0.picture) x\($0.frames)" }
        let shown = (max(0, recording.frames - 3)..<recording.frames).last { recording.picture(frame: $0) != "black" } ?? recording.frames - 1
        let mosaic = { (x: Int, y: Int) in recording.frames > 0 ? recording.pixel(frame: shown, x, y) : [0, 0, 0] }
        XCTAssertTrue(isRed(mosaic(160, 180)), "cam-a's cell is red: \(mosaic(160, 180)); the recording: \(runs); the viewer: \(raw)")
        XCTAssertTrue(isBlue(mosaic(480, 180)), "cam-b's cell is blue: \(mosaic(480, 180))")
        XCTAssertTrue(mosaic(160, 10).allSatisfy { $0 < 30 }, "a black bar above cam-a's 16:9 picture in its cell: \(mosaic(160, 10))")
        // One sound: both tones in the mix, well above the spectrum's floor (and above a frequency nobody sent).
        assertBothTones(lines, raw)
        // One file per publisher, each its own picture at its own size.
        let a = try XCTUnwrap(lastFrame("\(t).cam-a.rgb", 640, 360), "cam-a's own recording at 640x360")
        let b = try XCTUnwrap(lastFrame("\(t).cam-b.rgb", 320, 240), "cam-b's own recording at 320x240")
        XCTAssertTrue(isRed(a(320, 180)), "\(a(320, 180))")
        XCTAssertTrue(isBlue(b(160, 120)), "\(b(160, 120))")
    }

    /// A publisher flood: 34 aiortc publishers (Tests/Interop/janus/flood_publishers.py, ids
    /// 1000–1033, `flood-0`…`flood-33`) fill room 2468, whose limit is 34. A Sluice publisher is
    /// refused with Janus's error and advice; a subscriber to `all` receives 32 of them (its
    /// bound), says how many it left out, and sees every one of them leave when the flood ends;
    /// a subscriber naming feed ids (`subscribe: [1003, 1007]`) receives exactly those two.
    func testAPublisherFloodIsBoundedAndFeedsCanBeNamedByID() throws {
        try Janus.requireInstalled()
        try CLI.requireBrowserTools()
        let janus = Janus(httpPort: 18096, wsPort: 18196)
        let t = FileManager.default.temporaryDirectory.appendingPathComponent("janus-flood-\(UUID().uuidString.prefix(6))").path
        defer { for e in ["all.json", "ids.json", "out", "err", "done", "all", "ids", "pub"] { try? FileManager.default.removeItem(atPath: "\(t).\(e)") } }
        let view = "\"$SLUICE\" run Pipelines/janus-room-view.yaml --set transport.room=2468 --quiet --log-level info"
        let (lines, raw) = try inRoom(
            janus, timeout: 150,
            """
            '\(Repository.python)' '\(Repository.root.path)/Tests/Interop/janus/flood_publishers.py' '\(janus.url)' 2468 34 --hold-until \(t).done --timeout 90 > \(t).out 2> \(t).err &
            f=$!
            waitfor \(t).out published 1200
            echo "FLOOD: $(cat \(t).out)"
            "$SLUICE" run Pipelines/janus-publish.yaml --set transport.room=2468 --duration 3 --quiet > /dev/null 2> \(t).pub
            echo "PUB-STATUS: $?"; echo "PUB: $(cat \(t).pub)"
            \(view) --set 'transport.subscribe=[1003, 1007]' --duration 4 --report \(t).ids.json > /dev/null 2> \(t).ids; echo "IDS-STATUS: $?"
            \(view) --duration 30 --report \(t).all.json > /dev/null 2> \(t).all &
            v=$!
            waitfor \(t).all 'the subscribing PeerConnection is up' 300
            sleep 4
            touch \(t).done; wait $f; echo "FLOOD-STATUS: $?"
            i=0; until [ "$(grep -c 'left the room' \(t).all)" -ge 32 ]; do i=$((i+1)); [ $i -lt 300 ] || break; sleep 0.05; done
            echo "LEFT: $(grep -c 'left the room' \(t).all)"
            kill -INT $v; wait $v; echo "ALL-STATUS: $?"
            echo "ALL-WARN: $(grep 'at most 32' \(t).all | head -1)"
            echo "FLOOD-ERR: $(tail -c 600 \(t).err | tr '\\n' ' ')"
            """)
        let flood = (lines["FLOOD"].flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) } as? [String: Any]) ?? [:]
        XCTAssertEqual((flood["connected"] as? NSNumber)?.intValue, 34, raw)
        XCTAssertEqual(lines["FLOOD-STATUS"], "0", raw)
        XCTAssertEqual(lines["PUB-STATUS"], "3", "the 35th publisher is refused: \(raw)")
        XCTAssertTrue(
            lines["PUB"]?.contains("Janus refused 'publish': Maximum number of publishers (34) already reached (error 432); the room is full") ?? false, raw)
        // Named by feed id: exactly those two.
        XCTAssertEqual(lines["IDS-STATUS"], "0", raw)
        let ids = ((report("\(t).ids.json")["receive"] as? [String: Any])?["streams"] as? [[String: Any]]) ?? []
        XCTAssertEqual(Set(ids.compactMap { $0["publisher"] as? String }), ["flood-3", "flood-7"], "\(ids)")
        XCTAssertTrue(ids.allSatisfy { (($0["frames"] as? NSNumber)?.intValue ?? 0) > 5 }, "\(ids)")
        // Everyone: the first 32, each decoded at 64x48, the rest left out with a warning.
        XCTAssertEqual(lines["ALL-STATUS"], "0", raw)
        XCTAssertTrue(lines["ALL-WARN"]?.contains("receiving at most 32 publishers; 2 not received") ?? false, raw)
        let all = ((report("\(t).all.json")["receive"] as? [String: Any])?["streams"] as? [[String: Any]]) ?? []
        XCTAssertEqual(all.count, 32, "\(all)")
        XCTAssertEqual(Set(all.compactMap { $0["publisher"] as? String }).count, 32, "\(all)")
        let starved = all.filter { (($0["frames"] as? NSNumber)?.intValue ?? 0) < 5 || ($0["width"] as? NSNumber)?.intValue != 64 }
        XCTAssertTrue(starved.isEmpty, "every received publisher decoded at 64x48: \(starved)")
        XCTAssertEqual(Int(lines["LEFT"] ?? ""), 32, "each departure noticed: \(raw)")
        XCTAssertTrue(all.allSatisfy { $0["left"] as? Bool == true }, "\(all)")
    }
}
