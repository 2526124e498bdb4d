import EmbedKinds
import Foundation
import SluiceRun
import XCTest

/// The program's own kinds, through Sluice's public API only (this package cannot see more):
/// files that use them are checked like files that use built-in kinds, and a call between two
/// processes over the Unix-socket transport shows the receiver the colour the sender drew.
final class EmbedKindsTests: XCTestCase {
    override func setUp() { EmbedKinds.register() }

    private func problems(_ yaml: String) -> String {
        do {
            _ = try PipelineLoader(environment: [:]).load(yaml: yaml, file: "embed.yaml")
            return ""
        } catch {
            return error.description
        }
    }

    func testTheKindsAreRegisteredBesideTheBuiltInOnes() {
        XCTAssertTrue(TransportRegistry.all.contains { $0.kind.rawValue == "unix" })
        XCTAssertTrue(TransportRegistry.all.contains { $0.kind.rawValue == "loopback" })
        XCTAssertTrue(CaptureRegistry.all.contains { $0.name == "solid" })
        XCTAssertNoThrow(try PipelineLoader(environment: [:]).load(CallPipeline.sender(socket: "/tmp/x.sock", color: 0xff0000)))
        XCTAssertNoThrow(try PipelineLoader(environment: [:]).load(CallPipeline.receiver(socket: "/tmp/x.sock", frames: "/tmp")))
    }

    func testAMissingSocketIsReportedAtTheTransport() {
        let text = problems(
            """
            version: 1
            transport:
              kind: unix
              role: offer
            send:
              video: { capture: { kind: solid } }
            """)
        XCTAssertTrue(text.contains("embed.yaml:2:1:") || text.contains("embed.yaml:3:"), text)
        XCTAssertTrue(text.contains("transport kind 'unix' needs 'socket'"), text)
    }

    func testAMistakeInCodeIsReportedAtItsSwiftLine() {
        let line = #line + 3
        let code = PipelineCode(
            transport: TransportCode(kind: "unix", settings: [PipelineSetting("socket", "/tmp/x.sock")]),
            send: SendCode(video: SendBranchCode(capture: CaptureCode(kind: "solid", settings: [PipelineSetting("color", "blue")]))))
        XCTAssertThrowsError(try PipelineLoader(environment: [:]).load(code)) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("EmbedKindsTests/EmbedKindsTests.swift:\(line):"), text)
            XCTAssertTrue(text.contains("'color' is a colour as 0xRRGGBB"), text)
        }
    }

    func testAWrongColourAndAWrongRoleArePointedAt() {
        let text = problems(
            """
            version: 1
            transport: { kind: unix, socket: /tmp/x.sock, role: caller }
            send:
              video:
                capture: { kind: solid, color: red }
            """)
        XCTAssertTrue(text.contains("embed.yaml:5:"), text)
        XCTAssertTrue(text.contains("'color' is a colour as 0xRRGGBB"), text)
        XCTAssertTrue(text.contains("caller"), text)
    }

    func testACallBetweenTwoProcessesShowsTheReceiverTheColourSent() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("embed-\(UUID().uuidString)")
        let frames = folder.appendingPathComponent("frames")
        try FileManager.default.createDirectory(at: frames, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let socket = folder.appendingPathComponent("call.sock").path
        let answerer = try EmbedCall(["answer", socket, "6", frames.path])
        let offerer = try EmbedCall(["offer", socket, "6"])
        let answered = try answerer.finish(within: 60)
        let offered = try offerer.finish(within: 60)
        XCTAssertEqual(offered.status, 0, offered.output)
        XCTAssertEqual(answered.status, 0, answered.output)

        let summary = try XCTUnwrap(answered.summary, answered.output)
        let video = try XCTUnwrap(summary.receive.video, answered.output)
        XCTAssertGreaterThan(video.frames, 60, answered.output)
        XCTAssertEqual(summary.session?.role, "answerer")
        XCTAssertEqual(offered.summary?.session?.role, "offerer")

        // The last frame the receiver kept is the sender's 0x2080e0, through VP8 and back.
        let names = try FileManager.default.contentsOfDirectory(atPath: frames.path).sorted()
        let last = try Data(contentsOf: frames.appendingPathComponent(try XCTUnwrap(names.last, "no frame was kept")))
        XCTAssertEqual(last.count, 32 * 24 * 3)
        let mean = (0..<3).map { c in Double(stride(from: c, to: last.count, by: 3).map { Int(last[$0]) }.reduce(0, +)) / Double(32 * 24) }
        for (got, sent) in zip(mean, [0x20, 0x80, 0xe0].map(Double.init)) {
            XCTAssertEqual(got, sent, accuracy: 16, "received \(mean), sent 0x2080e0")
        }
    }
}

/// One `embed-call` process (built beside this test bundle), its output kept.
private final class EmbedCall {
    let process = Process()
    let output: URL
    let ended = DispatchSemaphore(value: 0)

    init(_ arguments: [String]) throws {
        let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let candidates = [directory, directory.deletingLastPathComponent()].map { $0.appendingPathComponent("embed-call") }
        guard let binary = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
            throw XCTSkip("embed-call is not built beside the tests (\(directory.path)): build the package first")
        }
        output = FileManager.default.temporaryDirectory.appendingPathComponent("embed-call-\(UUID().uuidString).log")
        FileManager.default.createFile(atPath: output.path, contents: nil)
        process.executableURL = binary
        process.arguments = arguments
        let handle = try FileHandle(forWritingTo: output)
        process.standardOutput = handle
        process.standardError = handle
        process.terminationHandler = { [ended] _ in ended.signal() }
        try process.run()
    }

    struct Result {
        var status: Int32
        var output: String
        /// The summary JSON the process printed last.
        var summary: RunSummary? {
            output.split(separator: "\n").last.flatMap { try? JSONDecoder().decode(RunSummary.self, from: Data($0.utf8)) }
        }
    }

    /// Waits for the process to end (killed after `seconds`).
    func finish(within seconds: Double) throws -> Result {
        if ended.wait(timeout: .now() + seconds) == .timedOut {
            process.terminate()
            ended.wait()
        }
        let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        try? FileManager.default.removeItem(at: output)
        return Result(status: process.terminationStatus, output: text)
    }
}
