import Foundation
import SluiceTestSupport
import SluiceRunTestSupport
import XCTest

@testable import SluiceRun

/// `capture: {kind: recording}`: its keys and errors, and which segments it plays.
final class RecordingCaptureTests: XCTestCase {
    private func file(_ capture: String) -> String {
        """
        transport: { kind: none }
        send:
          video:
            capture: \(capture)
            encode: none
        """
    }

    func testTheKeysAndTheirErrors() throws {
        let spec = try XCTUnwrap(
            specLoadValid(file("{ kind: recording, path: 'rec/{name}-%Y%m%d-%H%M%S.mp4', name: door, from: '2026-03-04T05:06:07' }")))
        let s = try XCTUnwrap(spec.send?.video?.capture.kind.settings(as: RecordingCapture.Settings.self))
        XCTAssertEqual(s.recordedName, "door")
        XCTAssertEqual(s.from, RecordingCapture.moment("2026-03-04 05:06:07"))
        let noName = specLoadErrors(file("{ kind: recording, path: 'rec/{name}-{n}.mp4' }"))?.description ?? ""
        XCTAssertTrue(noName.contains("test.yaml:4:39: the path holds {name}: say whose recording this is"), noName)
        let noPath = specLoadErrors(file("{ kind: recording, name: door }"))?.description ?? ""
        XCTAssertTrue(noPath.contains("a recording capture needs the recording's path"), noPath)
        let badFrom = specLoadErrors(file("{ kind: recording, path: 'rec/%s.ts', from: yesterday }"))?.description ?? ""
        XCTAssertTrue(badFrom.contains("invalid from 'yesterday'; write a local date and time"), badFrom)
        let untimed = specLoadErrors(file("{ kind: recording, path: 'rec/{n}.ts', from: '2026-03-04T05:06:07' }"))?.description ?? ""
        XCTAssertTrue(untimed.contains("`from` needs the time in the segments' names"), untimed)
    }

    /// From the segment that holds `from` (the last to start at or before it) to the newest;
    /// other pipelines' files and names the path could not have written are not played.
    func testItPlaysFromTheSegmentThatHoldsTheMomentAsked() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-play-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for name in ["door-20260304-050000.ts", "door-20260304-050100.ts", "door-20260304-050200.ts", "gate-20260304-050130.ts", "door-notes.ts"] {
            FileManager.default.createFile(atPath: dir + "/" + name, contents: Data())
        }
        let old = Date().addingTimeInterval(-60)
        for name in try FileManager.default.contentsOfDirectory(atPath: dir) {
            try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: dir + "/" + name)
        }
        let template = try SegmentTemplate.parse(dir + "/{name}-%Y%m%d-%H%M%S.ts").get()
        var settings = RecordingCapture.Settings(template: template, recordedName: "door")
        XCTAssertEqual(
            settings.segments().map { ($0 as NSString).lastPathComponent }, ["door-20260304-050000.ts", "door-20260304-050100.ts", "door-20260304-050200.ts"])
        settings.from = RecordingCapture.moment("2026-03-04T05:01:30")
        XCTAssertEqual(settings.segments().map { ($0 as NSString).lastPathComponent }, ["door-20260304-050100.ts", "door-20260304-050200.ts"])
        settings.from = RecordingCapture.moment("2026-03-04T04:00:00")
        XCTAssertEqual(settings.segments().count, 3, "before the first: from the first")
        settings.from = RecordingCapture.moment("2026-03-05T00:00:00")
        XCTAssertEqual(settings.segments().map { ($0 as NSString).lastPathComponent }, ["door-20260304-050200.ts"])
        XCTAssertEqual(template.startTime(of: dir + "/door-20260304-050100.ts", name: "door"), RecordingCapture.moment("2026-03-04T05:01:00"))
        XCTAssertNil(template.startTime(of: dir + "/door-notes.ts", name: "door"))
        // Playing a recording that is still running: one written a moment ago is left out.
        FileManager.default.createFile(atPath: dir + "/door-20260304-050300.ts", contents: Data())
        XCTAssertEqual(settings.segments().map { ($0 as NSString).lastPathComponent }, ["door-20260304-050300.ts"])
        settings.settled = 1
        XCTAssertEqual(settings.segments().map { ($0 as NSString).lastPathComponent }, ["door-20260304-050200.ts"])
    }
    /// In process (and in memcheck's list): a recording made by one run is played back by
    /// another through splitmuxsrc, its parts named by `format-location` (a string array),
    /// every recorded frame sent once.
    func testARecordingPlaysBackInProcess() async throws {
        try requireLoopbackOnlyNetwork()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-replay-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let record = try XCTUnwrap(
            specLoadValid(
                """
                name: clip
                transport: { kind: none }
                send:
                  video:
                    capture: { kind: test, pattern: white, width: 160, height: 120, fps: 15 }
                    encode: { codec: h264, bitrate: 300, keyframe_interval: 15 }
                    record: { path: '\(dir)/{name}-{n}.mkv', segment: 1 }
                """))
        let recorded = try await PipelineRun(spec: record).run(options: RunOptions(duration: 3))
        let segments = recorded.recordings.first?.segments ?? []
        XCTAssertGreaterThanOrEqual(segments.count, 2, "\(recorded.recordings)")
        let play = try XCTUnwrap(
            specLoadValid(
                """
                transport: { ice: { addresses: [127.0.0.1] } }
                send:
                  video:
                    capture: { kind: recording, path: '\(dir)/{name}-{n}.mkv', name: clip }
                    encode: none
                """))
        let played = try await PipelineRun(spec: play).run(options: RunOptions(duration: 10))
        XCTAssertEqual(played.send.video?.frames, recorded.send.video?.frames, "every recorded frame, once")
        XCTAssertGreaterThan(played.receive.video?.frames ?? 0, 20)
    }
}
