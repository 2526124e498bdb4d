import SluiceRunTestSupport
import XCTest
@testable import SluiceRun

/// `capture: {kind: srt | rtmp | uri}` in the file: what is decoded, what is refused with
/// FILE:LINE:COL, and how a parsed stream is named and matched to a codec.
final class ParsedCaptureTests: XCTestCase {
    private func file(_ capture: String, encode: String = "none") -> String {
        """
        transport: { kind: none }
        send:
          video:
            capture: \(capture)
            encode: \(encode)
        """
    }

    func testSRTCallsAHostAndListensWithoutOne() throws {
        let caller = try XCTUnwrap(specLoadValid(file("{ kind: srt, url: 'srt://enc:9000', latency: 80, streamid: cam1 }")))
        let settings = try XCTUnwrap(caller.send?.video?.capture.kind.settings(as: SRTCapture.Settings.self))
        XCTAssertEqual(settings, SRTCapture.Settings(url: "srt://enc:9000", mode: .caller, latencyMs: 80, streamID: "cam1"))
        XCTAssertEqual(caller.send?.video?.encode.passthrough, true)
        let listener = try XCTUnwrap(specLoadValid(file("{ kind: srt, url: 'srt://:9000', passphrase: 'correct-horse' }")))
        let l = try XCTUnwrap(listener.send?.video?.capture.kind.settings(as: SRTCapture.Settings.self))
        XCTAssertEqual(l.mode, .listener, "no host: Sluice listens")
        XCTAssertEqual(l.passphrase, "correct-horse")
        XCTAssertEqual(l.latencyMs, 125, "SRT's own default")
        XCTAssertEqual(SRTCapture.host(of: "srt://[::1]:9000"), "::1")
        XCTAssertEqual(SRTCapture.host(of: "srt://enc.local:9000?streamid=x"), "enc.local")
    }

    func testRTMPAndURIKeepTheirURL() throws {
        let rtmp = try XCTUnwrap(specLoadValid(file("{ kind: rtmp, url: 'rtmp://server/live/cam' }")))
        XCTAssertEqual(rtmp.send?.video?.capture.kind, .rtmp(url: "rtmp://server/live/cam"))
        let hls = try XCTUnwrap(specLoadValid(file("{ kind: uri, url: 'http://server/hls/index.m3u8' }", encode: "{ codec: vp8 }")))
        XCTAssertEqual(hls.send?.video?.capture.kind, .uri(url: "http://server/hls/index.m3u8"))
        XCTAssertEqual(hls.send?.video?.encode.passthrough, false, "decoded and encoded as VP8")
        XCTAssertFalse(URICapture().isLive(try XCTUnwrap(hls.send?.video?.capture)), "paced by clocksync")
    }

    func testMistakesAreReportedWhereTheyAre() throws {
        let cases: [(capture: String, expected: String)] = [
            ("{ kind: srt }", "test.yaml:4:5: srt capture needs 'url', e.g. srt://encoder.local:9000"),
            ("{ kind: srt, url: 'udp://enc:9000' }", "test.yaml:4:32: 'udp://enc:9000' is not a URL srt capture reads (srt://)"),
            ("{ kind: srt, url: 'srt://:9000', mode: caller }", "test.yaml:4:5: an SRT caller needs a host to call"),
            ("{ kind: srt, url: 'srt://e:1', mode: push }", "unknown SRT mode 'push'"),
            ("{ kind: srt, url: 'srt://e:1', passphrase: short }", "test.yaml:4:57: an SRT passphrase has 10 to 79 characters, this one 5"),
            ("{ kind: srt, url: 'srt://e:1', latency: -1 }", "'latency' must be between 0 and 10000"),
            ("{ kind: rtmp, url: 'rtmp://server' }", "test.yaml:4:5: 'rtmp://server' names no application and stream"),
            ("{ kind: rtmp, url: 'rtsp://server/live/x' }", "is not a URL rtmp capture reads (rtmp://, rtmps://)"),
            ("{ kind: uri, url: 'index.m3u8' }", "test.yaml:4:32: 'index.m3u8' is not a URL uri capture reads (http://, https://, file://)"),
            (
                "{ kind: rtmp, url: 'rtmp://s/live/x', transport: tcp }",
                "test.yaml:4:52: unknown key 'transport' in capture; 'transport' only applies to kind rtsp"
            )
        ]
        for c in cases {
            let errors = try XCTUnwrap(specLoadErrors(file(c.capture)), c.capture)
            XCTAssertTrue(errors.description.contains(c.expected), "\(c.capture): \(errors.description)")
        }
    }

    func testAnSRTPassphraseNeverShowsInMessages() throws {
        let spec = try XCTUnwrap(specLoadValid(file("{ kind: srt, url: 'srt://enc:9000', passphrase: 'correct-horse' }")))
        let identity = SRTCapture().identity(of: try XCTUnwrap(spec.send?.video?.capture))
        XCTAssertEqual(identity.label, "srt caller srt://enc:9000")
        XCTAssertEqual(identity.secret, "correct-horse")
        XCTAssertFalse(identity.key.contains("correct-horse"))
    }
}
