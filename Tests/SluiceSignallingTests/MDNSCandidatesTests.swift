import SluiceSignalling
import XCTest

/// `.local` candidates: found in candidate lines and SDPs, replaced by an address; a name
/// nobody answers gives nil within the timeout, not a hang.
final class MDNSCandidatesTests: XCTestCase {
    /// Chromium's form (a UUID name, with `a=` in SDPs, without in trickled JSON).
    static let chromium = "candidate:2475478563 1 udp 2113937151 4a8f1c2e-5b6d-4e7f-9a0b-1c2d3e4f5a6b.local 54219 typ host generation 0 network-cost 999"

    func testFindsAndReplacesTheName() {
        XCTAssertEqual(MDNSCandidates.host(of: Self.chromium), "4a8f1c2e-5b6d-4e7f-9a0b-1c2d3e4f5a6b.local")
        XCTAssertEqual(MDNSCandidates.host(of: "a=" + Self.chromium), "4a8f1c2e-5b6d-4e7f-9a0b-1c2d3e4f5a6b.local")
        XCTAssertNil(MDNSCandidates.host(of: "candidate:1 1 udp 2113937151 192.168.1.7 54219 typ host"))
        XCTAssertNil(MDNSCandidates.host(of: "candidate:1 1 udp"), "too short")
        XCTAssertNil(MDNSCandidates.host(of: "not a candidate at all x.local 1 typ host"))
        XCTAssertEqual(
            MDNSCandidates.replacing(host: "4a8f1c2e-5b6d-4e7f-9a0b-1c2d3e4f5a6b.local", with: "10.0.0.9", in: Self.chromium),
            "candidate:2475478563 1 udp 2113937151 10.0.0.9 54219 typ host generation 0 network-cost 999")
    }

    func testSeparatesLocalCandidatesFromAnSDPKeepingTheRest() {
        let sdp = [
            "v=0", "o=- 1 2 IN IP4 127.0.0.1", "s=-", "t=0 0", "a=group:BUNDLE 0 1",
            "m=video 9 UDP/TLS/RTP/SAVPF 96", "a=mid:0", "a=" + Self.chromium,
            "a=candidate:1 1 udp 1 10.0.0.5 4000 typ host",
            "m=audio 9 UDP/TLS/RTP/SAVPF 111", "a=mid:1", "a=candidate:9 1 udp 1 other-name.local 4001 typ host", ""
        ].joined(separator: "\r\n")
        let (kept, found) = MDNSCandidates.separating(sdp)
        XCTAssertEqual(found.map(\.mlineIndex), [0, 1])
        XCTAssertEqual(found.map(\.host), ["4a8f1c2e-5b6d-4e7f-9a0b-1c2d3e4f5a6b.local", "other-name.local"])
        XCTAssertFalse(kept.contains(".local"))
        XCTAssertTrue(kept.contains("a=candidate:1 1 udp 1 10.0.0.5 4000 typ host"))
        XCTAssertTrue(kept.hasSuffix("\r\n"), "line ends kept")
        XCTAssertEqual(MDNSCandidates.separating("v=0\r\nm=video 9 X 96\r\n").sdp, "v=0\r\nm=video 9 X 96\r\n", "nothing to take: unchanged")
    }

    func testANameNobodyAnswersGivesNilWithinTheTimeout() async {
        let start = ContinuousClock.now
        let address = await MDNSResolver().resolve("nobody-\(UInt32.random(in: 0...UInt32.max)).local", timeout: .milliseconds(600))
        XCTAssertNil(address)
        XCTAssertLessThan(ContinuousClock.now - start, .seconds(3))
        let notLocal = await MDNSResolver().resolve("example.com")
        XCTAssertNil(notLocal, "only .local names are asked on the LAN")
    }
}
