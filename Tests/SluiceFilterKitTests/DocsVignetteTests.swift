import Foundation
import SluiceFilterKit
import XCTest

/// The Swift blocks of docs/filters.md are `DocsVignette.swift` and `DocsBalance.swift`, word
/// for word, so the compiler checks them against SluiceFilterKit with the rest of these tests.
final class DocsVignetteTests: XCTestCase {
    /// The package root (…/Tests/SluiceFilterKitTests/DocsVignetteTests.swift → …).
    private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    func testTheDocsSwiftBlockIsTheCompiledFile() throws {
        let doc = try String(contentsOf: root.appendingPathComponent("docs/filters.md"), encoding: .utf8)
        let blocks = doc.components(separatedBy: "```swift\n").dropFirst().map { $0.components(separatedBy: "```")[0] }
        let files = ["DocsVignette.swift", "DocsBalance.swift", "DocsTrailer.swift"]
        XCTAssertEqual(blocks.count, files.count, "docs/filters.md has \(files.count) swift blocks; another needs its own compiled file")
        for (block, name) in zip(blocks, files) {
            let file = try String(contentsOf: root.appendingPathComponent("Tests/SluiceFilterKitTests/" + name), encoding: .utf8)
            XCTAssertEqual(block, file, "edit both: docs/filters.md's swift block and Tests/SluiceFilterKitTests/\(name)")
        }
    }

    func testTheEncodedExampleAppendsItsTrailerOnSendOnly() throws {
        let trailer = try Trailer(configuration: FilterConfiguration([:], parameters: Trailer.parameters))
        let frame: [UInt8] = [1, 2, 3]
        let sent = try frame.withUnsafeBytes {
            try trailer.process(EncodedFrame(codec: .vp8, direction: .send, isKeyframe: true, bytes: $0), context: .discarding)
        }
        XCTAssertEqual(sent, .replace([1, 2, 3, 0x53, 0x4C, 0x43, 0x45]))
        let received = try frame.withUnsafeBytes {
            try trailer.process(EncodedFrame(codec: .vp8, direction: .receive, isKeyframe: true, bytes: $0), context: .discarding)
        }
        XCTAssertEqual(received, .keep)
        XCTAssertEqual(Trailer.codecs, [.vp8, .h264, .opus])
    }

    func testTheAudioExampleMovesSoundToOneSide() throws {
        let right = try Balance(configuration: FilterConfiguration(["position": .number(1)], parameters: Balance.parameters))
        var samples: [Float] = [0.5, 0.5, -0.25, -0.25]
        _ = try AudioBlock.withSamples(&samples, rate: 48_000, channels: 2) { try right.process($0, context: .discarding) }
        XCTAssertEqual(samples, [0, 0.5, 0, -0.25])
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
