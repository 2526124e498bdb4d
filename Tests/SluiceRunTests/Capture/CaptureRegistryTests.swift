import GStreamer
import SluiceTestSupport
import SluiceRunTestSupport
import XCTest
import SluiceRun

/// A capture kind is one type plus its registry line: a kind written outside the library
/// (`ShadeCapture`, one file) is decoded, checked and run, and its picture arrives.
final class CaptureRegistryTests: XCTestCase {
    override func setUp() {
        _ = TestFilters.registered
        CaptureRegistry.register(ShadeCapture())
    }
    override func tearDown() { CaptureRegistry.unregister("shade") }

    private func file(_ capture: String, media: String = "video") -> String {
        """
        transport: { ice: { addresses: [127.0.0.1] } }
        send:
          \(media):
            capture: \(capture)
        """
    }

    func testANewCaptureKindDecodesItsOwnKeys() throws {
        let spec = try XCTUnwrap(specLoadValid(file("{ kind: shade, shade: white, width: 160, height: 120 }")))
        XCTAssertEqual(spec.send?.video?.capture.kind, .shade("white"))
        XCTAssertEqual(spec.send?.video?.capture.width, 160)

        let wrong = try XCTUnwrap(specLoadErrors(file("{ kind: shade, shade: grey }")))
        XCTAssertTrue(wrong.description.contains("test.yaml:4:36: unknown shade 'grey'"), wrong.description)
        let audio = try XCTUnwrap(specLoadErrors(file("{ kind: shade }", media: "audio")))
        XCTAssertTrue(audio.description.contains("shade capture draws pictures: it is video-only"), audio.description)
        let other = try XCTUnwrap(specLoadErrors(file("{ kind: test, shade: white }")))
        XCTAssertTrue(other.description.contains("'shade' only applies to kind shade"), other.description)
        let missing = try XCTUnwrap(specLoadErrors(file("{ width: 320 }")))
        XCTAssertTrue(
            missing.description.contains("capture needs a 'kind' (test, camera, file, swift, rtsp, srt, rtmp, uri, recording or shade)"), missing.description)
    }

    func testANewCaptureKindRunsAndItsPictureArrives() async throws {
        try requireLoopbackOnlyNetwork()
        for (shade, luma) in [("white", 235.0), ("black", 16.0)] {
            let yaml =
                file("{ kind: shade, shade: \(shade), width: 160, height: 120, fps: 30 }")
                + "\n    encode: { codec: vp8, bitrate: 300 }\nreceive:\n  video:\n    filters: [ { filter: test-luma-probe } ]\n"
            let spec = try XCTUnwrap(specLoadValid(yaml))
            LumaProbe.lastMean = nil
            let summary = try await PipelineRun(spec: spec).run(options: RunOptions(duration: 2))
            XCTAssertGreaterThan(summary.receive.video?.frames ?? 0, 20, shade)
            XCTAssertEqual(try XCTUnwrap(LumaProbe.lastMean), luma, accuracy: 6, "the received picture is \(shade)")
        }
    }
}
