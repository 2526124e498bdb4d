import GStreamer
import SluiceSignalling
import XCTest
@testable import SluiceRun

/// The receive-only transceiver a relay adds so that its answer carries the publisher's
/// transport-wide congestion control: made from the offer's own video formats.
final class RelayFeedbackTests: XCTestCase {
    private let offer = """
        v=0
        m=audio 9 UDP/TLS/RTP/SAVPF 111
        a=rtpmap:111 opus/48000/2
        a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01
        m=video 9 UDP/TLS/RTP/SAVPF 96 97 102
        a=sendonly
        a=extmap:5 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01
        a=rtpmap:96 VP8/90000
        a=rtcp-fb:96 transport-cc
        a=rtpmap:97 rtx/90000
        a=fmtp:97 apt=96
        a=rtpmap:102 H264/90000
        a=fmtp:102 packetization-mode=1;profile-level-id=42e01f;x-evil=a,b=(string)c
        """

    func testTheOffersVideoFormatsGetTheOffersTWCCExtension() throws {
        let text = try XCTUnwrap(RelayFeedback.preferences(for: offer))
        let caps = try Caps(text)
        XCTAssertEqual(caps.size, 2, "VP8 and H.264; RTX is webrtcbin's to add: \(text)")
        let vp8 = try XCTUnwrap(caps.structure(at: 0)), h264 = try XCTUnwrap(caps.structure(at: 1))
        XCTAssertEqual(vp8.get("encoding-name", as: String.self), "VP8")
        XCTAssertEqual(vp8.get("payload", as: Int32.self), 96)
        XCTAssertEqual(vp8.get("extmap-5", as: String.self), RTPHeaderExtension.transportWideCC, "the video section's id, not audio's")
        XCTAssertEqual(h264.get("payload", as: Int32.self), 102)
        XCTAssertEqual(h264.get("profile-level-id", as: String.self), "42e01f")
        XCTAssertEqual(h264.get("packetization-mode", as: String.self), "1")
        XCTAssertNil(h264.get("x-evil", as: String.self), "a value that is not plain is left out, never spliced into the caps")
        XCTAssertNil(h264.get("b", as: String.self))
    }

    func testAnOfferWithoutTWCCOrVideoAddsNothing() {
        XCTAssertNil(RelayFeedback.preferences(for: offer.replacingOccurrences(of: "a=extmap:5", with: "a=x-extmap:5")))
        XCTAssertNil(RelayFeedback.preferences(for: "v=0\nm=audio 9 UDP/TLS/RTP/SAVPF 111\na=rtpmap:111 opus/48000/2\n"))
    }
}
