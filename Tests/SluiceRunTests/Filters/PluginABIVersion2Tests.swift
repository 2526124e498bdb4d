import Foundation
import SluiceFilterKit
import SluiceTestSupport
import XCTest
@testable import SluiceRun

/// Plugin ABI version 2: audio filters through the C interface (Plugins/ExamplePlugin's
/// `tremolo`), version-1 plugins still loading, and every malformed version-2 table refused
/// with its reason while the rest goes on.
final class PluginABIVersion2Tests: XCTestCase {
    override func setUpWithError() throws {
        _ = TestFilters.registered
        guard FileManager.default.fileExists(atPath: DynamicPluginTests.example) else {
            XCTFail("build the example plugin first: swift build -c release --package-path Plugins/ExamplePlugin (Scripts/test.sh does)")
            throw XCTSkip("no example plugin")
        }
    }

    /// Compiles `source` (C) into a shared library in a fresh folder and returns its path.
    private func library(_ name: String, _ source: String) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-abi2-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        let c = dir.appendingPathComponent("\(name).c"), so = dir.appendingPathComponent("lib\(name).so")
        try ("#include <stddef.h>\n#include <stdint.h>\n#include <string.h>\n#include <stdlib.h>\n" + Self.header + source)
            .write(to: c, atomically: true, encoding: .utf8)
        let cc = Process()
        cc.executableURL = URL(fileURLWithPath: "/usr/bin/cc")
        cc.arguments = ["-shared", "-fPIC", "-I", Repository.path("Sources/CSluicePluginABI/include"), "-o", so.path, c.path]
        try cc.run()
        cc.waitUntilExit()
        XCTAssertEqual(cc.terminationStatus, 0, "cc \(name).c")
        return so.path
    }

    private static let header = "#include \"sluice_plugin.h\"\n"

    /// One audio filter in C that halves every float sample; `count`, `table` and the sizes are
    /// what the test makes wrong.
    private func halvingPlugin(
        name: String, abi: String = "SLUICE_PLUGIN_ABI_VERSION_2", tableSize: String = "sizeof(SluicePluginV2)",
        filterSize: String = "sizeof(SluiceAudioFilterV2)", audioCount: Int = 1, audioTable: String = "&halve",
        encodedCount: Int = 0
    ) throws -> String {
        try library(
            name,
            """
            static void *create(const void *t, const char *json, char **error) { (void) t; (void) json; (void) error; return malloc(1); }
            static void destroy(void *i) { free(i); }
            static int32_t process(void *i, SluiceAudioBufferV2 *b, SluiceEmitV1 emit, void *ctx, char **error) {
                (void) i; (void) emit; (void) ctx; (void) error;
                float *f = b->data;
                for (uint32_t k = 0; k < b->frames * (uint32_t) b->channels; k++) f[k] *= 0.5f;
                return 0;
            }
            static void free_string(char *s) { free(s); }
            static const SluiceAudioFilterV2 halve = {
                \(filterSize), "\(name)-halve", "halves the level", "F32LE", "[]", 1, NULL, create, destroy, process, free_string
            };
            static const SluicePluginV2 table = {
                \(abi), \(tableSize), "\(name)", 0, NULL, \(audioCount), \(audioTable), \(encodedCount), NULL
            };
            const SluicePluginV2 *sluice_plugin_v2(void) { return &table; }
            """)
    }

    func testTheExamplePluginsAudioFilterRunsThroughTheCInterfaceContinuingAcrossBuffers() throws {
        XCTAssertNil(FilterRegistry.shared.loadPlugin(at: DynamicPluginTests.example))
        XCTAssertNotNil(FilterRegistry.shared.filter(named: "sepia"), "version 2 carries the video filter too")
        let tremolo = try XCTUnwrap(FilterRegistry.shared.audioFilter(named: "tremolo"))
        XCTAssertEqual(tremolo.origin, DynamicPluginTests.example)
        XCTAssertEqual(tremolo.formats, [.f32le, .s16le])
        XCTAssertEqual(tremolo.parameters.map(\.name), ["rate_hz", "depth"])
        let processor = try tremolo.make(
            try FilterConfiguration(["rate_hz": .number(10), "depth": .number(1)], parameters: tremolo.parameters), nil)
        // Two buffers of ones, mono at 1 kHz; the second continues the first's phase.
        var output: [Float] = []
        for (k, offset) in [UInt64(0), 30].enumerated() {
            var ones = [Float](repeating: 1, count: 30)
            _ = try ones.withUnsafeMutableBytes { raw in
                try processor.process(
                    AudioBlock(
                        format: .f32le, rate: 1000, channels: 1, base: raw.baseAddress!, byteCount: raw.count, pts: nil,
                        blockNumber: UInt64(k), sampleOffset: offset), context: .discarding)
            }
            output += ones
        }
        for (i, value) in output.enumerated() {
            XCTAssertEqual(value, Float(1 - (1 + sin(2 * Double.pi * 10 * Double(i) / 1000)) / 2), accuracy: 1e-5, "sample \(i)")
        }
    }

    /// The example plugin's `scramble`, a Swift `EncodedFrameFilter` exported through
    /// `tableV2`: it arrives as a C plugin's does, a frame through the C interface comes back
    /// XORed past its clear header, and run on both sides of a VP8 stream it gives back the
    /// painted picture.
    func testTheExamplePluginsEncodedFilterRunsThroughTheCInterface() async throws {
        try requireLoopbackOnlyNetwork()
        XCTAssertNil(FilterRegistry.shared.loadPlugin(at: DynamicPluginTests.example))
        let scramble = try XCTUnwrap(FilterRegistry.shared.encodedFilter(named: "scramble"))
        XCTAssertEqual(scramble.origin, DynamicPluginTests.example)
        XCTAssertEqual(scramble.codecs, [.vp8])
        XCTAssertEqual(scramble.parameters.map(\.name), ["key"])
        let processor = try scramble.make(try FilterConfiguration(["key": .integer(0x0F)], parameters: scramble.parameters), nil)
        let frame: [UInt8] = [1, 2, 3, 4, 5, 6]
        let verdict = try frame.withUnsafeBytes { bytes in
            try processor.process(EncodedFrame(codec: .vp8, direction: .send, isKeyframe: false, bytes: bytes), context: .discarding)
        }
        XCTAssertEqual(verdict, .replace([1, 2, 3, 4 ^ 0x0F, 5 ^ 0x0F, 6 ^ 0x0F]), "three bytes of a delta frame stay clear")
        let spec = try PipelineLoader(environment: [:], catalog: GStreamerCatalog(), filters: FilterRegistry.shared).load(
            yaml: """
                transport: { ice: { addresses: [127.0.0.1] } }
                send:
                  video:
                    capture: { kind: test, pattern: snow, width: 320, height: 240, fps: 30 }
                    filters: [{ filter: test-paint, luma: 70 }]
                    encode: { codec: vp8, bitrate: 800 }
                    encoded_filters: [{ filter: scramble, key: 77 }]
                receive:
                  video:
                    codecs: [vp8]
                    encoded_filters: [{ filter: scramble, key: 77 }]
                    filters: [{ filter: test-luma-probe }]
                """, file: "s.yaml")
        let summary = try await PipelineRun(spec: spec).run(options: RunOptions(duration: 3))
        let sides = summary.filters.filter { $0.filter == "scramble" }
        XCTAssertEqual(sides.count, 2, "\(summary.filters)")
        XCTAssertTrue(sides.allSatisfy { ($0.events["scrambled"] ?? 0) > 1 }, "both sides scrambled frames: \(sides)")
        XCTAssertGreaterThan(summary.receive.video?.frames ?? 0, 45, "the unscrambled frames decode")
        XCTAssertEqual(try XCTUnwrap(LumaProbe.lastMean), 70, accuracy: 4, "the decoded picture is the painted one")
    }

    func testAVersionOnePluginStillLoads() throws {
        let path = try library(
            "onlyv1",
            """
            static void *create(const void *t, const char *json, char **error) { (void) t; (void) json; (void) error; return malloc(1); }
            static void destroy(void *i) { free(i); }
            static int32_t process(void *i, SluiceFrameV1 *f, SluiceEmitV1 emit, void *ctx, char **error) {
                (void) i; (void) emit; (void) ctx; (void) error;
                memset(f->data[0], 7, (size_t) f->stride[0] * (size_t) f->height);
                return 0;
            }
            static void free_string(char *s) { free(s); }
            static const SluiceFilterV1 paint = { "onlyv1-paint", "paints luma 7", "I420", "[]", 1, NULL, create, destroy, process, free_string };
            static const SluicePluginV1 table = { SLUICE_PLUGIN_ABI_VERSION, 1, &paint, "onlyv1" };
            const SluicePluginV1 *sluice_plugin_v1(void) { return &table; }
            """)
        XCTAssertNil(FilterRegistry.shared.loadPlugin(at: path))
        let factory = try XCTUnwrap(FilterRegistry.shared.filter(named: "onlyv1-paint"))
        let frame = OwnedFrame(format: .i420, width: 8, height: 4, fill: 200)
        _ = try frame.withFrame {
            try factory.make(try FilterConfiguration([:], parameters: []))
                .process($0, context: .discarding)
        }
        XCTAssertEqual(frame[0, 3, 2], 7)
    }

    func testAVersionTwoAudioFilterFromCLoadsAndRuns() throws {
        let path = try halvingPlugin(name: "goodv2")
        XCTAssertNil(FilterRegistry.shared.loadPlugin(at: path))
        let factory = try XCTUnwrap(FilterRegistry.shared.audioFilter(named: "goodv2-halve"))
        var samples: [Float] = [0.5, -1, 0.25, 1]
        _ = try AudioBlock.withSamples(&samples, rate: 48_000, channels: 2) {
            try factory.make(try FilterConfiguration([:], parameters: []), nil).process($0, context: .discarding)
        }
        XCTAssertEqual(samples, [0.25, -0.5, 0.125, 0.5])
    }

    /// An encoded-frame filter in C: on the sending side it appends "PLGN" to each frame
    /// (written through `reserve`), on the receiving side it checks and strips it, attaching
    /// `trailer` {"ok": 1} (or dropping a frame without it). `codecs` and the descriptor's
    /// size are what the tests make wrong.
    private func trailerPlugin(name: String, codecs: String = "VP8,OPUS", filterSize: String = "sizeof(SluiceEncodedFilterV2)") throws -> String {
        try library(
            name,
            """
            static void *create(const void *t, const char *json, char **error) { (void) t; (void) json; (void) error; return malloc(1); }
            static void destroy(void *i) { free(i); }
            static int32_t process(void *i, const SluiceEncodedFrameV2 *f, const SluiceEncodedOutputV2 *out,
                                   SluiceEmitV1 emit, void *ctx, char **error) {
                (void) i; (void) emit; (void) ctx;
                if (f->flags & 2) {
                    uint8_t *b = out->reserve(out->context, f->size + 4);
                    if (!b) { *error = strdup("no room"); return -1; }
                    memcpy(b, f->data, f->size); memcpy(b + f->size, "PLGN", 4);
                    return 2;
                }
                if (f->size < 4 || memcmp(f->data + f->size - 4, "PLGN", 4) != 0) return 1;
                uint8_t *b = out->reserve(out->context, f->size - 4);
                memcpy(b, f->data, f->size - 4);
                out->attach(out->context, "trailer", "{\\"ok\\": 1}");
                return 2;
            }
            static void free_string(char *s) { free(s); }
            static const SluiceEncodedFilterV2 trailer = {
                \(filterSize), "\(name)-trailer", "adds and strips a 4-byte trailer", "\(codecs)", "[]", NULL, create, destroy, process, free_string
            };
            static const SluicePluginV2 table = { SLUICE_PLUGIN_ABI_VERSION_2, sizeof(SluicePluginV2), "\(name)", 0, NULL, 0, NULL, 1, &trailer };
            const SluicePluginV2 *sluice_plugin_v2(void) { return &table; }
            """)
    }

    /// A plugin's encoded-frame filter in a real pipeline: the trailer it adds before the
    /// payloader (VP8 through Sluice's own payloader) is stripped after the depayloader, so
    /// the picture decodes, and every frame it strips is reported.
    func testAVersionTwoEncodedFilterFromCRunsOnBothSides() async throws {
        try requireLoopbackOnlyNetwork()
        let path = try trailerPlugin(name: "plgn")
        XCTAssertNil(FilterRegistry.shared.loadPlugin(at: path))
        let factory = try XCTUnwrap(FilterRegistry.shared.encodedFilter(named: "plgn-trailer"))
        XCTAssertEqual(factory.codecs, [.vp8, .opus])
        XCTAssertEqual(factory.origin, path)
        let spec = try PipelineLoader(environment: [:], catalog: GStreamerCatalog(), filters: FilterRegistry.shared).load(
            yaml: """
                transport: { ice: { addresses: [127.0.0.1] } }
                send:
                  video:
                    capture: { kind: test, width: 320, height: 240, fps: 30 }
                    encode: { codec: vp8, bitrate: 500 }
                    encoded_filters: [{ filter: plgn-trailer }]
                receive:
                  video:
                    codecs: [vp8]
                    encoded_filters: [{ filter: plgn-trailer }]
                """, file: "p.yaml")
        let summary = try await PipelineRun(spec: spec).run(options: RunOptions(duration: 3))
        let sides = summary.filters.filter { $0.filter == "plgn-trailer" }
        XCTAssertEqual(sides.count, 2, "\(summary.filters)")
        let receiving = try XCTUnwrap(sides.first { ($0.events["trailer"] ?? 0) > 0 }, "\(sides)")
        XCTAssertGreaterThan(receiving.events["trailer"] ?? 0, 45, "each frame's trailer found and stripped: \(receiving)")
        XCTAssertEqual(receiving.dropped, 0, "\(receiving)")
        XCTAssertGreaterThan(summary.receive.video?.frames ?? 0, 45, "the stripped frames decode")
        XCTAssertEqual(summary.receive.video?.width, 320)
    }

    func testMalformedEncodedFilterDescriptorsAreRefused() throws {
        for (name, path, expected) in [
            ("nocodec", try trailerPlugin(name: "nocodec", codecs: "AV1"), "declares no known codec (VP8, VP9, H264, OPUS)"),
            ("smallenc", try trailerPlugin(name: "smallenc", filterSize: "8"), "an encoded-frame filter's descriptor is 8 bytes")
        ] {
            let error = FilterRegistry.shared.loadPlugin(at: path)
            XCTAssertTrue(error?.contains(expected) ?? false, "\(name): \(error ?? "loaded")")
            XCTAssertNil(FilterRegistry.shared.encodedFilter(named: "\(name)-trailer"))
        }
    }

    func testMalformedVersionTwoTablesAreRefusedWithTheirReason() throws {
        let cases: [(String, String, String)] = [
            ("future", try halvingPlugin(name: "future", abi: "3"), "built for plugin ABI version 3"),
            ("small", try halvingPlugin(name: "small", tableSize: "8"), "its table is 8 bytes, smaller than version 2's"),
            ("smallfilter", try halvingPlugin(name: "smallfilter", filterSize: "4"), "an audio filter's descriptor is 4 bytes"),
            ("notable", try halvingPlugin(name: "notable", audioCount: 2, audioTable: "NULL"), "it counts 2 audio filter(s) but gives no table of them"),
            ("encoded", try halvingPlugin(name: "encoded", encodedCount: 1), "it counts 1 encoded-frame filter(s) but gives no table of them")
        ]
        for (name, path, expected) in cases {
            let error = FilterRegistry.shared.loadPlugin(at: path)
            XCTAssertTrue(error?.contains(expected) ?? false, "\(name): \(error ?? "loaded")")
            XCTAssertNil(FilterRegistry.shared.audioFilter(named: "\(name)-halve"), "\(name): nothing of a refused plugin is registered")
        }
        XCTAssertNil(FilterRegistry.shared.loadPlugin(at: try halvingPlugin(name: "after")), "a good plugin still loads after the refused ones")
    }
}
