import SluiceSignalling
import XCTest

/// An offer's audio sections lose the RTX SSRC Chromium refuses; video keeps its group.
final class AudioSSRCGroupTests: XCTestCase {
    /// The shape of a webrtcbin 1.22 sendrecv offer with NACK on (as Chromium refused it).
    private let offer = [
        "v=0", "o=- 1 0 IN IP4 0.0.0.0", "s=-", "t=0 0", "a=group:BUNDLE video0 audio",
        "m=video 9 UDP/TLS/RTP/SAVPF 96 97", "a=mid:video0", "a=sendrecv", "a=rtpmap:96 VP8/90000",
        "a=rtpmap:97 rtx/90000", "a=fmtp:97 apt=96", "a=ssrc-group:FID 10 11", "a=ssrc:10 cname:x", "a=ssrc:11 cname:x",
        "m=audio 0 UDP/TLS/RTP/SAVPF 111 98", "a=mid:audio", "a=sendrecv", "a=rtpmap:111 OPUS/48000/2",
        "a=rtpmap:98 rtx/48000", "a=fmtp:98 apt=111", "a=ssrc-group:FID 3207503612 124994945",
        "a=ssrc:3207503612 msid:user webrtctransceiver1", "a=ssrc:3207503612 cname:user",
        "a=ssrc:124994945 msid:user webrtctransceiver1", "a=ssrc:124994945 cname:user", ""
    ].joined(separator: "\r\n")

    func testAudioKeepsOneSSRCAndItsRTXFormatWhileVideoKeepsItsGroup() {
        let out = AudioSSRCGroup.removing(from: offer)
        let audio = String(out[out.range(of: "m=audio")!.lowerBound...])
        XCTAssertFalse(audio.contains("ssrc-group"), out)
        XCTAssertFalse(audio.contains("a=ssrc:124994945"), "the RTX SSRC's lines go: \(out)")
        XCTAssertTrue(audio.contains("a=ssrc:3207503612 msid:user webrtctransceiver1\r\na=ssrc:3207503612 cname:user\r\n"), out)
        XCTAssertTrue(audio.contains("a=rtpmap:98 rtx/48000\r\na=fmtp:98 apt=111"), "the RTX format stays: \(out)")
        XCTAssertTrue(out.contains("a=ssrc-group:FID 10 11\r\na=ssrc:10 cname:x\r\na=ssrc:11 cname:x\r\n"), "video keeps its group: \(out)")
        XCTAssertTrue(out.hasSuffix("a=ssrc:3207503612 cname:user\r\n"), "the final newline stays")
        XCTAssertEqual(AudioSSRCGroup.removing(from: out), out, "an offer without audio groups is unchanged")
    }
}
