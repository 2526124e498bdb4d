import Foundation
import GStreamer
import Synchronization
import SluiceTestSupport
import SluiceRunTestSupport
import XCTest

@testable import SluiceRun

/// `sink: {kind: record}`: its keys and their errors (FILE:LINE:COL), the path template
/// (names, the files it could have named), and `keep` deleting only those.
final class RecordSinkTests: XCTestCase {
    private func file(_ sink: String, decode: String = "auto", codecs: String? = nil, sent: String = "h264") -> String {
        """
        name: gate
        transport: { ice: { addresses: [127.0.0.1] } }
        send:
          video:
            capture: { kind: test }
            encode: { codec: \(sent) }
        receive:
          video:
            decode: \(decode)\(codecs.map { "\n    codecs: \($0)" } ?? "")
            sink: \(sink)
        """
    }

    private func errors(_ sink: String, decode: String = "auto", codecs: String? = nil, sent: String = "h264", line: UInt = #line) -> String {
        specLoadErrors(file(sink, decode: decode, codecs: codecs, sent: sent), line: line)?.description ?? ""
    }

    func testTheKeysDecode() throws {
        let spec = try XCTUnwrap(specLoadValid(file("{ kind: record, path: 'rec/{name}-%Y%m%d-%H%M%S.mkv', segment: 90s, keep: 7d }")))
        let s = try XCTUnwrap(spec.receive?.video?.sink.kind.settings(as: RecordSink.Settings.self))
        XCTAssertEqual(s.format, .mkv)
        XCTAssertEqual(s.segmentSeconds, 90)
        XCTAssertEqual(s.keepSeconds, 7 * 86_400)
        let ts = try XCTUnwrap(specLoadValid(file("{ kind: record, path: 'rec/{n}', format: ts }")))
        XCTAssertEqual(ts.receive?.video?.sink.kind.settings(as: RecordSink.Settings.self)?.format, .ts)
    }

    func testBadKeysSayWhatToWrite() {
        XCTAssertTrue(errors("record").contains("test.yaml:10:11: a recording needs a path"), errors("record"))
        let noUnique = errors("{ kind: record, path: 'rec/{name}-%Y%m%d.mp4' }")
        XCTAssertTrue(noUnique.contains("test.yaml:10:33: each segment needs a file of its own"), noUnique)
        let badCode = errors("{ kind: record, path: 'rec/%Q-%S.mp4' }")
        XCTAssertTrue(badCode.contains("%Q is not a time a recording's path can hold"), badCode)
        let noFormat = errors("{ kind: record, path: 'rec/{n}.avi' }")
        XCTAssertTrue(noFormat.contains("end the path in .mp4, .mkv or .ts, or write `format: mp4`"), noFormat)
        let disagree = errors("{ kind: record, path: 'rec/{n}.mp4', format: mkv }")
        XCTAssertTrue(disagree.contains("test.yaml:10:56: the path ends in .mp4 but format is mkv"), disagree)
        let keep = errors("{ kind: record, path: 'rec/{n}.mp4', segment: 60, keep: 30s }")
        XCTAssertTrue(keep.contains("keep (30 s) is shorter than a segment (60 s)"), keep)
        let segment = errors("{ kind: record, path: 'rec/{n}.mp4', segment: 0 }")
        XCTAssertTrue(segment.contains("invalid segment '0'; write a duration"), segment)
        let codec = errors("{ kind: record, path: 'rec/{n}.ts', encode: { codec: vp8 } }")
        XCTAssertTrue(codec.contains("ts cannot hold vp8; use h264, or another format"), codec)
    }

