import GStreamer
import Synchronization
import SluiceTestSupport
import XCTest
@testable import SluiceRun

/// The one-round-trip exchange WHIP, WHEP and the camera API use: a complete offer and a
/// complete answer, candidates only inside the SDP (no trickle at all).
final class NonTrickleTests: XCTestCase {
    func testCompleteOfferAndAnswerConnectWithoutTrickle() async throws {
        try requireLoopbackOnlyNetwork()
        let pipeline = Pipeline()
        let src = try Element.make("videotestsrc"), caps = try Element.make("capsfilter")
        let enc = try Element.make("vp8enc"), pay = try Element.make("rtpvp8pay"), rtpCaps = try Element.make("capsfilter")
        try src.set("is-live", true)
        try caps.set("caps", fromString: "video/x-raw,width=160,height=120,framerate=30/1")
        try enc.set("deadline", 1)
        try rtpCaps.set("caps", fromString: EncoderPresets.rtpCaps(for: .vp8))
        let a = try Element.make("webrtcbin"), b = try Element.make("webrtcbin")
        try pipeline.add([src, caps, enc, pay, rtpCaps, a, b])
        try Element.link([src, caps, enc, pay, rtpCaps])
        for bin in [a, b] {
            try ICEAgent.addLocalAddresses(["127.0.0.1"], to: bin)
            ICEAgent.disableUPnP(on: bin)
        }
        try rtpCaps.staticPad("src")!.link(try XCTUnwrap(a.requestPad("sink_%u")))
        let received = Atomic<Int>(0)
        let sinks = Mutex<[Element]>([])
        b.connect("pad-added") { [pipeline] (args: borrowing SignalArguments) in
            guard let pad = args.object(1, as: Pad.self), pad.direction == .src, let sink = try? Element.make("fakesink") else { return }
            try? pipeline.add(sink)
            sink.syncStateWithParent()
            if let sp = sink.staticPad("sink") { try? pad.link(sp) }
            sink.staticPad("sink")?.addProbe { (_: borrowing Pad.ProbeInfo) in
                received.add(1, ordering: .relaxed); return .ok
            }
            sinks.withLock { $0.append(sink) }
        }
        pipeline.setState(.playing)
        defer { pipeline.setState(.null) }

        let offerer = WebRTCPeer(a, label: "publisher"), answerer = WebRTCPeer(b, label: "server")
        let offer = try await offerer.offerWithCandidates()
        XCTAssertTrue(offer.contains("a=candidate:"), "the offer carries its candidates")
        XCTAssertTrue(offer.contains("a=end-of-candidates"))
        let answer = try await answerer.answer(offer: offer)
        XCTAssertTrue(answer.contains("a=candidate:"), "the answer carries its candidates")
        try await offerer.setRemoteDescription(try SessionDescription(kind: .answer, sdp: answer))

        let connected = await offerer.wait(timeout: 10) { $0.iceConnected }
        XCTAssertTrue(connected, "ICE connected from SDP candidates alone")
        let deadline = ContinuousClock.now + .seconds(10)
        while received.load(ordering: .relaxed) < 10 && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        XCTAssertGreaterThanOrEqual(received.load(ordering: .relaxed), 10, "media flows")
    }

    func testCandidatesAreWrittenIntoTheirSections() {
        let sdp = "v=0\r\no=- 1 0 IN IP4 0.0.0.0\r\ns=-\r\nt=0 0\r\nm=video 9 X 96\r\na=mid:0\r\nm=audio 9 X 111\r\na=mid:1\r\n"
        let out = WebRTCPeer.insert(
            [
                ICECandidate(mlineIndex: 1, candidate: "candidate:2 1 UDP 1 127.0.0.1 6000 typ host"),
                ICECandidate(mlineIndex: 0, candidate: "candidate:1 1 UDP 1 127.0.0.1 5000 typ host")
            ],
            into: sdp, complete: true)
        let lines = out.components(separatedBy: "\r\n")
        let video = lines.firstIndex(of: "m=video 9 X 96")!, audio = lines.firstIndex(of: "m=audio 9 X 111")!
        let c1 = lines.firstIndex(of: "a=candidate:1 1 UDP 1 127.0.0.1 5000 typ host")!
        let c2 = lines.firstIndex(of: "a=candidate:2 1 UDP 1 127.0.0.1 6000 typ host")!
        XCTAssertTrue(video < c1 && c1 < audio && audio < c2)
        XCTAssertEqual(lines.filter { $0 == "a=end-of-candidates" }.count, 2)
    }
}
