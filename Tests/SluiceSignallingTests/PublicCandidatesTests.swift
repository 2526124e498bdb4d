import SluiceSignalling
import XCTest

/// 1:1 NAT candidates: each host candidate again with the public address.
final class PublicCandidatesTests: XCTestCase {
    func testAHostCandidateIsCopiedWithEachPublicAddress() {
        let host = "candidate:1 1 UDP 2015363327 10.0.2.2 40001 typ host"
        XCTAssertEqual(
            PublicCandidates.copies(of: host, announcing: ["100.64.0.1", "2001:db8::1"]),
            [
                "candidate:1p1 1 UDP 2015363326 100.64.0.1 40001 typ host",
                "candidate:1p2 1 UDP 2015363325 2001:db8::1 40001 typ host"
            ])
        // TCP candidates keep their tcptype, `a=` lines keep their prefix.
        XCTAssertEqual(
            PublicCandidates.copies(of: "a=candidate:3 1 TCP 1015023615 10.0.2.2 9 typ host tcptype active", announcing: ["100.64.0.1"]),
            ["a=candidate:3p1 1 TCP 1015023614 100.64.0.1 9 typ host tcptype active"])
    }

    func testOtherCandidatesAndBrokenLinesGetNoCopies() {
        let srflx = "candidate:2 1 UDP 1677721855 100.64.0.1 40001 typ srflx raddr 10.0.2.2 rport 40001"
        XCTAssertEqual(PublicCandidates.copies(of: srflx, announcing: ["100.64.0.1"]), [])
        XCTAssertEqual(PublicCandidates.copies(of: "candidate:1 1 UDP 2015363327 100.64.0.1 40001 typ host", announcing: ["100.64.0.1"]), [], "already public")
        for broken in ["", "candidate:", "candidate:1 1 UDP x 10.0.2.2 1 typ host", "candidate:1 1 UDP 0 10.0.2.2 1 typ host", "hello world"] {
            XCTAssertEqual(PublicCandidates.copies(of: broken, announcing: ["100.64.0.1"]), [], broken)
        }
    }
}
