import Foundation
@testable import SluiceSignalling
import XCTest

/// SDP ⇄ Jingle on stanzas shaped like the XEPs' examples, and round trips of what
/// webrtcbin 1.22 really sends.
final class JingleTests: XCTestCase {
    /// XEP-0167's session-initiate (Example 1: speex, G729, PCMU, L16, ISAC with ICE-UDP
    /// candidates from XEP-0176), with a video content that adds XEP-0293 feedback, XEP-0294
    /// header extensions, XEP-0339 sources, XEP-0320 fingerprints, XEP-0338 BUNDLE and a
    /// XEP-0343 data channel.
    static let initiate = """
        <iq from='romeo@montague.lit/orchard' id='ng91xs69' to='juliet@capulet.lit/balcony' type='set' xmlns='jabber:client'>
          <jingle xmlns='urn:xmpp:jingle:1' action='session-initiate' initiator='romeo@montague.lit/orchard' sid='a73sjjvkla37jfea'>
            <content creator='initiator' name='voice'>
              <description xmlns='urn:xmpp:jingle:apps:rtp:1' media='audio'>
                <payload-type id='96' name='speex' clockrate='16000'/>
                <payload-type id='97' name='speex' clockrate='8000'/>
                <payload-type id='18' name='G729'/>
                <payload-type id='0' name='PCMU' />
                <payload-type id='103' name='L16' clockrate='16000' channels='2'/>
                <payload-type id='98' name='x-ISAC' clockrate='8000'/>
              </description>
              <transport xmlns='urn:xmpp:jingle:transports:ice-udp:1' pwd='asd88fgpdd777uzjYhagZg' ufrag='8hhy'>
                <fingerprint xmlns='urn:xmpp:jingle:apps:dtls:0' hash='sha-256' setup='actpass'>02:1A:CC:54:27:AB:EB:9C:53:3F:3E:4B:65:2E:7D:46:3F:54:42:CD:54:F1:7A:03:A2:7D:F9:B0:7F:46:19:B2</fingerprint>
                <candidate component='1' foundation='1' generation='0' id='el0747fg11' ip='10.0.1.1' network='1' port='8998' priority='2130706431' protocol='udp' type='host'/>
                <candidate component='1' foundation='2' generation='0' id='y3s2b30v3r' ip='192.0.2.3' network='1' port='45664' priority='1694498815' protocol='udp' rel-addr='10.0.1.1' rel-port='8998' type='srflx'/>
              </transport>
            </content>
            <content creator='initiator' name='webcam' senders='initiator'>
              <description xmlns='urn:xmpp:jingle:apps:rtp:1' media='video'>
                <payload-type id='100' name='VP8' clockrate='90000'>
                  <rtcp-fb xmlns='urn:xmpp:jingle:apps:rtp:rtcp-fb:0' type='nack'/>
                  <rtcp-fb xmlns='urn:xmpp:jingle:apps:rtp:rtcp-fb:0' type='nack' subtype='pli'/>
                  <rtcp-fb xmlns='urn:xmpp:jingle:apps:rtp:rtcp-fb:0' type='ccm' subtype='fir'/>
                </payload-type>
                <payload-type id='101' name='rtx' clockrate='90000'>
                  <parameter name='apt' value='100'/>
                </payload-type>
                <rtp-hdrext xmlns='urn:xmpp:jingle:apps:rtp:rtp-hdrext:0' id='1' uri='urn:ietf:params:rtp-hdrext:toffset'/>
                <source ssrc='1656081975' xmlns='urn:xmpp:jingle:apps:rtp:ssma:0'>
                  <parameter name='cname' value='Yv/wvbCdsDW2Prgd'/>
                  <parameter name='msid' value='MLTJKIHilGn71fNQoszkQ4jlPTuS5vJyKVIv MLTJKIHilGn71fNQoszkQ4jlPTuS5vJyKVIva0'/>
                </source>
                <source ssrc='2231627014' xmlns='urn:xmpp:jingle:apps:rtp:ssma:0'>
                  <parameter name='cname' value='Yv/wvbCdsDW2Prgd'/>
                </source>
                <ssrc-group semantics='FID' xmlns='urn:xmpp:jingle:apps:rtp:ssma:0'>
                  <source ssrc='1656081975'/>
                  <source ssrc='2231627014'/>
                </ssrc-group>
                <rtcp-mux/>
              </description>
              <transport xmlns='urn:xmpp:jingle:transports:ice-udp:1' pwd='asd88fgpdd777uzjYhagZg' ufrag='8hhy'>
                <fingerprint xmlns='urn:xmpp:jingle:apps:dtls:0' hash='sha-256' setup='actpass'>02:1A:CC:54:27:AB:EB:9C:53:3F:3E:4B:65:2E:7D:46:3F:54:42:CD:54:F1:7A:03:A2:7D:F9:B0:7F:46:19:B2</fingerprint>
              </transport>
            </content>
            <content creator='initiator' name='data'>
              <transport xmlns='urn:xmpp:jingle:transports:ice-udp:1' pwd='asd88fgpdd777uzjYhagZg' ufrag='8hhy'>
                <fingerprint xmlns='urn:xmpp:jingle:apps:dtls:0' hash='sha-256' setup='actpass'>02:1A:CC:54:27:AB:EB:9C:53:3F:3E:4B:65:2E:7D:46:3F:54:42:CD:54:F1:7A:03:A2:7D:F9:B0:7F:46:19:B2</fingerprint>
                <sctpmap xmlns='urn:xmpp:jingle:transports:dtls-sctp:1' number='5000' protocol='webrtc-datachannel' streams='1024'/>
              </transport>
            </content>
            <group xmlns='urn:xmpp:jingle:apps:grouping:0' semantics='BUNDLE'>
              <content name='voice'/>
              <content name='webcam'/>
              <content name='data'/>
            </group>
          </jingle>
        </iq>
        """

