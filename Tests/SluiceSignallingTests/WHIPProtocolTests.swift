import XCTest
@testable import SluiceSignalling

final class WHIPProtocolTests: XCTestCase {
    static let offer = "v=0\r\no=- 1 0 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\na=mid:0\r\na=sendonly\r\na=rtpmap:96 VP8/90000\r\n"

    private func status<T>(_ r: Result<T, WHIP.HTTPError>) -> Int? {
        if case .failure(let e) = r { return e.status }
        return nil
    }

    func testValidOfferPasses() throws {
        let sdp = try WHIP.checkOffer(contentType: "application/sdp", body: Self.offer).get()
        XCTAssertEqual(sdp, Self.offer)
        XCTAssertNoThrow(try WHIP.checkOffer(contentType: "Application/SDP; charset=utf-8", body: Self.offer).get())
    }

    func testEachMistakeGetsItsStatus() {
        XCTAssertEqual(status(WHIP.checkOffer(contentType: "application/json", body: Self.offer)), 415)
        XCTAssertEqual(status(WHIP.checkOffer(contentType: nil, body: Self.offer)), 415)
        XCTAssertEqual(status(WHIP.checkOffer(contentType: "application/sdp", body: "hello")), 400)
        XCTAssertEqual(status(WHIP.checkOffer(contentType: "application/sdp", body: "")), 400)
        let noMedia = "v=0\r\no=- 1 0 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\nm=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\n"
        XCTAssertEqual(status(WHIP.checkOffer(contentType: "application/sdp", body: noMedia)), 422)
    }

    /// The bearer token rules the server's middleware applies to every protected route.
    func testBearerTokens() {
        XCTAssertNil(WHIP.checkAuthorization(nil, token: nil), "no token configured: everything passes")
        XCTAssertNil(WHIP.checkAuthorization("Bearer whatever", token: nil))
        XCTAssertNil(WHIP.checkAuthorization("Bearer s3cret", token: "s3cret"))
        XCTAssertNil(WHIP.checkAuthorization("bearer  s3cret ", token: "s3cret"), "the scheme is case-insensitive")
        let missing = WHIP.checkAuthorization(nil, token: "t")
        XCTAssertEqual(missing?.status, 401)
        XCTAssertEqual(missing?.headers["WWW-Authenticate"], "Bearer realm=\"sluice\"")
        XCTAssertEqual(WHIP.checkAuthorization("Bearer nope", token: "t")?.status, 403)
        XCTAssertEqual(WHIP.checkAuthorization("Basic dDp0", token: "t")?.status, 401)
        XCTAssertEqual(WHIP.checkAuthorization("Bearer ", token: "t")?.status, 401, "an empty token is no token")
        XCTAssertEqual(BearerToken.check("Bearer", token: "t"), .missing)
        XCTAssertEqual(BearerToken.check("Bearer t", token: "t"), .accepted)
        XCTAssertEqual(BearerToken.check("Bearer tt", token: "t"), .invalid, "a longer token is not a match")
        XCTAssertEqual(BearerToken.check("Bearer s3cre", token: "s3cret"), .invalid, "a prefix is not a match")
        XCTAssertEqual(BearerToken.check("Bearer s3cret", token: ""), .invalid, "an empty configured token admits nobody")
        XCTAssertTrue(BearerToken.constantTimeEqual("", ""))
        XCTAssertFalse(BearerToken.constantTimeEqual("a", ""))
        XCTAssertFalse(BearerToken.constantTimeEqual("ab", "ac"))
    }

    func testTricklePatch() throws {
        let frag =
            "a=ice-ufrag:abcd\r\na=ice-pwd:efgh\r\nm=video 9 UDP/TLS/RTP/SAVPF 0\r\na=mid:0\r\na=candidate:1 1 UDP 2122252543 127.0.0.1 50000 typ host\r\na=end-of-candidates\r\n"
        let patch = try WHIP.checkPatch(
            contentType: "application/trickle-ice-sdpfrag", ifMatch: "\"e1\"", etag: "\"e1\"",
            body: frag
        ).get()
        XCTAssertEqual(patch, .candidates([(mid: "0", candidate: "candidate:1 1 UDP 2122252543 127.0.0.1 50000 typ host")], endOfCandidates: true))
        func patchStatus(_ type: String?, _ ifMatch: String?) -> Int? {
            status(WHIP.checkPatch(contentType: type, ifMatch: ifMatch, etag: "\"e1\"", body: frag))
        }
        XCTAssertEqual(patchStatus("application/sdp", "\"e1\""), 415)
        XCTAssertEqual(patchStatus("application/trickle-ice-sdpfrag", nil), 428)
        XCTAssertEqual(patchStatus("application/trickle-ice-sdpfrag", "\"other\""), 412)
        XCTAssertEqual(patchStatus("application/trickle-ice-sdpfrag", "*"), 501, "ICE restarts are refused clearly")
        XCTAssertEqual(
            status(
                WHIP.checkPatch(
                    contentType: "application/trickle-ice-sdpfrag", ifMatch: "\"e1\"", etag: "\"e1\"",
                    body: "garbage line")), 400)
    }

