import SluiceRunTestSupport
import XCTest
@testable import SluiceRun

/// `capture.fallback` in the file: the words and mappings it takes, and mistakes reported
/// with FILE:LINE:COL.
final class FallbackSpecTests: XCTestCase {
    private func file(_ video: String, audio: String = "{ kind: rtsp, url: 'rtsp://cam/s' }") -> String {
        """
        transport: { kind: none }
        send:
          video:
            capture: \(video)
            encode: none
          audio:
            capture: \(audio)
            encode: none
        """
    }

    func testTheFallbackForms() throws {
        let cam = "kind: rtsp, url: 'rtsp://cam/s'"
        let slate = try XCTUnwrap(specLoadValid(file("{ \(cam), fallback: slate }", audio: "{ \(cam), fallback: silence }")))
        XCTAssertEqual(slate.send?.video?.capture.fallback?.content, .pattern("smpte"), "slate: colour bars")
        XCTAssertEqual(slate.send?.video?.capture.fallback?.afterSeconds, 1, "on air after 1 s by default")
        XCTAssertEqual(slate.send?.audio?.capture.fallback?.content, .silence)
        let black = try XCTUnwrap(specLoadValid(file("{ \(cam), fallback: { pattern: black, after: 500ms } }")))
        XCTAssertEqual(black.send?.video?.capture.fallback?.content, .pattern("black"))
        XCTAssertEqual(black.send?.video?.capture.fallback?.afterSeconds, 0.5)
        let image = FileManager.default.temporaryDirectory.appendingPathComponent("fallback-\(UUID().uuidString).png")
        try Data([0x89, 0x50, 0x4e, 0x47]).write(to: image)
        defer { try? FileManager.default.removeItem(at: image) }
        let picture = try XCTUnwrap(specLoadValid(file("{ \(cam), fallback: { image: '\(image.path)' } }")))
        XCTAssertEqual(picture.send?.video?.capture.fallback?.content, .image(path: image.path))
        let none = try XCTUnwrap(specLoadValid(file("{ \(cam) }")))
        XCTAssertNil(none.send?.video?.capture.fallback, "no fallback unless declared: viewers keep the last picture")
        let card = try XCTUnwrap(specLoadValid(file("{ \(cam), fallback: { text: 'Camera 3 is offline' } }")))
        XCTAssertEqual(card.send?.video?.capture.fallback?.content, .pattern("smpte"), "text on the slate")
        XCTAssertEqual(card.send?.video?.capture.fallback?.text, "Camera 3 is offline")
        XCTAssertTrue(FallbackSlate.requiredElements(try XCTUnwrap(card.send?.video?.capture.fallback), media: .video, codec: nil).contains("sluice-text"))
        let srt = try XCTUnwrap(specLoadValid(file("{ kind: srt, url: 'srt://:9000', fallback: white }")))
        XCTAssertEqual(srt.send?.video?.capture.fallback?.content, .pattern("white"))
    }

    func testMistakesAreReportedWhereTheyAre() throws {
        let cam = "kind: rtsp, url: 'rtsp://cam/s'"
        let cases: [(video: String, audio: String?, expected: String)] = [
            ("{ \(cam), fallback: slat }", nil, "test.yaml:4:59: unknown fallback 'slat'; write slate, a test pattern"),
            ("{ \(cam), fallback: slat }", nil, "did you mean 'slate'?"),
            ("{ \(cam) }", "{ \(cam), fallback: beep }", "test.yaml:7:59: unknown audio fallback 'beep'; audio falls back to silence"),
            ("{ \(cam), fallback: { after: 0 } }", nil, "test.yaml:4:68: invalid fallback delay '0'; write seconds without media from 0.1 to 60"),
            ("{ \(cam), fallback: { image: nothere.png } }", nil, "test.yaml:4:68: fallback image 'nothere.png' cannot be read"),
            ("{ \(cam), fallback: { image: slate.gif } }", nil, "fallback image 'slate.gif' must be a .png, .jpg or .jpeg file"),
            ("{ \(cam), fallback: { pattern: black, image: a.png } }", nil, "fallback has both 'pattern' and 'image'; keep one of them"),
            (
                "{ \(cam), fallback: { colour: red } }", nil,
                "test.yaml:4:61: unknown key 'colour' in capture.fallback; valid keys are pattern, image, text, after"
            ),
            ("{ \(cam), fallback: { text: '\(String(repeating: "x", count: 201))' } }", nil, "fallback text is 201 characters long; write at most 200"),
            ("{ \(cam) }", "{ \(cam), fallback: { text: hello } }", "test.yaml:7:61: unknown key 'text' in capture.fallback; valid keys are after"),
            (
                "{ kind: test, fallback: slate }", nil,
                "test.yaml:4:28: unknown key 'fallback' in capture; 'fallback' only applies to live network sources that can go away (kind rtsp, srt or rtmp)"
            )
        ]
        for c in cases {
            let errors = try XCTUnwrap(specLoadErrors(file(c.video, audio: c.audio ?? "{ \(cam) }")), c.video)
            XCTAssertTrue(errors.description.contains(c.expected), "\(c.video): \(errors.description)")
        }
    }

    func testAFramerateThatSaysNothingIsLeftToTheBranch() {
        XCTAssertEqual(FallbackSlate.framerate("25/1"), "25/1")
        XCTAssertNil(FallbackSlate.framerate("0/1"), "a depayloader's 0/1 says nothing")
        XCTAssertNil(FallbackSlate.framerate(nil))
    }
}
