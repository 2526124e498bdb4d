import SluiceFilterKit
import XCTest
@testable import SluiceRun

/// Swift filters and sources in pipeline files: settings are typed and checked with
/// FILE:LINE:COL errors like everything else.
final class SwiftFilterSpecTests: XCTestCase {
    override func setUp() { _ = TestFilters.registered }

    private let loader = PipelineLoader(environment: [:], filters: FilterRegistry.shared)

    private func load(_ filters: String) throws -> PipelineSpec {
        try loader.load(yaml: "send:\n  video:\n    capture: {kind: test}\n    filters:\n" + filters, file: "f.yaml")
    }

    private func diagnostic(_ filters: String, file: StaticString = #filePath, line: UInt = #line) -> String {
        do {
            _ = try load(filters)
            XCTFail("expected an error", file: file, line: line)
            return ""
        } catch {
            return (error as? PipelineFileError)?.description ?? "\(error)"
        }
    }

    func testARegionReachingOutsideThePictureIsAWarningAtTheFilter() throws {
        let outside = try load("      - filter: pixelate\n        region: [1200, 600, 200, 200]\n")
        XCTAssertEqual(
            loader.warnings(for: outside).map(\.description),
            [
                "f.yaml:5:9: warning: filter 'pixelate': region [1200, 600, 200, 200] reaches outside the 1280×720 picture: only [1200, 600, 80, 120] is pixelated"
            ])
        let away = try load("      - filter: pixelate\n        region: [1300, 0, 20, 20]\n")
        XCTAssertTrue(loader.warnings(for: away).first?.description.hasSuffix("nothing is pixelated; move it inside the picture") ?? false)
        XCTAssertEqual(loader.warnings(for: try load("      - filter: pixelate\n        region: [0, 0, 1280, 720]\n")), [], "inside")
        XCTAssertEqual(loader.warnings(for: try load("      - filter: pixelate\n")), [], "the default region is the whole frame")
        let scaled = try load("      - element: videoscale\n      - filter: pixelate\n        region: [1200, 600, 200, 200]\n")
        XCTAssertEqual(loader.warnings(for: scaled), [], "after an element the picture's size is not known")
    }

    func testValidSettingsBecomeTypedValues() throws {
        let spec = try load(
            """
                  - filter: pixelate
                    region: [10, 20, 300, 200]
                    block: 12
                    on_error: drop
                  - filter: motion
                    threshold: 0.5
            """)
        let filters = try XCTUnwrap(spec.send?.video?.filters)
        guard case .swift(let name, let settings, let policy) = filters[0].kind else { return XCTFail("\(filters[0])") }
        XCTAssertEqual(name, "pixelate")
        XCTAssertEqual(policy, .drop)
        XCTAssertEqual(settings.first { $0.name == "region" }?.value, .integers([10, 20, 300, 200]))
        XCTAssertEqual(settings.first { $0.name == "block" }?.value, .integer(12))
        XCTAssertEqual(settings.first { $0.name == "region" }?.location?.description, "f.yaml:6:9")
        guard case .swift(_, let motion, let defaultPolicy) = filters[1].kind else { return XCTFail() }
        XCTAssertEqual(motion.first?.value, .number(0.5))
        XCTAssertEqual(defaultPolicy, .pass)
    }

    func testErrorsPointAtTheValue() {
        let cases: [(String, String, String)] = [
            ("      - filter: pixelat\n", "f.yaml:5:17:", "did you mean 'pixelate'"),
            ("      - filter: pixelate\n        blok: 8\n", "f.yaml:6:9:", "did you mean 'block'"),
            ("      - filter: pixelate\n        block: big\n", "f.yaml:6:16:", "block must be an integer"),
            ("      - filter: pixelate\n        block: 1\n", "f.yaml:6:16:", "between 2 and 256"),
            ("      - filter: pixelate\n        region: [1, 2, 3]\n", "f.yaml:6:17:", "list of 4 integers"),
            ("      - filter: pixelate\n        region: [1, x, 3, 4]\n", "f.yaml:6:21:", "'x' is not an integer"),
            ("      - filter: motion\n        threshold: 2\n", "f.yaml:6:20:", "between 0.0 and 1.0"),
            ("      - filter: grayscale\n        on_error: explode\n", "f.yaml:6:19:", "pass, drop, fail"),
            ("      - filter: grayscale\n        level: 3\n", "f.yaml:6:9:", "takes no settings"),
            ("      - filter: grayscale\n        element: videoflip\n", "f.yaml:5:9:", "has both")
        ]
        for (yaml, location, message) in cases {
            let text = diagnostic(yaml)
            XCTAssertTrue(text.contains(location), "\(yaml)→ \(text)")
            XCTAssertTrue(text.contains(message), "\(yaml)→ \(text)")
        }
    }

