import Foundation
import SluiceTestSupport
import SluiceFilterKit
import XCTest
@testable import SluiceRun

/// Loading a filter from a shared library built by its own package (Plugins/ExamplePlugin),
/// and every way loading can fail.
final class DynamicPluginTests: XCTestCase {
    static let example = Repository.path("Plugins/ExamplePlugin/.build/release/libSluiceExampleFilters.so")

    override func setUpWithError() throws {
        _ = TestFilters.registered
        guard FileManager.default.fileExists(atPath: Self.example) else {
            XCTFail("build the example plugin first: swift build -c release --package-path Plugins/ExamplePlugin (Scripts/test.sh does)")
            throw XCTSkip("no example plugin")
        }
    }

    private func temporaryDirectory() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-plugins-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    func testExamplePluginLoadsAndItsFilterRunsThroughTheCInterface() throws {
        XCTAssertNil(FilterRegistry.shared.loadPlugin(at: Self.example))
        XCTAssertNil(FilterRegistry.shared.loadPlugin(at: Self.example), "loading the same library twice is a no-op")
        let factory = try XCTUnwrap(FilterRegistry.shared.filter(named: "sepia"))
        XCTAssertEqual(factory.origin, Self.example)
        XCTAssertEqual(factory.formats, [.i420, .nv12, .rgba, .bgrx])
        XCTAssertEqual(factory.parameters.map(\.name), ["strength"])

        // Run it on a frame: full strength sets I420 chroma to the sepia tone (108, 148).
        let processor = try factory.make(try FilterConfiguration(["strength": .number(1)], parameters: factory.parameters))
        let frame = OwnedFrame(format: .i420, width: 17, height: 9, rowPadding: 3, fill: 128)
        let verdict = try frame.withFrame { try processor.process($0, context: .discarding) }
        XCTAssertEqual(verdict, .keep)
        XCTAssertEqual(frame[1, 0, 0], 108)
        XCTAssertEqual(frame[2, 8, 4], 148)
        XCTAssertEqual(frame[0, 5, 5], 128, "luma untouched")
        XCTAssertTrue(frame.paddingIsIntact(128))
    }

    func testPluginFilterRunsInAPipelineNamedFromTheFile() async throws {
        try requireLoopbackOnlyNetwork()
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("p.yaml").path
        let yaml = """
            plugins: [\(Self.example)]
            transport: { ice: { addresses: [127.0.0.1] } }
            send:
              video:
                capture: { kind: test, width: 160, height: 120, fps: 30 }
                filters:
                  - filter: sepia
                    strength: 0.5
                encode: { codec: vp8, bitrate: 300 }
            """
        try yaml.write(toFile: file, atomically: true, encoding: .utf8)
        let spec = try PipelineLoader(environment: [:], catalog: GStreamerCatalog(), filters: FilterRegistry.shared).load(path: file)
        XCTAssertEqual(spec.plugins.map(\.path), [Self.example])
        let summary = try await PipelineRun(spec: spec).run(options: RunOptions(duration: 2))
        XCTAssertEqual(summary.filters.first?.filter, "sepia")
        XCTAssertGreaterThan(summary.filters.first?.frames ?? 0, 30)
        XCTAssertGreaterThan(summary.receive.video?.frames ?? 0, 30)
    }

    func testMissingFile() {
        let error = FilterRegistry.shared.loadPlugin(at: "/nonexistent/libNothing.so")
        XCTAssertTrue(error?.contains("file not found") ?? false, error ?? "")
    }

    func testLibraryWithoutEntryPoint() {
        let error = FilterRegistry.shared.loadPlugin(at: "/lib/x86_64-linux-gnu/libz.so.1")
        XCTAssertTrue(error?.contains("no entry point 'sluice_plugin_v2' or 'sluice_plugin_v1'") ?? false, error ?? "")
    }

    func testLibraryThatIsNotALibrary() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("libfake.so").path
        try "not an ELF file".write(toFile: path, atomically: true, encoding: .utf8)
        let error = FilterRegistry.shared.loadPlugin(at: path)
        XCTAssertTrue(error?.contains("cannot load") ?? false, error ?? "")
    }

    func testVersionMismatch() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let source = dir.appendingPathComponent("future.c"), library = dir.appendingPathComponent("libfuture.so")
        try """
        #include <stdint.h>
        typedef struct { uint32_t abi_version; uint32_t filter_count; const void *filters; const char *plugin_name; } Table;
        static const Table table = { 99, 0, 0, "from the future" };
        const Table *sluice_plugin_v1(void) { return &table; }
        """.write(to: source, atomically: true, encoding: .utf8)
        let cc = Process()
        cc.executableURL = URL(fileURLWithPath: "/usr/bin/cc")
        cc.arguments = ["-shared", "-fPIC", "-o", library.path, source.path]
        try cc.run()
        cc.waitUntilExit()
        XCTAssertEqual(cc.terminationStatus, 0)
        let error = FilterRegistry.shared.loadPlugin(at: library.path)
        XCTAssertTrue(error?.contains("plugin ABI version 99") ?? false, error ?? "")
        XCTAssertTrue(error?.contains("speaks version 1") ?? false, error ?? "")
    }

    func testDuplicateFilterName() throws {
        XCTAssertNil(FilterRegistry.shared.loadPlugin(at: Self.example))
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let copy = dir.appendingPathComponent("libSluiceExampleFiltersCopy.so").path
        try FileManager.default.copyItem(atPath: Self.example, toPath: copy)
        let error = FilterRegistry.shared.loadPlugin(at: copy)
        XCTAssertTrue(error?.contains("a filter named 'sepia' is already registered") ?? false, error ?? "")
        XCTAssertTrue(error?.contains(Self.example) ?? false, "names where the first one came from: \(error ?? "")")
    }
}
