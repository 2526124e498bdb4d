import SluiceSignalling
import XCTest

final class SDPRewriteTests: XCTestCase {
    private let answer = [
        "v=0", "o=- 1 0 IN IP4 0.0.0.0", "s=-", "t=0 0", "a=group:BUNDLE video0 audio1",
        "m=video 9 UDP/TLS/RTP/SAVPF 96", "c=IN IP4 0.0.0.0", "a=mid:video0", "a=sendonly", "a=rtpmap:96 VP8/90000",
        "a=candidate:1 1 UDP 2015363327 127.0.0.1 40000 typ host",
        "m=audio 9 UDP/TLS/RTP/SAVPF 96", "c=IN IP4 0.0.0.0", "a=mid:audio1", "a=inactive", "a=rtpmap:96 OPUS/48000/2",
        "a=candidate:1 1 UDP 2015363327 127.0.0.1 40000 typ host", ""
    ].joined(separator: "\r\n")

    func testInactiveSectionIsRejectedAndLeavesTheBundle() {
        let out = SDPRewrite.rejectingInactive(answer)
        let lines = out.components(separatedBy: "\r\n")
        XCTAssertTrue(lines.contains("a=group:BUNDLE video0"), out)
        XCTAssertTrue(lines.contains("m=audio 0 UDP/TLS/RTP/SAVPF 96"), out)
        XCTAssertTrue(lines.contains("m=video 9 UDP/TLS/RTP/SAVPF 96"), "the sending section is untouched")
        XCTAssertEqual(lines.filter { $0.hasPrefix("a=candidate:") }.count, 1, "candidates stay with the bundle's transport")
        XCTAssertEqual(SDPSummary(out).media.map(\.rejected), [false, true])
        XCTAssertTrue(out.hasSuffix("\r\n"), "the final line ending is kept")
    }

    func testTheBundleTagIsNeverRejected() {
        // Audio first and inactive (a camera-API-shaped offer to a video-only stream).
        let first = answer.replacingOccurrences(of: "a=group:BUNDLE video0 audio1", with: "a=group:BUNDLE audio1 video0")
        XCTAssertEqual(SDPRewrite.rejectingInactive(first), first)
    }

    func testNothingInactiveMeansNoChange() {
        let active = answer.replacingOccurrences(of: "a=inactive", with: "a=sendonly")
        XCTAssertEqual(SDPRewrite.rejectingInactive(active), active)
        XCTAssertEqual(SDPRewrite.rejectingInactive("not sdp"), "not sdp")
    }
}