    func testSwiftSourceSettingsAreChecked() throws {
        let ok = try loader.load(yaml: "send:\n  video:\n    capture: {kind: swift, name: scene, speed: 2, width: 640, height: 360}\n", file: "s.yaml")
        let source = try XCTUnwrap(ok.send?.video?.capture.kind.settings(as: SwiftCapture.Settings.self))
        XCTAssertEqual(source.source, "scene")
        XCTAssertEqual(source.settings.first?.value, .number(2))
        XCTAssertEqual(ok.send?.video?.capture.width, 640)
        for (yaml, expected) in [
            ("send:\n  video:\n    capture: {kind: swift, name: scen}\n", "did you mean 'scene'"),
            ("send:\n  video:\n    capture: {kind: swift}\n", "needs 'name'"),
            ("send:\n  video:\n    capture: {kind: swift, name: scene, speeed: 1}\n", "did you mean 'speed'"),
            ("send:\n  audio:\n    capture: {kind: swift, name: scene}\n", "'scene' is a video source and this is the audio branch")
        ] {
            XCTAssertThrowsError(try loader.load(yaml: yaml, file: "s.yaml")) { error in
                let text = (error as? PipelineFileError)?.description ?? ""
                XCTAssertTrue(text.contains(expected), "\(yaml) → \(text)")
                XCTAssertTrue(text.contains("s.yaml:3:"), "\(yaml) → \(text)")
            }
        }
    }

    func testPluginLoadErrorsAreFileErrors() {
        XCTAssertThrowsError(try loader.load(yaml: "plugins: [/nonexistent/libX.so]\nsend: {video: {capture: {kind: test}}}\n", file: "p.yaml")) { error in
            let text = (error as? PipelineFileError)?.description ?? ""
            XCTAssertTrue(text.contains("p.yaml:1:11: plugin /nonexistent/libX.so: file not found"), text)
        }
    }

    func testDiffSeparatesFilterChangesFromOthers() throws {
        let a = try load("      - filter: grayscale\n")
        let b = try loader.load(yaml: "\n\nsend:\n  video:\n    capture: {kind: test}\n    filters:\n      - filter: invert\n", file: "f.yaml")
        let diff = SpecDiff(from: a, to: b)
        XCTAssertEqual(diff.needsRestart, [], "moving lines is not a change")
        XCTAssertEqual(diff.filterChanges.count, 1)
        XCTAssertEqual(diff.filterChanges.first?.side, .send)
        let c = try loader.load(yaml: "send:\n  video:\n    capture: {kind: test, fps: 15}\n    filters:\n      - filter: grayscale\n", file: "f.yaml")
        XCTAssertEqual(SpecDiff(from: a, to: c).needsRestart, ["send.video"])
        XCTAssertTrue(SpecDiff(from: a, to: c).filterChanges.isEmpty)
    }

    /// Encoded filters whose settings alone changed are set on the running ones; a sender's
    /// other list is swapped in; lines that moved are no change.
    func testDiffSetsNewSettingsOfTheSameEncodedFilters() throws {
        func file(_ encoded: String, blank: String = "") throws -> PipelineSpec {
            try loader.load(
                yaml: "\(blank)send:\n  video:\n    capture: {kind: test}\n    encode: {codec: vp8}\n    encoded_filters:\n\(encoded)",
                file: "e.yaml")
        }
        let one = try file("      - filter: e2ee\n        passphrase: one\n")
        XCTAssertTrue(SpecDiff(from: one, to: try file("      - filter: e2ee\n        passphrase: one\n", blank: "\n\n")).isEmpty)
        let two = SpecDiff(from: one, to: try file("      - filter: e2ee\n        passphrase: two\n        ratchet: 1\n"))
        XCTAssertEqual(two.needsRestart, [])
        XCTAssertEqual(two.encodedSettingsChanges.map(\.side), [.send])
        XCTAssertEqual(two.encodedSettingsChanges.first?.filters.count, 1)
        let other = SpecDiff(from: one, to: try file("      - filter: faults\n"))
        XCTAssertEqual(other.needsRestart, [], "a sender's other list is swapped in while running")
        XCTAssertEqual(other.encodedSettingsChanges, [])
        XCTAssertEqual(other.encodedListChanges.map(\.side), [.send])
        XCTAssertEqual(other.encodedListChanges.first?.filters.count, 1)
    }
}