    private func jingle(_ text: String) throws -> XML.Element {
        try XCTUnwrap(try XML.parse(text).trimmed().child("jingle", namespace: Jingle.namespace))
    }

    /// The m-sections of an SDP, each as the set of its lines.
    private func sections(_ sdp: String) -> [Set<String>] {
        var out: [Set<String>] = []
        for line in sdp.components(separatedBy: "\r\n") where !line.isEmpty {
            if line.hasPrefix("m=") { out.append([]) }
            if !out.isEmpty { out[out.count - 1].insert(line) }
        }
        return out
    }

    func testXEPExamplesBecomeAnSDPWebRTCStacksRead() throws {
        let sdp = try Jingle.sdp(from: jingle(Self.initiate), role: .initiator)
        XCTAssertTrue(sdp.hasPrefix("v=0\r\n"))
        XCTAssertTrue(sdp.contains("\r\na=group:BUNDLE voice webcam data\r\n"), sdp)
        let s = sections(sdp)
        XCTAssertEqual(s.count, 3)
        let voice = s[0], video = s[1], data = s[2]
        XCTAssertTrue(voice.contains("m=audio 9 UDP/TLS/RTP/SAVPF 96 97 18 0 103 98"), "\(voice)")
        for line in [
            "a=mid:voice", "a=sendrecv", "a=rtpmap:96 speex/16000", "a=rtpmap:18 G729/8000", "a=rtpmap:0 PCMU/8000",
            "a=rtpmap:103 L16/16000/2", "a=ice-ufrag:8hhy", "a=ice-pwd:asd88fgpdd777uzjYhagZg", "a=setup:actpass",
            "a=fingerprint:sha-256 02:1A:CC:54:27:AB:EB:9C:53:3F:3E:4B:65:2E:7D:46:3F:54:42:CD:54:F1:7A:03:A2:7D:F9:B0:7F:46:19:B2",
            "a=candidate:1 1 UDP 2130706431 10.0.1.1 8998 typ host generation 0",
            "a=candidate:2 1 UDP 1694498815 192.0.2.3 45664 typ srflx raddr 10.0.1.1 rport 8998 generation 0"
        ] {
            XCTAssertTrue(voice.contains(line), "\(line) missing from \(voice)")
        }
        // senders='initiator', written by the initiator: it only sends.
        for line in [
            "m=video 9 UDP/TLS/RTP/SAVPF 100 101", "a=mid:webcam", "a=sendonly", "a=rtpmap:100 VP8/90000",
            "a=rtcp-fb:100 nack", "a=rtcp-fb:100 nack pli", "a=rtcp-fb:100 ccm fir", "a=rtpmap:101 rtx/90000",
            "a=fmtp:101 apt=100", "a=extmap:1 urn:ietf:params:rtp-hdrext:toffset", "a=rtcp-mux",
            "a=ssrc:1656081975 cname:Yv/wvbCdsDW2Prgd",
            "a=ssrc:1656081975 msid:MLTJKIHilGn71fNQoszkQ4jlPTuS5vJyKVIv MLTJKIHilGn71fNQoszkQ4jlPTuS5vJyKVIva0",
            "a=ssrc-group:FID 1656081975 2231627014"
        ] {
            XCTAssertTrue(video.contains(line), "\(line) missing from \(video)")
        }
        for line in ["m=application 9 UDP/DTLS/SCTP webrtc-datachannel", "a=sctp-port:5000", "a=mid:data"] {
            XCTAssertTrue(data.contains(line), "\(line) missing from \(data)")
        }
        // The same description read as the responder's: 'initiator' sends, so the responder receives.
        XCTAssertTrue(sections(try Jingle.sdp(from: jingle(Self.initiate), role: .responder))[1].contains("a=recvonly"))
    }

