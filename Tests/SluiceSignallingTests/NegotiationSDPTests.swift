import XCTest
@testable import SluiceSignalling

/// Offers in the shapes real stacks send (aiortc 1.16, Chromium, Firefox, Pion), and what
/// Sluice's negotiation takes from them.
final class NegotiationSDPTests: XCTestCase {
    /// aiortc 1.16's recvonly video offer: VP8 is 97, H.264 is 99 (42001f) and 101 (42e01f).
    static let aiortc = """
        v=0\r\no=- 4004413538 4004413538 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\na=group:BUNDLE 0 1\r\na=msid-semantic:WMS *\r
        m=video 9 UDP/TLS/RTP/SAVPF 97 98 99 100 101 102\r\nc=IN IP4 0.0.0.0\r\na=recvonly\r
        a=extmap:1 urn:ietf:params:rtp-hdrext:sdes:mid\r\na=extmap:3 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time\r
        a=mid:0\r\na=rtcp-mux\r\na=ssrc-group:FID 3396370250 1012046367\r\na=ssrc:3396370250 cname:d948\r\na=ssrc:1012046367 cname:d948\r
        a=rtpmap:97 VP8/90000\r\na=rtcp-fb:97 nack\r\na=rtcp-fb:97 nack pli\r\na=rtcp-fb:97 goog-remb\r
        a=rtpmap:98 rtx/90000\r\na=fmtp:98 apt=97\r
        a=rtpmap:99 H264/90000\r\na=fmtp:99 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42001f\r
        a=rtpmap:100 rtx/90000\r\na=fmtp:100 apt=99\r
        a=rtpmap:101 H264/90000\r\na=fmtp:101 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f\r
        a=rtpmap:102 rtx/90000\r\na=fmtp:102 apt=101\r\na=setup:actpass\r
        m=audio 9 UDP/TLS/RTP/SAVPF 96 0 8\r\na=recvonly\r\na=mid:1\r\na=extmap:1 urn:ietf:params:rtp-hdrext:sdes:mid\r
        a=rtpmap:96 opus/48000/2\r\na=rtpmap:0 PCMU/8000\r\na=rtpmap:8 PCMA/8000\r
        """

    /// Chromium's H.264 offer order: packetization-mode 0 before 1, High before Baseline.
    static let chromiumH264 = """
        v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\na=group:BUNDLE 0\r
        m=video 9 UDP/TLS/RTP/SAVPF 102 103 104 105 106 107 112\r\na=mid:0\r\na=recvonly\r
        a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid\r
        a=rtpmap:102 H264/90000\r\na=fmtp:102 level-asymmetry-allowed=1;packetization-mode=0;profile-level-id=42e01f\r
        a=rtpmap:103 rtx/90000\r\na=fmtp:103 apt=102\r
        a=rtpmap:104 H264/90000\r\na=fmtp:104 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=640c1f\r
        a=rtpmap:105 rtx/90000\r\na=fmtp:105 apt=104\r
        a=rtpmap:106 H264/90000\r\na=fmtp:106 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f\r
        a=rtpmap:107 rtx/90000\r\na=fmtp:107 apt=106\r
        a=rtpmap:112 VP9/90000\r\na=fmtp:112 profile-id=2\r
        """

    func testParsesPayloadTypesParametersFeedbackAndExtensions() {
        let s = SDPSession(Self.aiortc)
        XCTAssertEqual(s.bundleGroup, ["0", "1"])
        XCTAssertEqual(s.media.map(\.kind), ["video", "audio"])
        let v = s.media[0]
        XCTAssertEqual(v.direction, "recvonly")
        XCTAssertEqual(v.mid, "0")
        XCTAssertEqual(v.formats.map(\.payloadType), [97, 98, 99, 100, 101, 102])
        XCTAssertEqual(v.formats[0].encoding, "VP8")
        XCTAssertEqual(v.formats[0].feedback, ["nack", "nack pli", "goog-remb"])
        XCTAssertEqual(v.formats[4].parameters["profile-level-id"], "42e01f")
        XCTAssertEqual(v.rtxPayloadType(for: 97), 98)
        XCTAssertEqual(v.extensionID(RTPHeaderExtension.mid), 1)
        XCTAssertEqual(v.ssrcs, [3396370250, 1012046367])
        XCTAssertEqual(s.media[1].formats.first?.channels, 2)
    }

    func testChoosesTheOffersPayloadTypesNotSluices() {
        let v = SDPSession(Self.aiortc).media[0]
        XCTAssertEqual(CodecMatch.choose("VP8", in: v), .init(payloadType: 97, rtxPayloadType: 98, midExtensionID: 1))
        // Constrained Baseline (42e0) before Baseline (4200), whatever the order.
        XCTAssertEqual(CodecMatch.choose("H264", in: v)?.payloadType, 101)
        XCTAssertEqual(CodecMatch.choose("H264", in: v)?.rtxPayloadType, 102)
        XCTAssertNil(CodecMatch.choose("VP9", in: v))
        XCTAssertEqual(CodecMatch.choose("OPUS", in: SDPSession(Self.aiortc).media[1])?.payloadType, 96)
    }

