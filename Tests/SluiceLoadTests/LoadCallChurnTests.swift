import XCTest
@testable import SluiceLoad
@testable import SluiceMeasure
@testable import SluiceRun
@testable import SluiceTransports

/// Churn for calls: the crowd's schedule, the same in every process, ends the oldest call and
/// starts a new one in a room of its own, with each replacement run where the member it
/// replaces ran.
final class LoadCallChurnTests: XCTestCase {
    private func load(clients: Int, ramp: Double = 10, churn: Double) -> LoadSpec {
        var load = LoadSpec()
        load.clients = clients
        load.rampPerSecond = ramp
        load.churnPerMinute = churn
        return load
    }

    func testTheOldestCallLeavesAndANewCallTakesARoomOfItsOwn() throws {
        // 12 members, 6 calls, all replaced each minute: a call every 10 s once the last
        // member (id 11, at 1.1 s) has started.
        let churn = try XCTUnwrap(LoadCallChurn(load: load(clients: 12, churn: 1)))
        XCTAssertEqual(churn.interval, 10, accuracy: 1e-9)
        XCTAssertEqual(churn.time(of: 0), 11.1, accuracy: 1e-9)
        XCTAssertEqual(churn.time(of: 2), 31.1, accuracy: 1e-9)
        XCTAssertEqual(churn.replacements(at: 0).map(\.leaving), [0, 1], "call 0 first: it started first")
        XCTAssertEqual(churn.replacements(at: 0).map(\.joining), [12, 13])
        let rooms = churn.replacements(at: 0).map { AppRTCLoadAdapter.room(of: $0.joining, in: "calls") }
        XCTAssertEqual(rooms, ["calls-6", "calls-6"], "both replacements meet in a room no call has used")
        // After every original call has been replaced, the first replacement call is the oldest.
        XCTAssertEqual(churn.replacements(at: 6).map(\.leaving), [12, 13])
        XCTAssertEqual(churn.replacements(at: 6).map(\.joining), [24, 25])
    }

    func testNoChurnOrNoCallMeansNoSchedule() {
        XCTAssertNil(LoadCallChurn(load: load(clients: 12, churn: 0)))
        XCTAssertNil(LoadCallChurn(load: load(clients: 1, churn: 0.5)))
    }
}
