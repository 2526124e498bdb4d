import SluiceSignalling
import XCTest

final class SimulcastOfferTests: XCTestCase {
    /// Chromium's shape: audio first, then video with three rids listed low to high.
    static let chromium = [
        "v=0", "o=- 1 2 IN IP4 127.0.0.1", "s=-", "t=0 0", "a=group:BUNDLE 0 1",
        "m=audio 9 UDP/TLS/RTP/SAVPF 111", "a=mid:0", "a=sendonly", "a=rtpmap:111 opus/48000/2",
        "m=video 9 UDP/TLS/RTP/SAVPF 96", "a=mid:1", "a=sendonly", "a=rtpmap:96 VP8/90000",
        "a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid", "a=extmap:10 urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id",
        "a=extmap:11 urn:ietf:params:rtp-hdrext:sdes:repaired-rtp-stream-id",
        "a=rid:q send", "a=rid:h send", "a=rid:f send", "a=simulcast:send q;h;f", ""
    ].joined(separator: "\r\n")

    func testChromiumsOfferGivesItsLayersMidAndExtension() throws {
        let offer = try XCTUnwrap(SimulcastOffer.parse(Self.chromium))
        XCTAssertEqual(offer.rids, ["q", "h", "f"])
        XCTAssertEqual(offer.mid, "1")
        XCTAssertEqual(offer.ridExtensionID, 10)
    }

    func testAnOfferWithoutSimulcastHasNone() throws {
        XCTAssertNil(try SimulcastOffer.parse(Self.chromium.replacingOccurrences(of: "a=simulcast:send q;h;f\r\n", with: "")))
    }

    func testPausedAndAlternativeLayersCountOnce() throws {
        let sdp = Self.chromium.replacingOccurrences(of: "a=simulcast:send q;h;f", with: "a=simulcast:send ~q;h,x;f")
        XCTAssertEqual(try SimulcastOffer.parse(sdp)?.rids, ["q", "h", "f"])
    }

    func testWhatCannotBeTakenIsRefusedWithTheReason() {
        func problem(_ simulcast: String, rids: [String]) -> String {
            let lines = rids.map { "a=rid:\($0) send" } + [simulcast]
            let sdp = Self.chromium.replacingOccurrences(
                of: "a=rid:q send\r\na=rid:h send\r\na=rid:f send\r\na=simulcast:send q;h;f", with: lines.joined(separator: "\r\n"))
            do {
                _ = try SimulcastOffer.parse(sdp)
                return "accepted"
            } catch { return error.description }
        }
        XCTAssertTrue(problem("a=simulcast:send h;h", rids: ["h"]).contains("twice"))
        XCTAssertTrue(problem("a=simulcast:send a;b;c;d;e", rids: ["a", "b", "c", "d", "e"]).contains("at most 4"))
        XCTAssertTrue(problem("a=simulcast:send h", rids: ["h"]).contains("at least two"))
        XCTAssertTrue(problem("a=simulcast:send h;l", rids: ["h"]).contains("no 'a=rid:l send'"))
        XCTAssertTrue(problem("a=simulcast:send h;\(String(repeating: "x", count: 17))", rids: ["h", String(repeating: "x", count: 17)]).contains("RFC 8851"))
        XCTAssertTrue(problem("a=simulcast:send h;l;", rids: ["h", "l"]).contains("RFC 8851"), "an empty rid")
        XCTAssertTrue(problem("a=simulcast:recv h;l", rids: ["h", "l"]).contains("'send"))
        XCTAssertEqual(problem("a=simulcast:send h-1;l_2", rids: ["h-1", "l_2"]), "accepted")
    }

    func testAudioSimulcastIsRefused() {
        let sdp = Self.chromium.replacingOccurrences(of: "a=rtpmap:111 opus/48000/2", with: "a=rtpmap:111 opus/48000/2\r\na=simulcast:send a;b")
        XCTAssertThrowsError(try SimulcastOffer.parse(sdp)) { XCTAssertTrue("\($0)".contains("audio")) }
    }

    func testTheAnswerAcceptsTheLayersInTheVideoSection() throws {
        let offer = try XCTUnwrap(SimulcastOffer.parse(Self.chromium))
        let answer = [
            "v=0", "o=- 3 4 IN IP4 127.0.0.1", "s=-", "t=0 0", "a=group:BUNDLE 0 1",
            "m=audio 9 UDP/TLS/RTP/SAVPF 111", "a=mid:0", "a=recvonly", "a=candidate:1 1 UDP 1 127.0.0.1 5000 typ host",
            "m=video 9 UDP/TLS/RTP/SAVPF 96", "a=mid:1", "a=recvonly", "a=rtpmap:96 VP8/90000",
            "a=candidate:1 1 UDP 1 127.0.0.1 5000 typ host", ""
        ].joined(separator: "\r\n")
        let sections = SDPRewrite.sections(of: offer.accepting(in: answer))
        XCTAssertFalse(sections[1].contains { $0.hasPrefix("a=simulcast") || $0.hasPrefix("a=rid") }, "audio untouched")
        XCTAssertEqual(
            sections[2],
            [
                "m=video 9 UDP/TLS/RTP/SAVPF 96", "a=mid:1", "a=recvonly", "a=rtpmap:96 VP8/90000",
                "a=extmap:10 urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id", "a=rid:q recv", "a=rid:h recv", "a=rid:f recv", "a=simulcast:recv q;h;f",
                "a=candidate:1 1 UDP 1 127.0.0.1 5000 typ host", ""
            ])
        XCTAssertEqual(offer.accepting(in: offer.accepting(in: answer)), offer.accepting(in: answer), "applied once")
    }
}
