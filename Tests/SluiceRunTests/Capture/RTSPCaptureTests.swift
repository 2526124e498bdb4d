import SluiceRunTestSupport
import XCTest
@testable import SluiceRun

/// `capture: {kind: rtsp}` and passthrough in the file: what is decoded, and what is refused
/// with FILE:LINE:COL.
final class RTSPCaptureTests: XCTestCase {
    private func file(_ capture: String, encode: String = "none", filters: String = "") -> String {
        """
        transport: { kind: none }
        send:
          video:
            capture: \(capture)
            encode: \(encode)\(filters)
        """
    }

    func testTheCameraAndPassthroughAreDecoded() throws {
        let spec = try XCTUnwrap(specLoadValid(file("{ kind: rtsp, url: 'rtsp://cam:8554/s', transport: udp, latency: 30 }")))
        let video = try XCTUnwrap(spec.send?.video)
        XCTAssertEqual(video.capture.kind, .rtsp(url: "rtsp://cam:8554/s", transport: .udp, latencyMs: 30))
        XCTAssertTrue(video.encode.passthrough)
        XCTAssertEqual(video.encode.codec, .h264, "encode: none means the camera's usual H.264")
        let vp8 = try XCTUnwrap(specLoadValid(file("{ kind: rtsp, url: 'rtsp://cam/s' }", encode: "{ codec: vp8, passthrough: true }")))
        XCTAssertEqual(vp8.send?.video?.encode.codec, .vp8)
        XCTAssertEqual(vp8.send?.video?.capture.kind, .rtsp(url: "rtsp://cam/s"), "defaults: transport auto, latency 100 ms")
        let decoded = try XCTUnwrap(specLoadValid(file("{ kind: rtsp, url: 'rtsp://cam/s' }", encode: "{ codec: vp8 }")))
        XCTAssertEqual(decoded.send?.video?.encode.passthrough, false)
    }

    func testMistakesAreReportedWhereTheyAre() throws {
        let cases: [(capture: String, encode: String, filters: String, expected: String)] = [
            ("{ kind: rtsp }", "none", "", "test.yaml:4:5: rtsp capture needs 'url'"),
            ("{ kind: rtsp, url: 'http://cam/s' }", "none", "", "test.yaml:4:33: 'http://cam/s' is not a URL rtsp capture reads (rtsp://, rtsps://"),
            ("{ kind: rtsp, url: 'rtsp://cam/s', transport: quic }", "none", "", "unknown RTSP transport 'quic'"),
            ("{ kind: rtsp, url: 'rtsp://cam/s', latency: 99999 }", "none", "", "test.yaml:4:58: 'latency' must be between 0 and 10000"),
            (
                "{ kind: test }", "none", "",
                "test.yaml:5:5: capture kind 'test' makes raw frames, so there is nothing encoded to pass through; pass through only from a source that is already encoded (rtsp, srt, rtmp, uri or recording)"
            ),
            (
                "{ kind: rtsp, url: 'rtsp://cam/s' }", "{ passthrough: true, bitrate: 900 }", "",
                "test.yaml:5:34: 'bitrate' sets up the encoder, and passthrough has none"
            ),
            (
                "{ kind: rtsp, url: 'rtsp://cam/s' }", "none", "\n    filters: [ { filter: pixelate } ]",
                "test.yaml:6:5: filters work on decoded frames, and passthrough decodes nothing"
            )
        ]
        for c in cases {
            let errors = try XCTUnwrap(specLoadErrors(file(c.capture, encode: c.encode, filters: c.filters)), c.capture)
            XCTAssertTrue(errors.description.contains(c.expected), "\(c.capture) \(c.encode): \(errors.description)")
        }
    }

    /// `passthrough: auto`: passthrough, H.264 by default, noted where it was written; for
    /// video (H.264 or VP8 cameras), and only served.
    func testPassthroughAutoIsServedVideoOnly() throws {
        let served = file("{ kind: rtsp, url: 'rtsp://cam/s' }", encode: "{ passthrough: auto }")
            .replacingOccurrences(of: "kind: none", with: "kind: server")
        let spec = try XCTUnwrap(specLoadValid(served))
        let encode = try XCTUnwrap(spec.send?.video?.encode)
        XCTAssertTrue(encode.passthrough)
        XCTAssertEqual(encode.codec, .h264, "auto is about H.264's profiles: H.264 unless written")
        XCTAssertEqual(encode.transcodeForViewers, specLoc(5, 28))
        XCTAssertNil(try XCTUnwrap(specLoadValid(file("{ kind: rtsp, url: 'rtsp://cam/s' }"))).send?.video?.encode.transcodeForViewers)
        XCTAssertNotNil(specLoadValid(try String(contentsOfFile: "Pipelines/rtsp-camera-any-viewer.yaml", encoding: .utf8)))

        let vp8 = try XCTUnwrap(
            specLoadValid(
                file("{ kind: rtsp, url: 'rtsp://cam/s' }", encode: "{ codec: vp8, passthrough: auto }")
                    .replacingOccurrences(of: "kind: none", with: "kind: server")))
        XCTAssertEqual(vp8.send?.video?.encode.codec, .vp8, "a VP8 camera too: H.264-only viewers get it encoded again")
        XCTAssertEqual(encode.transcodeKbps, 2000, "the re-encoding's rate unless written")
        let rated = file("{ kind: rtsp, url: 'rtsp://cam/s' }", encode: "{ passthrough: auto, bitrate: 1200 }")
            .replacingOccurrences(of: "kind: none", with: "kind: server")
        XCTAssertEqual(try XCTUnwrap(specLoadValid(rated)).send?.video?.encode.transcodeKbps, 1200, "'bitrate' sets it")
        let adaptive = try XCTUnwrap(
            specLoadErrors(
                file("{ kind: rtsp, url: 'rtsp://cam/s' }", encode: "{ passthrough: auto, bitrate: { min: 300, max: 2000 } }")
                    .replacingOccurrences(of: "kind: none", with: "kind: server")))
        XCTAssertTrue(adaptive.description.contains("test.yaml:5:43: with 'passthrough: auto', 'bitrate' is the one rate"), adaptive.description)
        let plain = try XCTUnwrap(specLoadErrors(file("{ kind: rtsp, url: 'rtsp://cam/s' }", encode: "{ passthrough: true, bitrate: 1200 }")))
        XCTAssertTrue(plain.description.contains("'bitrate' sets up the encoder, and passthrough has none"), plain.description)
        let audio = try XCTUnwrap(
            specLoadErrors(
                file("{ kind: rtsp, url: 'rtsp://cam/s' }", encode: "{ passthrough: auto }")
                    .replacingOccurrences(of: "kind: none", with: "kind: server").replacingOccurrences(of: "  video:", with: "  audio:")))
        XCTAssertTrue(audio.description.contains("test.yaml:5:28: 'passthrough: auto' encodes the source again"), audio.description)
        XCTAssertTrue(audio.description.contains("it is for video"), audio.description)
        let run = try XCTUnwrap(specLoadErrors(file("{ kind: rtsp, url: 'rtsp://cam/s' }", encode: "{ passthrough: auto }")))
        XCTAssertTrue(run.description.contains("test.yaml:5:28: 'passthrough: auto' serves each WHEP viewer"), run.description)
        XCTAssertTrue(run.description.contains("set transport kind 'server'"), run.description)
    }
}