    func testLinkHeadersForICEServers() {
        let links = WHIP.linkHeaders(stun: ["stun://127.0.0.1:3478"], turn: ["turn://user:pass@127.0.0.1:3478"])
        XCTAssertEqual(
            links,
            [
                "<stun:127.0.0.1:3478>; rel=\"ice-server\"",
                "<turn:127.0.0.1:3478>; rel=\"ice-server\"; username=\"user\"; credential=\"pass\"; credential-type=\"password\""
            ])
    }
}

final class CameraAPITests: XCTestCase {
    static let offer = """
        v=0\r\no=- 1 0 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r
        m=audio 9 UDP/TLS/RTP/SAVPF 111\r\na=mid:0\r\na=recvonly\r\na=rtpmap:111 OPUS/48000/2\r
        m=video 9 UDP/TLS/RTP/SAVPF 96\r\na=mid:1\r\na=recvonly\r\na=rtpmap:96 VP8/90000\r
        m=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\na=mid:2\r\n
        """

    func testCommandsDecode() throws {
        let gen = #"{"command":"sdm.devices.commands.CameraLiveStream.GenerateWebRtcStream","params":{"offerSdp":"v=0"}}"#
        XCTAssertEqual(try CameraAPI.command(from: Data(gen.utf8)).get(), .generate(offerSdp: "v=0"))
        let ext = #"{"command":"sdm.devices.commands.CameraLiveStream.ExtendWebRtcStream","params":{"mediaSessionId":"abc"}}"#
        XCTAssertEqual(try CameraAPI.command(from: Data(ext.utf8)).get(), .extend(mediaSessionId: "abc"))
        for bad in [
            "{", "[]", #"{"params":{}}"#, #"{"command":"sdm.devices.commands.CameraLiveStream.GenerateWebRtcStream"}"#,
            #"{"command":"sdm.devices.commands.Fly","params":{}}"#
        ] {
            guard case .failure(let e) = CameraAPI.command(from: Data(bad.utf8)) else { return XCTFail(bad) }
            XCTAssertEqual(e.code, 400, bad)
            XCTAssertTrue(e.body.contains("\"status\":\"INVALID_ARGUMENT\""), e.body)
        }
    }

    func testOfferMustBeAudioVideoApplicationRecvonly() {
        XCTAssertNil(CameraAPI.offerProblem(Self.offer))
        let reordered = Self.offer.replacingOccurrences(of: "m=audio", with: "m=AUDIO").replacingOccurrences(of: "m=video", with: "m=audio")
            .replacingOccurrences(of: "m=AUDIO", with: "m=video")
        XCTAssertTrue(CameraAPI.offerProblem(reordered)?.message.contains("in that order") ?? false)
        let sendrecv = Self.offer.replacingOccurrences(of: "a=recvonly\r\na=rtpmap:96", with: "a=sendrecv\r\na=rtpmap:96")
        XCTAssertTrue(CameraAPI.offerProblem(sendrecv)?.message.contains("video media line must be recvonly") ?? false)
        XCTAssertTrue(CameraAPI.offerProblem("junk")?.message.contains("Invalid offerSdp") ?? false)
    }

    func testSessionsExtendStopAndExpire() throws {
        let sessions = CameraAPI.Sessions(lifetime: 10)
        let t0 = Date(timeIntervalSince1970: 1_000_000)
        let s = sessions.create(device: "cam1", now: t0)
        XCTAssertEqual(s.expiresAt, t0.addingTimeInterval(10))
        XCTAssertNil(sessions.extend(s.id, device: "cam2", now: t0), "another device's session")
        let extended = try XCTUnwrap(sessions.extend(s.id, device: "cam1", now: t0.addingTimeInterval(8)))
        XCTAssertEqual(extended.expiresAt, t0.addingTimeInterval(18))
        XCTAssertEqual(sessions.expire(now: t0.addingTimeInterval(12)), [], "extended past 12 s")
        XCTAssertEqual(sessions.expire(now: t0.addingTimeInterval(18)).map(\.id), [s.id])
        XCTAssertNil(sessions.extend(s.id, device: "cam1", now: t0.addingTimeInterval(19)), "expired sessions cannot be extended")
        let s2 = sessions.create(device: "cam1", now: t0)
        XCTAssertTrue(sessions.stop(s2.id, device: "cam1"))
        XCTAssertFalse(sessions.stop(s2.id, device: "cam1"))
        XCTAssertEqual(sessions.count, 0)
    }

    func testResponsesHaveTheAPIShape() throws {
        let s = CameraAPI.Session(id: "m1", device: "cam1", expiresAt: Date(timeIntervalSince1970: 1_578_162_600))
        let body = CameraAPI.generateResponse(answer: "v=0", session: s)
        let o = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])
        let results = try XCTUnwrap(o["results"] as? [String: String])
        XCTAssertEqual(results["answerSdp"], "v=0")
        XCTAssertEqual(results["mediaSessionId"], "m1")
        XCTAssertEqual(results["expiresAt"], "2020-01-04T18:30:00.000Z")
        XCTAssertEqual(CameraAPI.date(from: "2020-01-04T18:30:00.000Z"), s.expiresAt)
    }
}