    /// `decode: none` records what arrives: the branch accepts only what the format holds,
    /// and a sink that needs decoded frames is refused.
    func testUndecodedRecordingsAcceptOnlyWhatTheirFormatHolds() throws {
        let spec = try XCTUnwrap(specLoadValid(file("{ kind: record, path: 'rec/{n}.mp4' }", decode: "none")))
        XCTAssertEqual(spec.receive?.video?.codecs, [.h264, .vp9])
        let vp8 = errors("{ kind: record, path: 'rec/{n}.mp4' }", decode: "none", codecs: "[vp8]", sent: "vp8")
        XCTAssertTrue(vp8.contains("the record sink cannot hold vp8 undecoded; accept h264 or vp9, or decode"), vp8)
        let sentVP8 = errors("{ kind: record, path: 'rec/{n}.mp4' }", decode: "none", sent: "vp8")
        XCTAssertTrue(sentVP8.contains("receive.video accepts h264, vp9 but send.video sends vp8"), sentVP8)
        let display = errors("display", decode: "none")
        XCTAssertTrue(display.contains("use sink stats, null or record, or decode"), display)
    }

    func testTheTemplateNamesSegmentsAndKnowsItsOwn() throws {
        let t = try SegmentTemplate.parse("rec/{name}/%Y%m%d-%H%M%S-{n}.mp4").get()
        var parts = DateComponents()
        (parts.year, parts.month, parts.day, parts.hour, parts.minute, parts.second) = (2026, 3, 4, 5, 6, 7)
        let date = try XCTUnwrap(Calendar.current.date(from: parts))
        XCTAssertEqual(t.path(name: "front door", index: 12, at: date), "rec/front_door/20260304-050607-00012.mp4")
        XCTAssertEqual(t.pathExtension, "mp4")
        XCTAssertEqual(t.fixedDirectory.path, "rec")
        XCTAssertEqual(t.fixedDirectory.depth, 2)
        XCTAssertTrue(t.names("rec/front_door/20260304-050607-00012.mp4", name: "front door"))
        XCTAssertTrue(t.names("rec/front_door/20260304-050607-00012-2.mp4", name: "front door"))
        XCTAssertFalse(t.names("rec/back/20260304-050607-00012.mp4", name: "front door"))
        XCTAssertFalse(t.names("rec/front_door/20260304-050607-00012.mp4.bak", name: "front door"))
        XCTAssertFalse(t.names("rec/front_door/2026034-050607-00012.mp4", name: "front door"))
        XCTAssertEqual(try SegmentTemplate.parse("/abs/%s.ts").get().fixedDirectory.path, "/abs")
        XCTAssertEqual(try SegmentTemplate.parse("%s.ts").get().fixedDirectory.path, ".")
        XCTAssertEqual(try SegmentTemplate.parse("100%%-{n}.ts").get().path(name: "x", index: 1, at: date), "100%-00001.ts")
    }

