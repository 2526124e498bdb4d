import Foundation
import SluiceFilterKit
import XCTest

/// The one Swift block of docs/filters.md is `DocsVignette.swift`, word for word, so the
/// compiler checks it against SluiceFilterKit with the rest of these tests.
final class DocsVignetteTests: XCTestCase {
    /// The package root (…/Tests/SluiceFilterKitTests/DocsVignetteTests.swift → …).
    private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    func testTheDocsSwiftBlockIsTheCompiledFile() throws {
        let doc = try String(contentsOf: root.appendingPathComponent("docs/filters.md"), encoding: .utf8)
        let blocks = doc.components(separatedBy: "```swift\n").dropFirst().map { $0.components(separatedBy: "```")[0] }
        XCTAssertEqual(blocks.count, 1, "docs/filters.md has one swift block; a second needs its own compiled file")
        let file = try String(contentsOf: root.appendingPathComponent("Tests/SluiceFilterKitTests/DocsVignette.swift"), encoding: .utf8)
        XCTAssertEqual(blocks.first, file, "edit both: docs/filters.md's swift block and Tests/SluiceFilterKitTests/DocsVignette.swift")
    }

    func testTheExampleDescribesItselfAndTakesItsDefault() throws {
        XCTAssertEqual(Vignette.name, "vignette")
        XCTAssertEqual(Vignette.formats, [.i420])
        let filter = try Vignette(configuration: FilterConfiguration([:], parameters: Vignette.parameters))
        XCTAssertEqual(filter.strength, 0.5)
        XCTAssertThrowsError(
            try Vignette(configuration: FilterConfiguration(["strength": .number(2)], parameters: Vignette.parameters)),
            "out of its range")
    }
}
