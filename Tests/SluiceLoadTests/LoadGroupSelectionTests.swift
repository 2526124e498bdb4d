import Foundation
import XCTest

@testable import SluiceLoad
@testable import SluiceMeasure
@testable import SluiceRun

/// Which clients each process of a crowd with netem groups runs, and the ids churn gives
/// their replacements: every client in exactly one process, no replacement id twice.
final class LoadGroupSelectionTests: XCTestCase {
    private func crowd() -> LoadSpec {
        var load = LoadSpec()
        load.clients = 20
        load.churnPerMinute = 0.5
        load.groups = [
            LoadGroup(name: "home", share: 0.5),
            LoadGroup(name: "mobile", share: 0.25, netem: "delay 60ms loss 2%"),
            LoadGroup(name: "far", share: 0.25, netem: "delay 150ms")
        ]
        return load
    }

    func testEveryClientRunsInExactlyOneProcess() {
        let load = crowd()
        XCTAssertEqual(load.netemGroups.map(\.name), ["mobile", "far"])
        let here = (0..<20).filter { LoadRun.GroupSelection.withoutNetem.contains($0, of: load) }
        let mobile = (0..<20).filter { LoadRun.GroupSelection.netemGroup(1).contains($0, of: load) }
        let far = (0..<20).filter { LoadRun.GroupSelection.netemGroup(2).contains($0, of: load) }
        XCTAssertEqual(here, Array(0..<10))
        XCTAssertEqual(mobile, Array(10..<15))
        XCTAssertEqual(far, Array(15..<20))
        XCTAssertEqual((0..<20).filter { LoadRun.GroupSelection.all.contains($0, of: load) }.count, 20)
        XCTAssertTrue((0..<20).filter { LoadRun.GroupSelection.netemGroup(3).contains($0, of: load) }.isEmpty, "no third netem group")
    }

    /// Two shards of three processes each: the six processes' replacement ids never meet.
    func testChurnReplacementsNeverShareAnIdAcrossShardsAndGroups() throws {
        let load = crowd()
        var seen = Set<Int>()
        for shard in [LoadRun.Shard(index: 0, count: 2), LoadRun.Shard(index: 1, count: 2)] {
            for here in [LoadRun.GroupSelection.withoutNetem, .netemGroup(1), .netemGroup(2)] {
                let churn = try XCTUnwrap(LoadChurn(load: load, shard: shard, lane: here.lane(of: load), clientsHere: 5))
                for k in 0..<50 {
                    let id = churn.firstID + k * churn.idStep
                    XCTAssertGreaterThanOrEqual(id, load.clients)
                    XCTAssertTrue(seen.insert(id).inserted, "id \(id) given twice (\(shard), \(here))")
                }
            }
        }
    }
}
