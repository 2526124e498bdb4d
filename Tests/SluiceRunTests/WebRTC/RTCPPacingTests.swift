import GStreamer
import SluiceSignalling
import SluiceTestSupport
import XCTest
@testable import SluiceRun

/// Only a peer that receives media, with transport-wide feedback or several streams, gets the
/// large RTCP allowance; a send-only one (a served viewer) keeps rtpsession's default, which
/// saved a third of a served viewer's CPU (docs/benchmarks.md, the fan-out to one `sluice load`
/// process).
final class RTCPPacingTests: XCTestCase {
    private func sdp(_ media: String) -> String {
        "v=0\r\no=- 1 0 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\n" + media
    }

    func testWhetherADescriptionMakesItsPeerAReceiver() {
        let sendOnly = sdp("m=video 9 UDP/TLS/RTP/SAVPF 96\r\na=mid:0\r\na=sendonly\r\n")
        let recvOnly = sdp("m=video 9 UDP/TLS/RTP/SAVPF 96\r\na=mid:0\r\na=recvonly\r\n")
        let both = sdp("m=audio 9 UDP/TLS/RTP/SAVPF 111\r\na=mid:0\r\na=sendrecv\r\n")
        let dataOnly = sdp("m=application 9 UDP/DTLS/SCTP webrtc-datachannel\r\na=mid:0\r\n")
        let rejected = sdp("m=video 0 UDP/TLS/RTP/SAVPF 96\r\na=mid:0\r\na=recvonly\r\n")
        // A served viewer: its own answer says sendonly, the viewer's offer recvonly.
        XCTAssertFalse(RTCPPacing.receivesMedia(by: sendOnly, local: true))
        XCTAssertFalse(RTCPPacing.receivesMedia(by: recvOnly, local: false))
        // A viewer or a WHIP server: the reverse.
        XCTAssertTrue(RTCPPacing.receivesMedia(by: recvOnly, local: true))
        XCTAssertTrue(RTCPPacing.receivesMedia(by: sendOnly, local: false))
        XCTAssertTrue(RTCPPacing.receivesMedia(by: both, local: true))
        XCTAssertTrue(RTCPPacing.receivesMedia(by: both, local: false))
        // A line with no direction is sendrecv (RFC 4566).
        XCTAssertTrue(RTCPPacing.receivesMedia(by: sdp("m=video 9 UDP/TLS/RTP/SAVPF 96\r\na=mid:0\r\n"), local: true))
        XCTAssertFalse(RTCPPacing.receivesMedia(by: dataOnly, local: true), "a data channel carries no RTP")
        XCTAssertFalse(RTCPPacing.receivesMedia(by: rejected, local: true), "a refused line carries nothing")
    }

    func testAReceiverNeedsTheLargeAllowanceOnlyForTransportWideFeedbackOrSeveralStreams() {
        let video = "m=video 9 UDP/TLS/RTP/SAVPF 96\r\na=mid:0\r\na=recvonly\r\n"
        let audio = "m=audio 9 UDP/TLS/RTP/SAVPF 111\r\na=mid:1\r\na=recvonly\r\n"
        let feedback = "a=rtcp-fb:96 transport-cc\r\n"
        let numbered = "a=extmap:3 \(RTPHeaderExtension.transportWideCC)\r\n"
        XCTAssertFalse(
            RTCPPacing.needsRaisedAllowance(by: sdp(video), local: true),
            "one stream, no transport-wide feedback: NACKs leave at once anyway")
        XCTAssertFalse(
            RTCPPacing.needsRaisedAllowance(by: sdp(video + feedback), local: true),
            "webrtcbin writes transport-cc into every video offer; without the extension there is no such feedback")
        XCTAssertTrue(RTCPPacing.needsRaisedAllowance(by: sdp(video + feedback + numbered), local: true))
        XCTAssertTrue(
            RTCPPacing.needsRaisedAllowance(by: sdp(video + audio), local: true),
            "audio and video: more than three members, NACKs wait for a report interval")
        XCTAssertFalse(
            RTCPPacing.needsRaisedAllowance(by: sdp(video + feedback + numbered), local: false),
            "a sender (the remote side says recvonly) keeps the default")
    }

    /// Negotiates a send-only VP8 sender with a receiver, the sender's RTP caps ending in
    /// `extraCaps`, and returns each side's `rtcp-fraction`s.
    private func negotiatedFractions(extraCaps: String) async throws -> (sent: [Double], received: [Double]) {
        let pipeline = Pipeline()
        let src = try Element.make("videotestsrc"), enc = try Element.make("vp8enc")
        let pay = try Element.make("rtpvp8pay"), rtpCaps = try Element.make("capsfilter")
        try src.set("is-live", true)
        try enc.set("deadline", 1)
        try rtpCaps.set("caps", fromString: EncoderPresets.rtpCaps(for: .vp8) + extraCaps)
        let sender = try Element.make("webrtcbin"), receiver = try Element.make("webrtcbin")
        try pipeline.add([src, enc, pay, rtpCaps, sender, receiver])
        try Element.link([src, enc, pay, rtpCaps])
        for bin in [sender, receiver] {
            try ICEAgent.addLocalAddresses(["127.0.0.1"], to: bin)
            ICEAgent.disableUPnP(on: bin)
        }
        let sink = try XCTUnwrap(sender.requestPad("sink_%u"))
        let transceiver = try XCTUnwrap(sink.objectProperty("transceiver", as: Object.self))
        try transceiver.set("direction", fromString: "sendonly")
        try rtpCaps.staticPad("src")!.link(sink)
        pipeline.setState(.playing)
        defer { pipeline.setState(.null) }

        let offerer = WebRTCPeer(sender, label: "sender"), answerer = WebRTCPeer(receiver, label: "receiver")
        let offer = try await offerer.offerWithCandidates()
        let answer = try await answerer.answer(offer: offer)
        try await offerer.setRemoteDescription(try SessionDescription(kind: .answer, sdp: answer))

        let fractions = { (bin: Element) -> [Double] in
            (bin.cast(to: Bin.self)?.descendants ?? []).filter { $0.factoryName == "rtpsession" }
                .compactMap { $0.get("rtcp-fraction", as: Double.self) }
        }
        return (fractions(sender), fractions(receiver))
    }

    func testASendOnlyPeerKeepsTheDefaultAllowanceAndItsReceiverGetsTheLargeOneForTransportWideFeedback() async throws {
        try requireLoopbackOnlyNetwork()
        let (sent, received) = try await negotiatedFractions(extraCaps: EncoderPresets.twccExtensionCaps())
        XCTAssertFalse(sent.isEmpty, "the sender has an RTP session")
        XCTAssertFalse(received.isEmpty, "the receiver has an RTP session")
        XCTAssertTrue(sent.allSatisfy { $0 != RTCPPacing.rtcpBitsPerSecond }, "a send-only peer keeps the default: \(sent)")
        XCTAssertTrue(received.allSatisfy { $0 == RTCPPacing.rtcpBitsPerSecond }, "the receiver sends feedback often: \(received)")
    }

    func testAReceiverOfOneStreamWithoutTransportWideFeedbackKeepsTheDefault() async throws {
        try requireLoopbackOnlyNetwork()
        let (_, received) = try await negotiatedFractions(extraCaps: "")
        XCTAssertFalse(received.isEmpty, "the receiver has an RTP session")
        XCTAssertTrue(received.allSatisfy { $0 != RTCPPacing.rtcpBitsPerSecond }, "nothing asks for more: \(received)")
    }
}
