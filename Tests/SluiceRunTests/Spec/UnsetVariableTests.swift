import XCTest
@testable import SluiceRun
import SluiceTransports

/// `sluice validate` checks a file that may run elsewhere: an unset `${VAR}` is a warning there,
/// and stays an error when the file is loaded to run.
final class UnsetVariableTests: XCTestCase {
    override func setUp() { SluiceTransports.registerBuiltIns() }

    private let yaml = """
        transport:
          kind: xmpp
          jid: camera@localhost/sluice
          password: ${SLUICE_TEST_UNSET_PASSWORD}
        send:
          video: { capture: { kind: test } }
        """

    private func write() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("unset-\(UUID().uuidString).yaml").path
        try yaml.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func testCheckingWarnsAtTheVariable() throws {
        let path = try write()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let warnings = try PipelineLoader(environment: [:]).check(path: path)
        XCTAssertEqual(
            warnings.map(\.description),
            ["\(path):4:13: warning: environment variable 'SLUICE_TEST_UNSET_PASSWORD' is not set; set it before running this file"])
    }

    func testLoadingToRunStillFails() throws {
        let path = try write()
        defer { try? FileManager.default.removeItem(atPath: path) }
        XCTAssertThrowsError(try PipelineLoader(environment: [:]).load(path: path)) { error in
            XCTAssertTrue("\(error)".contains(":4:13: environment variable 'SLUICE_TEST_UNSET_PASSWORD' is not set"), "\(error)")
        }
        let set = try PipelineLoader(environment: ["SLUICE_TEST_UNSET_PASSWORD": "pw"]).load(path: path)
        XCTAssertEqual(set.transport.settings(as: XMPPSpec.self)?.password, "pw")
        XCTAssertEqual(try PipelineLoader(environment: ["SLUICE_TEST_UNSET_PASSWORD": "pw"]).check(path: path), [])
    }

    func testOtherProblemsAreStillErrors() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("unset-\(UUID().uuidString).yaml").path
        try (yaml + "\n  bogus: 1\n").replacingOccurrences(
            of: "send:\n  video: { capture: { kind: test } }\n  bogus: 1",
            with: "send:\n  video: { capture: { kind: tset } }"
        )
        .write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        XCTAssertThrowsError(try PipelineLoader(environment: [:]).check(path: path)) { error in
            XCTAssertTrue("\(error)".contains("unknown capture kind 'tset'"), "\(error)")
        }
    }
}