    static let webrtcbinOffer = """
        v=0
        o=- 7224901766902526329 0 IN IP4 0.0.0.0
        s=-
        t=0 0
        a=ice-options:trickle
        a=group:BUNDLE video audio application0
        m=video 9 UDP/TLS/RTP/SAVPF 96 97
        c=IN IP4 0.0.0.0
        a=setup:actpass
        a=ice-ufrag:J5O+a0p+azzP/u+aFqnbUFa0n1UrXerL
        a=ice-pwd:aoCVGJ4c6BTqV+YGL/G3mw4LjPgG5DGn
        a=rtcp-mux
        a=rtcp-rsize
        a=sendrecv
        a=rtpmap:96 VP8/90000
        a=rtcp-fb:96 nack
        a=rtcp-fb:96 nack pli
        a=rtcp-fb:96 ccm fir
        a=rtcp-fb:96 transport-cc
        a=framerate:30
        a=mid:video
        a=extmap:9 urn:ietf:params:rtp-hdrext:sdes:mid
        a=rtpmap:97 rtx/90000
        a=fmtp:97 apt=96
        a=ssrc-group:FID 3202478629 1332237338
        a=ssrc:3202478629 msid:user1631016830@host-4d1d9022 webrtctransceiver0
        a=ssrc:3202478629 cname:user1631016830@host-4d1d9022
        a=ssrc:1332237338 msid:user1631016830@host-4d1d9022 webrtctransceiver0
        a=ssrc:1332237338 cname:user1631016830@host-4d1d9022
        a=fingerprint:sha-256 58:C0:92:F4:B0:C3:90:C0:1D:B2:63:7D:4A:81:1D:FF:32:7B:B5:F1:09:21:D1:E0:86:1A:7E:35:2A:BB:05:88
        a=rtcp-mux-only
        m=audio 0 UDP/TLS/RTP/SAVPF 111 98
        c=IN IP4 0.0.0.0
        a=setup:actpass
        a=ice-ufrag:J5O+a0p+azzP/u+aFqnbUFa0n1UrXerL
        a=ice-pwd:aoCVGJ4c6BTqV+YGL/G3mw4LjPgG5DGn
        a=bundle-only
        a=rtcp-mux
        a=rtcp-rsize
        a=sendrecv
        a=rtpmap:111 OPUS/48000/2
        a=rtcp-fb:111 nack
        a=rtcp-fb:111 transport-cc
        a=mid:audio
        a=extmap:9 urn:ietf:params:rtp-hdrext:sdes:mid
        a=fmtp:111 sprop-stereo=1;sprop-maxcapturerate=48000
        a=rtpmap:98 rtx/48000
        a=fmtp:98 apt=111
        a=ssrc-group:FID 2042034460 853245343
        a=ssrc:2042034460 msid:user1631016830@host-4d1d9022 webrtctransceiver1
        a=ssrc:2042034460 cname:user1631016830@host-4d1d9022
        a=ssrc:853245343 msid:user1631016830@host-4d1d9022 webrtctransceiver1
        a=ssrc:853245343 cname:user1631016830@host-4d1d9022
        a=fingerprint:sha-256 58:C0:92:F4:B0:C3:90:C0:1D:B2:63:7D:4A:81:1D:FF:32:7B:B5:F1:09:21:D1:E0:86:1A:7E:35:2A:BB:05:88
        a=rtcp-mux-only
        m=application 0 UDP/DTLS/SCTP webrtc-datachannel
        c=IN IP4 0.0.0.0
        a=setup:actpass
        a=ice-ufrag:J5O+a0p+azzP/u+aFqnbUFa0n1UrXerL
        a=ice-pwd:aoCVGJ4c6BTqV+YGL/G3mw4LjPgG5DGn
        a=bundle-only
        a=mid:application0
        a=sctp-port:5000
        a=fingerprint:sha-256 58:C0:92:F4:B0:C3:90:C0:1D:B2:63:7D:4A:81:1D:FF:32:7B:B5:F1:09:21:D1:E0:86:1A:7E:35:2A:BB:05:88
        """

