import Foundation
import SluiceRun
import SluiceTransports
import XCTest

/// A fixed element catalog for tests: every element Debian ships (`KnownElements`) is
/// installed except `missing`, plus `extra`; a few elements have known properties.
package struct SpecFakeCatalog: ElementCatalog {
    package var missing: Set<String> = []
    package var extra: Set<String> = []

    package init(missing: Set<String> = [], extra: Set<String> = []) {
        self.missing = missing; self.extra = extra
    }

    /// factory → property → allowed values (nil: any value).
    package static let properties: [String: [String: [String]?]] = [
        "videoflip": [
            "method": [
                "none", "clockwise", "rotate-180", "counterclockwise", "horizontal-flip",
                "vertical-flip", "upper-left-diagonal", "upper-right-diagonal", "automatic"
            ],
            "video-direction": nil
        ],
        "videobalance": ["saturation": nil, "brightness": nil, "contrast": nil, "hue": nil],
        "x264enc": ["tune": ["zerolatency", "fastdecode", "stillimage"], "speed-preset": nil, "bitrate": nil],
        "vp8enc": ["deadline": nil, "cpu-used": nil, "target-bitrate": nil],
        "avdec_h264": ["max-threads": nil]
    ]

    package func isInstalled(_ factory: String) -> Bool {
        (KnownElements.provider(of: factory) != nil || extra.contains(factory)) && !missing.contains(factory)
    }

    package func installedFactories() -> [String] {
        KnownElements.allNames.filter { isInstalled($0) } + extra.sorted()
    }

    package func propertyNames(of factory: String) -> [String]? {
        guard isInstalled(factory) else { return nil }
        return ["name"] + (Self.properties[factory] ?? [:]).keys.sorted()
    }

    package func checkProperty(factory: String, property: String, value: String) -> String? {
        guard let allowed = Self.properties[factory]?[property] ?? nil else { return nil }
        return allowed.contains(value) ? nil : "expected one of \(allowed.joined(separator: ", "))"
    }

    package func checkFragment(_ fragment: String) -> String? {
        for part in fragment.split(separator: "!", omittingEmptySubsequences: false) {
            let words = part.split(separator: " ")
            guard let first = words.first else { return "syntax error" }
            if first.contains("/") { continue } // caps
            if !isInstalled(String(first)) { return "no element \"\(first)\"" }
        }
        return nil
    }
}

/// Loads `yaml` as `test.yaml` (by default) with a fixed environment.
package func specLoad(
    _ yaml: String, file: String = "test.yaml", overrides: [String] = [],
    environment: [String: String] = [:],
    catalog: (any ElementCatalog)? = nil
) -> Result<PipelineSpec, PipelineFileError> {
    SluiceTransports.registerBuiltIns()
    let loader = PipelineLoader(environment: environment, catalog: catalog)
    do {
        return .success(try loader.load(yaml: yaml, file: file, overrides: overrides))
    } catch {
        return .failure(error)
    }
}

/// The spec, or a test failure listing the diagnostics.
package func specLoadValid(
    _ yaml: String, file: String = "test.yaml", overrides: [String] = [],
    environment: [String: String] = [:], catalog: (any ElementCatalog)? = nil,
    line: UInt = #line
) -> PipelineSpec? {
    switch specLoad(yaml, file: file, overrides: overrides, environment: environment, catalog: catalog) {
    case .success(let spec):
        return spec
    case .failure(let error):
        XCTFail("expected a valid file, got:\n\(error)", line: line)
        return nil
    }
}

/// The diagnostics, or a test failure if the file loaded.
package func specLoadErrors(
    _ yaml: String, file: String = "test.yaml", overrides: [String] = [],
    environment: [String: String] = [:], catalog: (any ElementCatalog)? = nil,
    line: UInt = #line
) -> PipelineFileError? {
    switch specLoad(yaml, file: file, overrides: overrides, environment: environment, catalog: catalog) {
    case .success:
        XCTFail("expected an error", line: line)
        return nil
    case .failure(let error):
        return error
    }
}

package func specLoc(_ line: Int, _ column: Int, _ file: String = "test.yaml") -> SourceLocation {
    SourceLocation(file: file, line: line, column: column)
}

/// Fails unless `yaml` is refused with exactly one diagnostic, at `line`:`column` of
/// test.yaml, whose message contains `message`.
package func specExpectError(
    _ yaml: String, at line: Int, _ column: Int, _ message: String, file: StaticString = #filePath, testLine: UInt = #line
) {
    guard let error = specLoadErrors(yaml, line: testLine) else { return }
    XCTAssertEqual(error.diagnostics.count, 1, "\(error)", file: file, line: testLine)
    guard let d = error.diagnostics.first else { return }
    XCTAssertEqual(d.location, specLoc(line, column), "\(error)", file: file, line: testLine)
    XCTAssertTrue(d.message.contains(message), "'\(d.message)' should contain '\(message)'", file: file, line: testLine)
}
