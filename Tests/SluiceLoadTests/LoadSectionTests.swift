import Foundation
import SluiceLoad
import SluiceRun
import SluiceRunTestSupport
import XCTest

/// The `load:` section: a valid crowd, its defaults, the groups' split of the crowd, and
/// each bad value with its FILE:LINE:COL error.
final class LoadSectionTests: XCTestCase {
    private func file(_ load: String) -> String {
        """
        transport: {kind: whep, endpoint: "http://127.0.0.1:8443/whep/x"}
        receive:
          video: {sink: stats}
        load:
        \(load)
        """
    }

    private func expect(_ yaml: String, at line: Int, _ column: Int, _ message: String, testLine: UInt = #line) {
        specExpectError(yaml, at: line, column, message, testLine: testLine)
    }

    func testACrowdLoadsWithItsGroups() throws {
        let spec = try XCTUnwrap(
            specLoadValid(
                file(
                    """
                      clients: 200
                      ramp: 20/s
                      duration: 90s
                      decode: some
                      churn: 10%
                      groups:
                        - {share: 80%}
                        - {name: slow, share: 0.2, netem: "rate 800kbit delay 60ms loss 2%"}
                    """)))
        let load = try XCTUnwrap(spec.load)
        XCTAssertEqual(load.clients, 200)
        XCTAssertEqual(load.rampPerSecond, 20)
        XCTAssertEqual(load.durationSeconds, 90)
        XCTAssertEqual(load.decode, .some)
        XCTAssertEqual(load.churnPerMinute, 0.1, accuracy: 1e-9)
        XCTAssertEqual(load.groups.map(\.name), ["g1", "slow"])
        XCTAssertEqual(load.groups.map(\.netem), [nil, "rate 800kbit delay 60ms loss 2%"])
        XCTAssertEqual(load.netemGroups.map(\.name), ["slow"])
        XCTAssertEqual(load.location, specLoc(4, 1))
        // The groups take consecutive runs of the crowd by their shares: 160 and 40.
        let split = (0..<200).map { load.group(ofClient: $0)?.name ?? "" }
        XCTAssertEqual(split.filter { $0 == "g1" }.count, 160)
        XCTAssertEqual(split.filter { $0 == "slow" }.count, 40)
        XCTAssertEqual(split.last, "slow")
        // `some`: every tenth client decodes.
        XCTAssertEqual((0..<30).filter { load.decode.decodes(client: $0) }, [0, 10, 20])
    }

    func testAFileWithoutTheSectionHasNone() throws {
        let spec = try XCTUnwrap(specLoadValid(file("  {}").replacingOccurrences(of: "load:\n  {}", with: "")))
        XCTAssertNil(spec.load)
        let empty = try XCTUnwrap(specLoadValid(file("  {}")))
        XCTAssertEqual(empty.load?.clients, LoadSpec().clients, "an empty section keeps the defaults")
    }

    func testBadValuesGiveFileLineColumnErrors() {
        expect(file("  clients: 0"), at: 5, 12, "'clients' must be between 1 and 100000")
        expect(file("  ramp: fast"), at: 5, 9, "invalid ramp 'fast'")
        expect(file("  ramp: 0/s"), at: 5, 9, "more than 0")
        expect(file("  duration: -3"), at: 5, 13, "invalid duration")
        expect(file("  decode: half"), at: 5, 11, "unknown decode choice 'half'")
        expect(file("  clientz: 3"), at: 5, 3, "did you mean 'clients'")
        expect(file("  churn: 150%"), at: 5, 10, "between 0% and 100%")
        expect(file("  groups:\n    - {share: 50%}\n    - {share: 40%}"), at: 5, 3, "add up to 90%")
        expect(file("  groups:\n    - {name: a}"), at: 6, 7, "needs a share")
        expect(file("  groups:\n    - {share: 100%, netem: \"delay soon\"}"), at: 6, 28, "'delay' needs a time")
        let many = (0..<255).map { "    - {name: n\($0), share: \(1.0 / 255), netem: \"delay 1ms\"}" }.joined(separator: "\n")
        expect(file("  groups:\n" + many), at: 5, 3, "at most 254 load groups may have netem")
    }

    func testRampAndShardWordsFromTheCommandLine() {
        XCTAssertEqual(LoadSpec.ramp(from: "20/s"), 20)
        XCTAssertEqual(LoadSpec.ramp(from: "2.5"), 2.5)
        XCTAssertNil(LoadSpec.ramp(from: "0"))
        XCTAssertNil(LoadSpec.ramp(from: "20/min"))
        XCTAssertEqual(LoadRun.Shard("2/3"), LoadRun.Shard(index: 1, count: 3))
        XCTAssertNil(LoadRun.Shard("0/3"))
        XCTAssertNil(LoadRun.Shard("4/3"))
        XCTAssertNil(LoadRun.Shard("x"))
        let shard = LoadRun.Shard(index: 1, count: 3)
        XCTAssertEqual((0..<9).filter(shard.contains), [1, 4, 7])
    }
}
