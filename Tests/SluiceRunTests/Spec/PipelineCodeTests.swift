import Foundation
import Logging
import SluiceTestSupport
import XCTest

@testable import SluiceRun

/// `PipelineCode`: a pipeline written in Swift goes through the file's decoder and validator,
/// gives the same graph as the file it mirrors, and its problems point at Swift lines.
final class PipelineCodeTests: XCTestCase {
    /// Pipelines/loopback.yaml, written in Swift.
    private let loopback = PipelineCode(
        name: "loopback",
        transport: .loopback(ice: ICECode(addresses: ["127.0.0.1"], connectTimeout: 10), latency: 50, bundle: "max-bundle"),
        send: SendCode(
            video: SendBranchCode(
                capture: .test(pattern: "smpte", width: 1280, height: 720, fps: 30),
                encode: EncodeCode(codec: .vp8, bitrate: 2000, preset: "realtime")),
            audio: SendBranchCode(capture: .tone(wave: "sine", frequency: 440), encode: EncodeCode(codec: .opus, bitrate: 64))),
        receive: ReceiveCode(video: ReceiveBranchCode(sink: .stats), audio: ReceiveBranchCode(sink: .stats)))

    private func file() throws -> PipelineSpec {
        try PipelineLoader(environment: [:]).load(path: Repository.path("Pipelines/loopback.yaml"))
    }

    /// The graph's text tree as a sorted list of its lines (each with its depth and its links,
    /// in sorted order), numbers left out: which stream reaches the receiver first, and so
    /// the order of its pads and branches, is a race; GStreamer numbers elements per process
    /// (`queue12` → `queue#`; two runs in one process number theirs on) and rtpbin's pads carry
    /// random SSRCs.
    private func tree(_ spec: PipelineSpec) async throws -> [String] {
        let picture = try await PipelineGraph.capture(spec, seconds: 10, logger: Logger(label: "test"))
        XCTAssertTrue(picture.complete, "not every medium flowed")
        let text = picture.tree.replacingOccurrences(of: #"\d+"#, with: "#", options: .regularExpression)
        return text.split(separator: "\n").map { line in
            guard let r = line.range(of: ")  ") else { return String(line) }
            return line[..<r.upperBound] + line[r.upperBound...].components(separatedBy: ", ").sorted().joined(separator: ", ")
        }.sorted()
    }

    func testCodeAndFileGiveTheSameSpecApartFromWhereEachWasWritten() throws {
        let fromCode = try PipelineLoader(environment: [:]).load(loopback)
        let fromFile = try file()
        XCTAssertEqual(fromCode.name, fromFile.name)
        XCTAssertEqual(fromCode.transport.kind, fromFile.transport.kind)
        XCTAssertEqual(fromCode.transport.ice.addresses, fromFile.transport.ice.addresses)
        XCTAssertEqual(fromCode.send?.video?.encode.codec, fromFile.send?.video?.encode.codec)
        XCTAssertEqual(fromCode.send?.video?.encode.bitrateKbps, fromFile.send?.video?.encode.bitrateKbps)
        XCTAssertEqual(fromCode.send?.video?.capture.width, fromFile.send?.video?.capture.width)
        XCTAssertEqual(fromCode.receive?.audio?.sink.kind, fromFile.receive?.audio?.sink.kind)
        XCTAssertEqual(fromCode.send?.video?.capture.location?.file, #fileID)
    }

    func testCodeAndFileGiveTheSameGraph() async throws {
        let fromFile = try await tree(try file())
        let fromCode = try await tree(try PipelineLoader(environment: [:]).load(loopback))
        XCTAssertGreaterThan(fromFile.count, 20, fromFile.joined(separator: "\n"))
        XCTAssertTrue(fromFile.contains { $0.contains("(vp#enc)") }, fromFile.joined(separator: "\n"))
        let onlyCode = fromCode.filter { !fromFile.contains($0) }, onlyFile = fromFile.filter { !fromCode.contains($0) }
        XCTAssertEqual(fromCode, fromFile, "only from code:\n\(onlyCode.joined(separator: "\n"))\nonly from the file:\n\(onlyFile.joined(separator: "\n"))")
    }

    func testAProblemPointsAtTheSwiftLineWithTheFilesSuggestion() {
        let line = #line + 3
        let code = PipelineCode(
            transport: .loopback(),
            send: SendCode(video: SendBranchCode(capture: CaptureCode(kind: "tset"))))
        XCTAssertThrowsError(try PipelineLoader(environment: [:]).load(code)) { error in
            let text = (error as? PipelineFileError)?.description ?? "\(error)"
            XCTAssertTrue(text.contains("\(#fileID):\(line):"), text)
            XCTAssertTrue(text.contains("'test'"), text)
        }
    }

    func testAKindsOwnKeysAreCheckedAsInAFile() {
        let code = PipelineCode(
            transport: .loopback(),
            send: SendCode(video: SendBranchCode(capture: CaptureCode(kind: "test", settings: [PipelineSetting("patern", "ball")]))))
        XCTAssertThrowsError(try PipelineLoader(environment: [:]).load(code)) { error in
            let text = (error as? PipelineFileError)?.description ?? "\(error)"
            XCTAssertTrue(text.contains("'patern'") && text.contains("'pattern'"), text)
        }
    }
}
