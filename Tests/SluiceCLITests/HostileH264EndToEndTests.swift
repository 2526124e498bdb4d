import Foundation
import SluiceTestSupport
import XCTest

/// Hostile H.264 from a live source, passed through (issue 28's bad input): a 1 MiB SPS, a
/// keyframe NAL unit of random bytes, and in FLV a NAL unit whose length field says 16 MiB
/// and one of length 0. `Tests/Interop/h264/hostile_h264.py` sends red, the attacks, then
/// blue from a clean keyframe. Each run must end on time with exit 0 and the viewer, after
/// WebRTC, must see red and then blue: the hostile units are survived, never a crash or hang.
final class HostileH264EndToEndTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-hostile-h264-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    /// MPEG-TS over SRT (Annex B): the 1 MiB SPS and the garbage keyframe reach Sluice's
    /// parser and payloader, and the stream goes on in the same session.
    func testAHugeSPSAndAGarbageNALUnitOverSRTAreSurvived() throws {
        let r = try run("srt", capture: "{ kind: srt, url: 'srt://:18674' }", sender: "srt://127.0.0.1:18674", attacks: "huge-sps,garbage-nal")
        assertRedThenBlue(r, "srt")
        XCTAssertTrue(r.stdout.contains("ATTACK huge-sps") && r.stdout.contains("ATTACK garbage-nal"), r.stdout)
    }

    /// FLV over RTMP through nginx-rtmp: NAL length fields that lie (16 MiB; 0 then a
    /// truncated field) are dropped by the parser, and the picture goes on.
    func testLyingNALLengthsOverRTMPAreSurvived() throws {
        let r = try run(
            "rtmp", capture: "{ kind: rtmp, url: 'rtmp://127.0.0.1:18675/live/cam' }", sender: "rtmp://127.0.0.1:18675/live/cam",
            attacks: "bad-nal-size,zero-nal-size", nginx: 18675)
        assertRedThenBlue(r, "rtmp")
        XCTAssertTrue(r.stdout.contains("ATTACK bad-nal-size") && r.stdout.contains("ATTACK zero-nal-size"), r.stdout)
    }

    /// A 1 MiB SPS over RTMP is more than nginx-rtmp takes in one message (`max_message`, 1 MiB):
    /// nginx drops the publisher. Sluice counts that as an outage with its reason, keeps the
    /// session, and ends the run on time with what it had.
    func testAHugeSPSThatMakesTheRTMPServerDropThePublisherIsCountedAsAnOutage() throws {
        let r = try run(
            "rtmp-huge", capture: "{ kind: rtmp, url: 'rtmp://127.0.0.1:18676/live/cam' }", sender: "rtmp://127.0.0.1:18676/live/cam",
            attacks: "huge-sps", nginx: 18676)
        XCTAssertEqual(r.status, 0, "\(r.stderr.suffix(3000)) \(r.stdout.suffix(2000))")
        let source = (r.value("sources") as? [[String: Any]])?.first ?? [:]
        XCTAssertGreaterThanOrEqual(source["outages"] as? Int ?? 0, 1, "the dropped publisher is an outage: \(r.report ?? [:])")
        XCTAssertFalse((source["last_reason"] as? String ?? "").isEmpty, "the outage has its reason: \(source)")
        let picture = RGBRecording(path: dir.appendingPathComponent("rtmp-huge.mkv").path + ".rgb", width: 320, height: 240)
        XCTAssertEqual(picture.pictureSequence().first, "red", "the picture before the attack: \(picture.pictureRuns)")
    }

    /// Starts the source (nginx first when `nginx` is a port), the hostile sender and
    /// `sluice run` for 8 s in one namespace; the viewer's recording lands in NAME.mkv.rgb.
    private func run(_ name: String, capture: String, sender: String, attacks: String, nginx: Int? = nil) throws -> CLIResult {
        let file = dir.appendingPathComponent("\(name).yaml").path, record = dir.appendingPathComponent("\(name).mkv").path
        let report = dir.appendingPathComponent("report-\(name).json").path
        try """
        transport: { ice: { addresses: [127.0.0.1] } }
        send:
          video: { capture: \(capture), encode: none }
        receive:
          video: { sink: { kind: file, path: "\(record)" } }
        """.write(toFile: file, atomically: true, encoding: .utf8)
        let script = """
            ip link set lo up
            \(nginx.map { NetworkSourcesEndToEndTests.startNginx(rtmp: $0) } ?? "nginx=")
            "$SLUICE" run '\(file)' --duration 8 --report '\(report)' > "$TMP.run" 2>&1 &
            run=$!
            "$PYTHON" Tests/Interop/h264/hostile_h264.py --to '\(sender)' --attack \(attacks) --seconds 8 &
            sender=$!
            wait $run; status=$?
            kill $sender $nginx 2>/dev/null; wait
            cat "$TMP.run"
            gst-launch-1.0 -q filesrc location='\(record)' ! decodebin ! videoconvert ! video/x-raw,format=RGB \\
              ! filesink location='\(record).rgb' || echo "DECODE FAILED" >&2
            exit $status
            """
        return try CLI.execute(
            inNamespace: script, env: ["SLUICE": CLI.binary.path, "PYTHON": "/usr/bin/python3", "TMP": dir.appendingPathComponent(name).path],
            timeout: 90, reportPath: report)
    }

    /// Exit 0, passed through, and the viewer saw the red picture, then the blue one for
    /// most of the time after the attacks.
    private func assertRedThenBlue(_ r: CLIResult, _ what: String) {
        XCTAssertEqual(r.status, 0, "\(what): \(r.stderr.suffix(3000)) \(r.stdout.suffix(2000))")
        XCTAssertEqual(r.value("send.video.passthrough") as? Bool, true, "\(what): \(r.report ?? [:])")
        let picture = RGBRecording(path: dir.appendingPathComponent("\(what).mkv").path + ".rgb", width: 320, height: 240)
        XCTAssertEqual(picture.pictureSequence(), ["red", "blue"], "\(what): \(picture.pictureRuns)")
        let blue = picture.pictureRuns.filter { $0.picture == "blue" }.map(\.frames).reduce(0, +)
        XCTAssertGreaterThan(blue, 90, "\(what): the stream went on after the attacks at about 30 fps: \(picture.pictureRuns)")
    }
}
