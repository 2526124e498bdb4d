import SluiceSignalling
import XCTest

/// What a peer takes of Sluice's simulcast, read from its description, and the answer Sluice
/// gives when it is the one answering.
final class SimulcastAcceptanceTests: XCTestCase {
    /// A description with one video section (MID `video`) whose last lines are `lines`.
    private func description(_ lines: [String], mid: String = "video") -> String {
        ([
            "v=0", "o=- 1 2 IN IP4 127.0.0.1", "s=-", "t=0 0",
            "m=audio 9 UDP/TLS/RTP/SAVPF 111", "a=mid:audio", "a=rtpmap:111 opus/48000/2",
            "m=video 9 UDP/TLS/RTP/SAVPF 96", "a=mid:\(mid)", "a=rtpmap:96 VP8/90000"
        ] + lines + [""]).joined(separator: "\r\n")
    }

    func testAPeerWithoutSimulcastTakesNoLayer() {
        XCTAssertEqual(SimulcastAcceptance.taken(of: ["h", "m", "l"], in: description(["a=recvonly"]), mid: "video"), [])
    }

    func testTheLayersListedInRecvAreTakenInTheOffersOrder() {
        let answer = description(["a=rid:l recv", "a=rid:h recv", "a=simulcast:recv l;h"])
        XCTAssertEqual(SimulcastAcceptance.taken(of: ["h", "m", "l"], in: answer, mid: "video"), ["h", "l"])
    }

    func testPausedLayersAndUnknownOnesAreNotTaken() {
        let answer = description(["a=simulcast:recv ~h;m,x;zz"])
        XCTAssertEqual(SimulcastAcceptance.taken(of: ["h", "m", "l"], in: answer, mid: "video"), ["m"])
    }

    /// A peer that itself sends simulcast lists `send` first: only its `recv` list counts.
    func testOnlyTheRecvDirectionCounts() {
        XCTAssertEqual(SimulcastAcceptance.taken(of: ["h", "m"], in: description(["a=simulcast:send a;b"]), mid: "video"), [])
        XCTAssertEqual(SimulcastAcceptance.taken(of: ["h", "m"], in: description(["a=simulcast:send a;b recv m"]), mid: "video"), ["m"])
    }

    /// A browser's offer names its sections `0`, `1`: the first video section is read.
    func testTheFirstVideoSectionIsReadWhenNoneHasTheMID() {
        let offer = description(["a=simulcast:recv h;m"], mid: "1")
        XCTAssertEqual(SimulcastAcceptance.taken(of: ["h", "m", "l"], in: offer, mid: "video"), ["h", "m"])
    }

    /// webrtcbin's answer names every layer and extensions the offer never offered; the peer
    /// reads neither when its offer took one stream.
    func testAnAnswerToAnOfferWithoutSimulcastHasNoneAndOnlyOfferedExtensions() {
        let offer = description(["a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01", "a=sendrecv"], mid: "1")
        let answer = description(
            [
                "a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01",
                "a=extmap:9 urn:ietf:params:rtp-hdrext:sdes:mid", "a=extmap:10 urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id",
                "a=rid:h send", "a=rid:m send", "a=rid:l send", "a=simulcast:send h;m;l", "a=sendrecv"
            ], mid: "1")
        let sent = SimulcastAcceptance.answer(answer, to: offer, taking: ["h"], mid: nil)
        XCTAssertFalse(sent.contains("a=rid:"), sent)
        XCTAssertFalse(sent.contains("a=simulcast:"), sent)
        XCTAssertFalse(sent.contains("sdes:mid"), sent)
        XCTAssertTrue(sent.contains("a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"), sent)
        XCTAssertTrue(sent.contains("a=sendrecv\r\n"), sent)
        XCTAssertTrue(sent.contains("a=rtpmap:111 opus/48000/2"), "the other sections are untouched: \(sent)")
    }

    func testAnAnswerToAnOfferTakingSomeLayersNamesThoseOnly() {
        let offer = description(["a=extmap:10 urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id", "a=simulcast:recv h;l"])
        let answer = description([
            "a=extmap:10 urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id", "a=rid:h send", "a=rid:m send", "a=rid:l send", "a=simulcast:send h;m;l"
        ])
        let sent = SimulcastAcceptance.answer(answer, to: offer, taking: ["h", "l"], mid: nil)
        XCTAssertTrue(sent.contains("a=rid:h send\r\na=rid:l send\r\na=simulcast:send h;l\r\n"), sent)
        XCTAssertFalse(sent.contains("a=rid:m"), sent)
        XCTAssertTrue(sent.contains("rtp-stream-id"), sent)
    }

    /// Pion takes a section's layers as one track only when the section names it.
    func testAnOfferSendingSimulcastNamesItsTrackOnce() {
        let offer = description(["a=rid:h send", "a=rid:m send", "a=simulcast:send h;m"])
        let named = SimulcastOffer.namingTrack(in: offer, stream: "sluice", track: "video")
        XCTAssertTrue(named.contains("a=msid:sluice video\r\na=rid:h send"), named)
        XCTAssertEqual(SimulcastOffer.namingTrack(in: named, stream: "x", track: "y"), named, "a section that names its track keeps it")
        let plain = description(["a=sendrecv"])
        XCTAssertEqual(SimulcastOffer.namingTrack(in: plain, stream: "sluice", track: "video"), plain, "no simulcast: untouched")
    }
}