    static let webrtcbinAnswer = """
        v=0
        o=- 7224901766902526329 0 IN IP4 0.0.0.0
        s=-
        t=0 0
        a=ice-options:trickle
        a=group:BUNDLE video audio application0
        m=video 9 UDP/TLS/RTP/SAVPF 96 97
        c=IN IP4 0.0.0.0
        a=ice-ufrag:1re1eqVMc/unSIiUme3HyxTJfMuOxbmx
        a=ice-pwd:MTS6MtY9GvogPbMhFQqfo+BkcDoGKLwE
        a=rtcp-mux
        a=mid:video
        a=setup:active
        a=rtpmap:96 VP8/90000
        a=rtcp-fb:96 nack
        a=rtcp-fb:96 nack pli
        a=rtcp-fb:96 ccm fir
        a=rtcp-fb:96 transport-cc
        a=rtpmap:97 rtx/90000
        a=fmtp:97 apt=96
        a=recvonly
        a=fingerprint:sha-256 58:C0:92:F4:B0:C3:90:C0:1D:B2:63:7D:4A:81:1D:FF:32:7B:B5:F1:09:21:D1:E0:86:1A:7E:35:2A:BB:05:88
        m=audio 9 UDP/TLS/RTP/SAVPF 111 98
        c=IN IP4 0.0.0.0
        a=ice-ufrag:1re1eqVMc/unSIiUme3HyxTJfMuOxbmx
        a=ice-pwd:MTS6MtY9GvogPbMhFQqfo+BkcDoGKLwE
        a=rtcp-mux
        a=mid:audio
        a=setup:active
        a=rtpmap:111 OPUS/48000/2
        a=rtcp-fb:111 nack
        a=rtcp-fb:111 transport-cc
        a=fmtp:111 sprop-stereo=1;sprop-maxcapturerate=48000
        a=rtpmap:98 rtx/48000
        a=fmtp:98 apt=111
        a=recvonly
        a=fingerprint:sha-256 58:C0:92:F4:B0:C3:90:C0:1D:B2:63:7D:4A:81:1D:FF:32:7B:B5:F1:09:21:D1:E0:86:1A:7E:35:2A:BB:05:88
        m=application 9 UDP/DTLS/SCTP webrtc-datachannel
        c=IN IP4 0.0.0.0
        a=ice-ufrag:1re1eqVMc/unSIiUme3HyxTJfMuOxbmx
        a=ice-pwd:MTS6MtY9GvogPbMhFQqfo+BkcDoGKLwE
        a=mid:application0
        a=setup:active
        a=sctp-port:5000
        a=fingerprint:sha-256 58:C0:92:F4:B0:C3:90:C0:1D:B2:63:7D:4A:81:1D:FF:32:7B:B5:F1:09:21:D1:E0:86:1A:7E:35:2A:BB:05:88
        """

    /// What webrtcbin sends survives SDP → Jingle → XML text → Jingle → SDP: every codec,
    /// parameter, feedback, extension, source, fingerprint, setup, ICE credential, MID,
    /// direction and the SCTP port (the lines that only say "bundled" are the exception).
    func testWebRTCBinsOfferAndAnswerRoundTrip() throws {
        for (sdp, role) in [(Self.webrtcbinOffer, Jingle.Role.initiator), (Self.webrtcbinAnswer, .responder)] {
            let crlf = sdp.replacingOccurrences(of: "\n", with: "\r\n")
            let element = try Jingle.element(
                action: role == .initiator ? "session-initiate" : "session-accept", sid: "s1",
                initiator: "a@b/c", responder: nil, sdp: crlf, role: role)
            let text = element.serialized()
            let back = try Jingle.sdp(from: try XML.parse(text), role: role)
            let original = sections(crlf), roundTripped = sections(back)
            XCTAssertEqual(original.count, roundTripped.count)
            let notCarried: (String) -> Bool = {
                $0.hasPrefix("m=") || $0 == "a=bundle-only" || $0 == "a=rtcp-mux-only" || $0.hasPrefix("c=") || $0 == "a=framerate:30"
            }
            for (a, b) in zip(original, roundTripped) {
                let missing = a.filter { !notCarried($0) }.subtracting(b)
                XCTAssertEqual(missing, [], "lost in the round trip")
                // Bundled sections had port 0; Jingle carries no port, and 9 is what browsers write.
                let m = try XCTUnwrap(a.first { $0.hasPrefix("m=") }).split(separator: " ")
                XCTAssertTrue(b.contains((["\(m[0]) 9"] + m.dropFirst(2)).joined(separator: " ")), "\(b)")
            }
            XCTAssertTrue(back.contains("a=group:BUNDLE video audio application0\r\n"))
        }
    }

