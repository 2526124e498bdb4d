import SluiceSignalling
import XCTest

final class RTXCompletionTests: XCTestCase {
    /// The shape of a webrtcbin 1.22 recvonly offer: RTX for the first video codec only.
    private let offer = [
        "v=0", "o=- 1 0 IN IP4 0.0.0.0", "s=-", "t=0 0", "a=group:BUNDLE video0 audio1",
        "m=video 9 UDP/TLS/RTP/SAVPF 96 98 102 97", "c=IN IP4 0.0.0.0", "a=mid:video0", "a=recvonly",
        "a=rtpmap:96 VP8/90000", "a=rtcp-fb:96 nack", "a=rtpmap:98 VP9/90000", "a=fmtp:98 profile-id=0",
        "a=rtpmap:102 H264/90000", "a=fmtp:102 packetization-mode=1", "a=rtpmap:97 rtx/90000", "a=fmtp:97 apt=96",
        "m=audio 9 UDP/TLS/RTP/SAVPF 111", "c=IN IP4 0.0.0.0", "a=mid:audio1", "a=recvonly", "a=rtpmap:111 OPUS/48000/2", ""
    ].joined(separator: "\r\n")

    func testEveryVideoCodecGetsItsOwnRTXWithAFreePayloadType() {
        let out = RTXCompletion.completing(offer)
        let session = SDPSession(out)
        let video = session.media[0]
        XCTAssertEqual(video.rtxPayloadType(for: 96), 97, "the existing pair stays")
        let vp9 = try? XCTUnwrap(video.rtxPayloadType(for: 98)), h264 = try? XCTUnwrap(video.rtxPayloadType(for: 102))
        XCTAssertNotNil(vp9, out)
        XCTAssertNotNil(h264, out)
        let all = session.media.flatMap { $0.formats.map(\.payloadType) }
        XCTAssertEqual(all.count, Set(all).count, "new payload types collide with none in the description: \(out)")
        XCTAssertTrue(out.contains("m=video 9 UDP/TLS/RTP/SAVPF 96 98 102 97 \(vp9!) \(h264!)\r\n"), out)
        XCTAssertEqual(video.formats.first { $0.payloadType == h264 }?.clockRate, 90000)
        XCTAssertEqual(session.media[1].formats.map(\.payloadType), [111], "audio is left alone")
        XCTAssertFalse(out.replacingOccurrences(of: "\r\n", with: "").contains("\n"), "line endings stay CRLF")
        XCTAssertTrue(out.hasSuffix("a=rtpmap:111 OPUS/48000/2\r\n"), "the final newline stays where it was")
        XCTAssertEqual(RTXCompletion.completing(out), out, "a complete offer is unchanged")
    }

    func testSectionsWithoutRetransmissionAreLeftAlone() {
        let noRTX = offer.replacingOccurrences(of: " 97\r\n", with: "\r\n")
            .replacingOccurrences(of: "a=rtpmap:97 rtx/90000\r\na=fmtp:97 apt=96\r\n", with: "")
        XCTAssertEqual(RTXCompletion.completing(noRTX), noRTX, "a transceiver without NACK/RTX does not get it from here")
        XCTAssertEqual(RTXCompletion.completing(""), "")
        XCTAssertEqual(RTXCompletion.completing("m=video 9 RTP/AVP\r\n"), "m=video 9 RTP/AVP\r\n")
    }

    func testNoFreePayloadTypeLeavesTheRestUnpaired() {
        // 96–127 and 35–63 all taken but one: one codec gets RTX, the others none, nothing breaks.
        var pts = Array(96...127) + Array(35...62)
        pts.removeAll { $0 == 97 }
        let lines =
            ["v=0", "m=video 9 UDP/TLS/RTP/SAVPF " + (pts + [97]).map(String.init).joined(separator: " ")]
            + pts.map { "a=rtpmap:\($0) VP8/90000" } + ["a=rtpmap:97 rtx/90000", "a=fmtp:97 apt=96", ""]
        let out = RTXCompletion.completing(lines.joined(separator: "\n"))
        let video = SDPSession(out).media[0]
        XCTAssertEqual(video.formats.filter { $0.encoding == "RTX" }.count, 2, "only 63 was free")
        XCTAssertEqual(video.rtxPayloadType(for: 98), 63)
    }
}
