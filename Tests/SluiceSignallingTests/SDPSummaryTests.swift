import XCTest
@testable import SluiceSignalling

final class SDPSummaryTests: XCTestCase {
    let offer = """
        v=0\r\no=- 1 0 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\na=group:BUNDLE video0 audio1\r
        m=video 9 UDP/TLS/RTP/SAVPF 96 97\r\na=mid:video0\r\na=sendonly\r\na=rtpmap:96 VP8/90000\r\na=rtpmap:97 RTX/90000\r
        m=audio 0 UDP/TLS/RTP/SAVPF 111\r\na=mid:audio1\r\na=bundle-only\r\na=sendonly\r\na=rtpmap:111 OPUS/48000/2\r\n
        """

    func testParsesMediaCodecsDirectionAndBundle() {
        let s = SDPSummary(offer)
        XCTAssertEqual(s.media.map(\.kind), ["video", "audio"])
        XCTAssertEqual(s.media[0].codecs, ["VP8"], "RTX is a helper, not a codec")
        XCTAssertEqual(s.media[0].direction, "sendonly")
        XCTAssertEqual(s.bundleGroup, ["video0", "audio1"])
        XCTAssertTrue(s.media[1].bundleOnly)
        XCTAssertFalse(s.media[1].rejected, "port 0 with bundle-only is not a rejection")
    }

    func testRejectionNamesBothSidesCodecs() {
        let answer = "v=0\r\no=- 1 0 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\nm=video 0 UDP/TLS/RTP/SAVPF 0\r\na=mid:video0\r\na=inactive\r\n"
        let r = SDPSummary.rejections(
            offer: SDPSummary(offer), answer: SDPSummary(answer),
            answererAccepts: ["video": ["H264"]])
        XCTAssertEqual(r.count, 1)
        XCTAssertTrue(r[0].contains("video"))
        XCTAssertTrue(r[0].contains("VP8") && r[0].contains("H264"), r[0])
    }

    func testOfferWithoutAcceptedCodecIsRefusedBeforeAnswering() {
        let offered = SDPSummary(offer)
        XCTAssertEqual(SDPSummary.incompatibilities(offer: offered, accepts: ["video": ["VP8", "H264"]]), [])
        XCTAssertEqual(SDPSummary.incompatibilities(offer: offered, accepts: [:]), [], "no restriction accepts anything")
        let refused = SDPSummary.incompatibilities(offer: offered, accepts: ["audio": ["G722"]])
        XCTAssertEqual(refused.count, 1)
        XCTAssertTrue(refused[0].contains("audio") && refused[0].contains("OPUS") && refused[0].contains("G722"), refused[0])
    }

    func testGarbageDoesNotCrash() {
        for text in ["", "m=", "m=video", "m=video x y", "a=rtpmap:", "m=audio 99999999999999999999 RTP 1\na=rtpmap:1"] {
            _ = SDPSummary(text)
        }
    }
}
