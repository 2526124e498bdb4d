import SluiceServer
import SluiceSignalling
import XCTest

/// `--instance`: the replica's name in session URLs, and a request for another replica's
/// session answered 421 with the owner's name.
final class ReplicaRouteTests: XCTestCase {
    func testSessionURLsCarryTheReplicaAndOthersAreMisdirected() throws {
        let route = try ReplicaRoute(instance: "sluice-0")
        XCTAssertEqual(route.external("ab12"), "sluice-0.ab12")
        XCTAssertEqual(try route.session("sluice-0.ab12").get(), "ab12")
        guard case .failure(let e) = route.session("sluice-1.ab12") else { return XCTFail("another replica's session") }
        XCTAssertEqual(e.status, 421)
        XCTAssertTrue(e.message.contains("'sluice-1'"), e.message)
        XCTAssertEqual(ReplicaRoute.single.external("ab12"), "ab12")
        XCTAssertEqual(try ReplicaRoute.single.session("ab12").get(), "ab12")
    }

    func testNamesAProxyCannotCarryAreRefused() {
        for bad in ["", "Sluice", "a.b", "-x", String(repeating: "a", count: 33), "a/b"] {
            XCTAssertThrowsError(try ReplicaRoute(instance: bad), bad)
        }
        XCTAssertNoThrow(try ReplicaRoute(instance: "sluice-12"))
    }
}