    /// A name already taken gets `-1`; `keep` deletes this template's old files only.
    func testTheNamerNeverOverwritesAndPrunesOnlyItsOwnOldFiles() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-namer-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let template = try SegmentTemplate.parse(dir + "/{name}-{n}.mkv").get()
        let namer = SegmentNamer(template: template, pipelineName: "cam", keepSeconds: 3600)
        let first = namer.next(index: 0)
        XCTAssertEqual(first, dir + "/cam-00000.mkv")
        FileManager.default.createFile(atPath: first, contents: Data())
        XCTAssertEqual(namer.next(index: 0), dir + "/cam-00000-1.mkv")
        let old = Date().addingTimeInterval(-7200)
        for name in ["cam-00007.mkv", "cam-x.mkv", "dog-00001.mkv"] {
            FileManager.default.createFile(atPath: dir + "/" + name, contents: Data())
            try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: dir + "/" + name)
        }
        try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: first)
        _ = namer.next(index: 1)
        XCTAssertEqual(namer.written.deleted, [dir + "/cam-00000.mkv", dir + "/cam-00007.mkv"])
        let left = try FileManager.default.contentsOfDirectory(atPath: dir).sorted()
        XCTAssertEqual(left, ["cam-x.mkv", "dog-00001.mkv"])
    }
    /// `send.<media>.record`: the sink's keys but `encode` (what is sent is what is
    /// recorded), and a format that holds what the branch sends.
    func testASendBranchRecordsWhatItSends() throws {
        func send(_ encode: String, _ record: String) -> String {
            """
            name: cam
            transport: { kind: none }
            send:
              video:
                capture: { kind: test }
                encode: \(encode)
                record: \(record)
            """
        }
        let spec = try XCTUnwrap(specLoadValid(send("{ codec: h264 }", "{ path: 'rec/{n}.ts', segment: 10 }")))
        let record = try XCTUnwrap(spec.send?.video?.record?.kind.settings(as: RecordSink.Settings.self))
        XCTAssertEqual(record.format, .ts)
        XCTAssertEqual(record.segmentSeconds, 10)
        let vp8 = specLoadErrors(send("{ codec: vp8 }", "{ path: 'rec/{n}.mp4' }"))?.description ?? ""
        XCTAssertTrue(vp8.contains("test.yaml:7:5: send.video sends vp8, which mp4 cannot hold; record to mkv"), vp8)
        let encode = specLoadErrors(send("{ codec: h264 }", "{ path: 'rec/{n}.mp4', encode: { codec: h264 } }"))?.description ?? ""
        XCTAssertTrue(encode.contains("unknown key 'encode' in send.video.record"), encode)
    }
    /// In process (and in memcheck's list): a loopback run records what arrives, undecoded,
    /// in 1-second segments named by the format-location signal; the summary lists them.
    func testARecordingRunsInProcess() async throws {
        try requireLoopbackOnlyNetwork()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-record-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let yaml = """
            name: inproc
            transport: { ice: { addresses: [127.0.0.1] } }
            send:
              video:
                capture: { kind: test, pattern: white, width: 160, height: 120, fps: 15 }
                encode: { codec: vp8, bitrate: 300, keyframe_interval: 15 }
            receive:
              video:
                decode: none
                sink: { kind: record, path: '\(dir.path)/{name}-{n}.mkv', segment: 1 }
            """
        let spec = try XCTUnwrap(specLoadValid(yaml))
        let summary = try await PipelineRun(spec: spec).run(options: RunOptions(duration: 3))
        let segments = summary.recordings.first?.segments ?? []
        XCTAssertGreaterThanOrEqual(segments.count, 2, "\(summary.recordings)")
        XCTAssertEqual(segments.first, dir.path + "/inproc-00000.mkv")
        for path in segments {
            let data = (try? Data(contentsOf: URL(fileURLWithPath: path))) ?? Data()
            XCTAssertEqual(Array(data.prefix(4)), [0x1A, 0x45, 0xDF, 0xA3], "\(path) is a Matroska file")
            XCTAssertGreaterThan(data.count, 300, "\(path) holds a frame beyond its header")
        }
    }

    /// What reaches the muxer's side of a recording's queue: buffers without a presentation
    /// time are dropped (the muxer would stop the run on one), timed ones pass.
    private func passed(from factory: String) throws -> Int {
        let pipeline = Pipeline()
        let src = try Element.make(factory), queue = try Element.make("queue"), sink = try Element.make("fakesink")
        try src.set("num-buffers", 5)
        try pipeline.add([src, queue, sink])
        try Element.link([src, queue, sink])
        RecordSink.dropUntimed(at: queue)
        let count = Mutex(0)
        sink.staticPad("sink")!.addProbe(.buffer) { (_: borrowing Pad.ProbeInfo) in
            count.withLock { $0 += 1 }
            return .ok
        }
        pipeline.setState(.playing)
        defer { pipeline.setState(.null) }
        let end = pipeline.bus.pop(timeout: 5_000_000_000, of: [.eos, .error])
        XCTAssertEqual(end?.kind, .eos)
        return count.withLock { $0 }
    }

    func testARecordingDropsBuffersWithoutATimestamp() throws {
        XCTAssertEqual(try passed(from: "fakesrc"), 0, "fakesrc stamps no presentation time")
        XCTAssertEqual(try passed(from: "videotestsrc"), 5, "timed buffers pass")
    }
}