    /// Chromium's VP8 section with transport-wide congestion control: the extension (id 3)
    /// counts only for a format that also asks for `transport-cc` feedback.
    func testTransportWideCCNeedsTheExtensionAndTheFeedback() {
        let chromium = """
            v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\na=group:BUNDLE 0\r
            m=video 9 UDP/TLS/RTP/SAVPF 96 97 98\r\na=mid:0\r\na=recvonly\r
            a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01\r
            a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid\r
            a=rtpmap:96 VP8/90000\r\na=rtcp-fb:96 goog-remb\r\na=rtcp-fb:96 transport-cc\r\na=rtcp-fb:96 nack\r
            a=rtpmap:97 rtx/90000\r\na=fmtp:97 apt=96\r
            a=rtpmap:98 VP9/90000\r\na=fmtp:98 profile-id=0\r\na=rtcp-fb:98 nack\r
            """
        let v = SDPSession(chromium).media[0]
        XCTAssertEqual(CodecMatch.choose("VP8", in: v)?.twccExtensionID, 3)
        XCTAssertNil(CodecMatch.choose("VP9", in: v)?.twccExtensionID, "VP9 here has no transport-cc feedback")
        XCTAssertNil(CodecMatch.choose("VP8", in: SDPSession(Self.aiortc).media[0])?.twccExtensionID, "aiortc offers neither")
        let kept = SDPRewrite.keepingExtensions([RTPHeaderExtension.mid, RTPHeaderExtension.transportWideCC], in: chromium)
        XCTAssertTrue(kept.contains("a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"))
    }

    func testH264NeedsPacketizationMode1AndAProfileThatDecodesConstrainedBaseline() {
        let v = SDPSession(Self.chromiumH264).media[0]
        // 102 is mode 0 (single NAL units: Sluice fragments), 104 is High: 106 wins.
        XCTAssertEqual(CodecMatch.choose("H264", in: v), .init(payloadType: 106, rtxPayloadType: 107, midExtensionID: 4))
        // Only High left: still decodable (High decoders take Constrained Baseline).
        let highOnly = Self.chromiumH264.replacingOccurrences(of: "profile-level-id=42e01f", with: "profile-level-id=f4001f")
        XCTAssertEqual(CodecMatch.choose("H264", in: SDPSession(highOnly).media[0])?.payloadType, 104)
        // VP9 profile 2 (10-bit) cannot carry Sluice's profile 0.
        XCTAssertNil(CodecMatch.choose("VP9", in: v))
        let mode0Only = Self.chromiumH264.replacingOccurrences(of: "packetization-mode=1", with: "packetization-mode=0")
        XCTAssertNil(CodecMatch.choose("H264", in: SDPSession(mode0Only).media[0]))
    }

    func testKeepsOnlyTheExtensionsSluiceWrites() {
        let kept = SDPRewrite.keepingExtensions([RTPHeaderExtension.mid], in: Self.aiortc)
        XCTAssertTrue(kept.contains("a=extmap:1 urn:ietf:params:rtp-hdrext:sdes:mid"))
        XCTAssertFalse(kept.contains("abs-send-time"))
        XCTAssertEqual(SDPSession(kept).media.map(\.formats), SDPSession(Self.aiortc).media.map(\.formats))
    }

    func testAddsMediaLevelMsidFromSSRCLines() {
        let answer =
            "v=0\r\nm=video 9 UDP/TLS/RTP/SAVPF 97\r\na=mid:0\r\na=ssrc:42 msid:sluice-s webrtctransceiver0\r\na=ssrc:42 cname:x\r\nm=audio 0 UDP/TLS/RTP/SAVPF 96\r\na=mid:1\r\n"
        let out = SDPRewrite.addingMediaMsid(answer)
        XCTAssertEqual(SDPSession(out).media.map(\.msid), ["sluice-s webrtctransceiver0", nil])
        XCTAssertEqual(SDPRewrite.addingMediaMsid(out), out, "idempotent")
    }

    func testHostileInputIsBounded() {
        var sdp = "v=0\r\no=- 1 1 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\n"
        sdp += "m=video 9 UDP/TLS/RTP/SAVPF " + (0..<1000).map(String.init).joined(separator: " ") + "\r\n"
        sdp += String(repeating: "a=rtcp-fb:96 nack\r\n", count: 100)
        sdp += "a=fmtp:96 " + String(repeating: "k=v;", count: 10_000) + "\r\n"
        sdp += "a=extmap:99999 x\r\na=ssrc:notanumber cname:x\r\na=rtpmap:banana VP8/90000\r\n"
        let m = SDPSession(sdp).media[0]
        XCTAssertEqual(m.formats.count, 128, "payload types are 0–127")
        XCTAssertLessThanOrEqual(m.formats.first { $0.payloadType == 96 }?.feedback.count ?? 0, 16)
        XCTAssertLessThanOrEqual(m.formats.first { $0.payloadType == 96 }?.parameters.count ?? 0, 32)
        XCTAssertTrue(m.extensions.isEmpty)
        XCTAssertTrue(m.ssrcs.isEmpty)
        XCTAssertNil(CodecMatch.choose("VP8", in: m))
    }
}
