import Foundation
import SluiceLoad
import SluiceRun
import SluiceTransports
import XCTest

/// A load group's own `transport:` keys: the file's transport with them in place, decoded as
/// a whole (a Janus substream per group, a WHEP endpoint per group), each mistake at its
/// FILE:LINE:COL; the clients of the group run with it.
final class LoadGroupTransportTests: XCTestCase {
    override func setUp() { SluiceTransports.registerBuiltIns() }

    private func load(_ yaml: String) throws -> PipelineSpec {
        try PipelineLoader(environment: [:]).load(yaml: yaml, file: "a.yaml")
    }

    private func error(_ yaml: String, line: UInt = #line) -> String { refusal(line: line) { try load(yaml) } }

    private static let janus = """
        transport: {kind: janus, server: "ws://127.0.0.1:8188", room: 1234, subscribe: [sc]}
        receive:
          video: {sink: stats}
        load:
          clients: 4
          groups:
            - {name: plain, share: 50%}

        """

    func testAGroupsTransportKeysReplaceTheFilesAndKeepTheRest() throws {
        let spec = try load(Self.janus + "    - {name: small, share: 50%, transport: {substream: 0}}\n")
        let groups = try XCTUnwrap(spec.load?.groups)
        XCTAssertNil(groups[0].transport, "a group without keys of its own runs the file's transport")
        let small = try XCTUnwrap(groups[1].transport?.settings(as: JanusSpec.self))
        XCTAssertEqual(small.substream, 0)
        XCTAssertEqual(small.room, "1234", "the file's other keys stay")
        XCTAssertEqual(small.subscribe, ["sc"])
        XCTAssertNil(spec.transport.settings(as: JanusSpec.self)?.substream, "the file's own transport is unchanged")
    }

    func testEachClientRunsItsGroupsTransport() throws {
        let spec = try load(Self.janus + "    - {name: small, share: 50%, transport: {substream: 0}}\n")
        let run = try LoadRun(spec: spec, load: try XCTUnwrap(spec.load))
        XCTAssertNil(run.spec(forClient: 0).transport.settings(as: JanusSpec.self)?.substream)
        XCTAssertEqual(run.spec(forClient: 3).transport.settings(as: JanusSpec.self)?.substream, 0)
    }

    func testMistakesAreReportedWhereTheyAre() {
        let range = error(Self.janus + "    - {name: big, share: 50%, transport: {substream: 5}}\n")
        XCTAssertTrue(range.hasPrefix("a.yaml:8:54: 'substream' must be between 0 and 2"), range)
        XCTAssertEqual(range.components(separatedBy: "a.yaml:").count - 1, 1, "said once: \(range)")
        let kind = error(Self.janus + "    - {name: w, share: 50%, transport: {kind: whep}}\n")
        XCTAssertTrue(kind.hasPrefix("a.yaml:8:41: a load group keeps the file's transport kind"), kind)
        let unknown = error(Self.janus + "    - {name: w, share: 50%, transport: {substrem: 1}}\n")
        XCTAssertTrue(unknown.hasPrefix("a.yaml:8:41:") && unknown.contains("substrem"), unknown)
        let notMap = error(Self.janus + "    - {name: w, share: 50%, transport: 1}\n")
        XCTAssertTrue(notMap.hasPrefix("a.yaml:8:"), notMap)
    }
}
