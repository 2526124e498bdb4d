import SluiceServer
import XCTest

/// What a request asks (`AccessRequest.forPath`) and what a `sluice_permissions` entry grants.
final class AccessRequestTests: XCTestCase {
    func testEachRouteAsksItsActionOnItsName() {
        let cases: [(String, AccessRequest)] = [
            ("/whep/cam-1", .init(.read, "cam-1")),
            ("/whep/cam-1/a.5f3e", .init(.read, "cam-1")),
            ("/whip/in", .init(.publish, "in")),
            ("/whip/in/42", .init(.publish, "in")),
            ("/pipelines/cam-1/graph.svg", .init(.read, "cam-1")),
            ("/metrics", .init(.metrics)),
            ("/api/v1/pipelines", .init(.api)),
            ("/api/v1/pipelines/cam-1/events", .init(.api, "cam-1")),
            ("/streams.json", .init(.read)),
            ("/enterprises/p/devices/d:executeCommand", .init(.read))
        ]
        for (path, want) in cases { XCTAssertEqual(AccessRequest.forPath(path), want, path) }
    }

    func testPatternsMatchWithStarsOnly() {
        let read = { (pattern: String?) in Permission(action: "read", path: pattern) }
        XCTAssertTrue(read("cam-*").allows(.init(.read, "cam-1")))
        XCTAssertTrue(read("cam-*").allows(.init(.read, "cam-")))
        XCTAssertFalse(read("cam-*").allows(.init(.read, "xcam-1")))
        XCTAssertTrue(read("*-hd").allows(.init(.read, "cam-1-hd")))
        XCTAssertTrue(read("a*b*c").allows(.init(.read, "aXXbYYc")))
        XCTAssertFalse(read("a*b*c").allows(.init(.read, "aXXcYYb")))
        XCTAssertFalse(read("cam-1").allows(.init(.read, "cam-10")), "no pattern characters but '*'")
        XCTAssertFalse(read("cam-?").allows(.init(.read, "cam-1")), "'?' is a plain character")
        XCTAssertTrue(read(nil).allows(.init(.read, "anything")))
        XCTAssertTrue(read("other").allows(.init(.read)), "a list: any permission for the action")
        XCTAssertFalse(read("*").allows(.init(.publish, "cam-1")), "another action")
        XCTAssertFalse(Permission(action: "admin").allows(.init(.api)), "an unknown action grants nothing")
    }

    /// A hostile pattern (many stars against a long name that does not match) ends quickly:
    /// the matcher backtracks to the last star only.
    func testAHostilePatternDoesNotBlowUp() {
        let pattern = String(repeating: "*a", count: 2000) + "b"
        let name = String(repeating: "a", count: 4000)
        let start = Date()
        XCTAssertFalse(Permission(action: "read", path: pattern).allows(.init(.read, name)))
        XCTAssertLessThan(Date().timeIntervalSince(start), 5, "the match should be quadratic at worst")
    }
}
