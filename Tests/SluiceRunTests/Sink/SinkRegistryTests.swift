import Foundation
import SluiceTestSupport
import GStreamer
import SluiceRunTestSupport
import XCTest
import SluiceRun

/// A sink kind is one type plus its registry line: a kind written outside the library
/// (`SnapshotSink`, one file) is decoded, checked and run, and what it wrote is the picture.
final class SinkRegistryTests: XCTestCase {
    override func setUp() { SinkRegistry.register(SnapshotSink()) }
    override func tearDown() { SinkRegistry.unregister("snapshot") }

    private func file(_ sink: String, media: String = "video") -> String {
        """
        transport: { ice: { addresses: [127.0.0.1] } }
        send:
          \(media):
            capture: { kind: test }
        receive:
          \(media):
            sink: \(sink)
        """
    }

    func testANewSinkKindDecodesItsOwnKeys() throws {
        let spec = try XCTUnwrap(specLoadValid(file("{ kind: snapshot, path: 'shot-%03d.png' }")))
        XCTAssertEqual(spec.receive?.video?.sink.kind.settings(as: SnapshotSink.Settings.self)?.path, "shot-%03d.png")
        let bare = try XCTUnwrap(specLoadErrors(file("snapshot")))
        XCTAssertTrue(bare.description.contains("test.yaml:7:11: a snapshot sink needs a path"), bare.description)
        let audio = try XCTUnwrap(specLoadErrors(file("{ kind: snapshot, path: a.png }", media: "audio")))
        XCTAssertTrue(audio.description.contains("use it on receive.video"), audio.description)
        let other = try XCTUnwrap(specLoadErrors(file("{ kind: stats, path: a.png }")))
        XCTAssertTrue(other.description.contains("'path' only applies to kind file, record and snapshot"), other.description)
        let unknown = try XCTUnwrap(specLoadErrors(file("snapshoot")))
        XCTAssertTrue(unknown.description.contains("did you mean 'snapshot'?"), unknown.description)
    }

    func testANewSinkKindRunsAndWritesThePicture() async throws {
        try requireLoopbackOnlyNetwork()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-snapshot-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let yaml = """
            transport: { ice: { addresses: [127.0.0.1] } }
            send:
              video:
                capture: { kind: test, pattern: white, width: 160, height: 120, fps: 10 }
                encode: { codec: vp8, bitrate: 300 }
            receive:
              video:
                sink: { kind: snapshot, path: '\(dir.path)/shot-%03d.png' }
            """
        let spec = try XCTUnwrap(specLoadValid(yaml))
        let summary = try await PipelineRun(spec: spec).run(options: RunOptions(duration: 2))
        XCTAssertGreaterThan(summary.receive.video?.frames ?? 0, 5)
        let first = try Data(contentsOf: dir.appendingPathComponent("shot-000.png"))
        XCTAssertEqual(Array(first.prefix(8)), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], "a PNG file")
        let be32 = { (at: Int) in first[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        XCTAssertEqual(be32(16), 160, "the picture's width (IHDR)")
        XCTAssertEqual(be32(20), 120, "the picture's height (IHDR)")
        let shots = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".png") }
        XCTAssertGreaterThan(shots.count, 5, "one picture per received frame")
    }
}