    func testTrickledCandidatesRoundTrip() throws {
        for candidate in [
            "candidate:1 1 UDP 2015363327 127.0.0.1 43127 typ host generation 0",
            "candidate:2 1 UDP 1677721855 203.0.113.7 50000 typ srflx raddr 10.0.0.2 rport 43127 generation 0",
            "candidate:3 1 TCP 1010827519 127.0.0.1 9 typ host tcptype active generation 0"
        ] {
            let info = try Jingle.transportInfo(
                sid: "s1", initiator: "a@b/c", creator: .initiator, mid: "video",
                candidate: "a=" + candidate, ufrag: "u", pwd: "p")
            XCTAssertEqual(info[attribute: "action"], "transport-info")
            let found = Jingle.candidates(in: try XML.parse(info.serialized()))
            XCTAssertEqual(found.map(\.mid), ["video"])
            XCTAssertEqual(found.map(\.candidate), [candidate])
        }
        XCTAssertThrowsError(
            try Jingle.transportInfo(
                sid: "s", initiator: nil, creator: .initiator, mid: "0", candidate: "garbage",
                ufrag: nil, pwd: nil))
    }

    /// Descriptions that cannot be an SDP, or would smuggle lines into one, are refused with
    /// a reason; none traps, none yields an SDP with a line the peer did not mean.
    func testHostileDescriptionsAreRefused() throws {
        let transport = "<transport xmlns='urn:xmpp:jingle:transports:ice-udp:1' ufrag='u' pwd='p'/>"
        func initiate(_ contents: String) -> String {
            "<jingle xmlns='urn:xmpp:jingle:1' action='session-initiate' sid='s'>\(contents)</jingle>"
        }
        func video(_ payloads: String, transport t: String = transport) -> String {
            "<content creator='initiator' name='v'><description xmlns='urn:xmpp:jingle:apps:rtp:1' media='video'>\(payloads)</description>\(t)</content>"
        }
        let cases: [(String, String)] = [
            (initiate(""), "no content"),
            (initiate("<content creator='initiator' name='v'/>"), "no transport"),
            (
                initiate(
                    "<content name='v'><description xmlns='urn:xmpp:jingle:apps:rtp:1' media='smell'><payload-type id='96' name='X' clockrate='1'/></description>\(transport)</content>"
                ), "unknown media"
            ),
            (initiate(video("<payload-type id='500' name='VP8' clockrate='90000'/>")), "is not 0–127"),
            (initiate(video("<payload-type name='VP8' clockrate='90000'/>")), "is not 0–127"),
            (initiate(video("")), "offers no payload type"),
            (
                initiate(video("<payload-type id='96' name='VP8' clockrate='90000'><parameter name='x' value='1&#13;&#10;a=evil:1'/></payload-type>")),
                "line break"
            ),
            (initiate(video("<payload-type id='96' name='VP8&#10;a=evil' clockrate='90000'/>")), "line break"),
            (
                initiate(video("<payload-type id='96' name='VP8' clockrate='90000'/>", transport: "<transport xmlns='urn:xmpp:jingle:transports:raw-udp:1'/>")),
                "only the ICE-UDP transport"
            ),
            (
                initiate(
                    video(
                        "<payload-type id='96' name='VP8' clockrate='90000'/>",
                        transport: "<transport xmlns='urn:xmpp:jingle:transports:ice-udp:1' ufrag='u&#13;&#10;a=x'/>")), "line break"
            ),
            (
                initiate(
                    video(
                        "<payload-type id='96' name='VP8' clockrate='90000'/>",
                        transport:
                            "<transport xmlns='urn:xmpp:jingle:transports:ice-udp:1'><candidate foundation='1' component='1' protocol='udp' priority='1' ip='1.2.3.4' port='x' type='host'/></transport>"
                    )), "not a number"
            ),
            (initiate(String(repeating: video("<payload-type id='96' name='VP8' clockrate='90000'/>"), count: 65)), "at most 64"),
            (initiate(video(String(repeating: "<payload-type id='96' name='VP8' clockrate='90000'/>", count: 2))), "twice")
        ]
        for (text, reason) in cases {
            let element = try XML.parse(text)
            XCTAssertThrowsError(try Jingle.sdp(from: element, role: .initiator), reason) { error in
                XCTAssertTrue("\(error)".contains(reason), "\(reason): \(error)")
            }
        }
    }
}
