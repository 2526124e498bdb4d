import Foundation
import SluiceTestSupport
import XCTest
@testable import SluiceRun

/// `sei` in a real pipeline: docs/filters.md's example run over WebRTC loopback. The receiver
/// reads every frame's message, a value changed through the control API arrives in the
/// messages after it, and the recording of the sent stream holds the messages where ffmpeg,
/// which nobody here wrote, finds them.
final class SEIPipelineTests: XCTestCase {
    override func setUp() { _ = TestFilters.registered }

    /// The receive side's `sei` reader: its last message's fields, once more than `count` were read.
    private func lastRead(_ run: PipelineRun, moreThan count: Int) -> [String: Double]? {
        guard let reader = run.filterStatistics.last(where: { $0.filter == "sei" }), (reader.events["sei"] ?? 0) > count else { return nil }
        return reader.lastEventFields["sei"]
    }

    private func wait(_ what: String, timeout: Double = 10, _ done: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
        while !done() {
            guard ContinuousClock.now < deadline else { throw Timeout(what: what) }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    private struct Timeout: Error, CustomStringConvertible { let what: String; var description: String { "timed out waiting for \(what)" } }

    func testTheDocsExampleCarriesEachFramesMessageToTheReceiverAndTheRecording() async throws {
        try requireLoopbackOnlyNetwork()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-sei-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let doc = try String(contentsOf: Repository.root.appendingPathComponent("docs/filters.md"), encoding: .utf8)
        let yaml = try XCTUnwrap(
            doc.components(separatedBy: "```yaml\n").dropFirst().map { $0.components(separatedBy: "```")[0] }
                .first { $0.contains("filter: sei") }, "docs/filters.md has a yaml block with `filter: sei`")
        let spec = try PipelineLoader(environment: ["RECORDINGS": dir.path], catalog: GStreamerCatalog(), filters: FilterRegistry.shared)
            .load(yaml: yaml, file: "docs/filters.md")
        let run = PipelineRun(spec: spec)
        let stop = StopFlag()
        let task = Task { try await run.run(options: RunOptions(), stop: stop) }
        defer { stop.set() }
        try await wait("30 messages read") { lastRead(run, moreThan: 30) != nil }
        let first = try XCTUnwrap(lastRead(run, moreThan: 30))
        XCTAssertEqual(first["value"], 42, "the file's value: \(first)")
        XCTAssertGreaterThanOrEqual(first["frame"] ?? 0, 30, "the writer's frame number travels: \(first)")
        XCTAssertEqual(first["delay_ms"] ?? -1, 25, accuracy: 25, "encoder output to depayloader on loopback: \(first)")
        let control = try XCTUnwrap(run.control)
        try control.setEncodedFilterParameters(side: .send, media: .video, index: 0, ["value": "7"])
        try await wait("a message with the new value") { lastRead(run, moreThan: 0)?["value"] == 7 }
        let read = run.filterStatistics.last { $0.filter == "sei" }?.events["sei"] ?? 0
        stop.set()
        let summary = try await task.value
        XCTAssertEqual(summary.filters.last { $0.filter == "sei" }?.events["sei-malformed"], nil, "\(summary.filters)")
        XCTAssertGreaterThan(read, 30)

        // The recording: every frame ffmpeg reads carries one message with Sluice's UUID.
        let file = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: dir.path).first { $0.hasSuffix(".mp4") })
        let trace = try ProcessRunner.run(
            URL(fileURLWithPath: "/usr/bin/ffmpeg"),
            ["-v", "trace", "-i", dir.appendingPathComponent(file).path, "-c", "copy", "-bsf:v", "trace_headers", "-f", "null", "-"], timeout: 60)
        let uuids = Self.uuids(in: trace.stdout + trace.stderr)
        let ours = uuids.filter { $0 == [0x7C, 0x1C, 0x3F, 0x1E, 0x5A, 0x1D, 0x4C, 0x1E, 0x8E, 0x57, 0x51, 0xCE, 0x5E, 0x1D, 0x00, 0x01] }
        let frames = trace.stderr.components(separatedBy: "Access Unit Delimiter").count - 1
        XCTAssertGreaterThan(ours.count, 30, "ffmpeg finds Sluice's SEI in the recording (\(uuids.count) user data UUIDs)")
        XCTAssertGreaterThanOrEqual(ours.count, frames, "one per frame (\(frames) access units)")
    }

    /// Each `uuid_iso_iec_11578` of ffmpeg's `trace_headers` output, 16 bytes each.
    private static func uuids(in trace: String) -> [[UInt8]] {
        let bytes = trace.split(separator: "\n").compactMap { line -> UInt8? in
            guard line.contains("uuid_iso_iec_11578["), let value = line.split(separator: "=").last else { return nil }
            return UInt8(value.trimmingCharacters(in: .whitespaces))
        }
        return stride(from: 0, to: bytes.count - 15, by: 16).map { Array(bytes[$0..<($0 + 16)]) }
    }
}
