import Foundation
import SluiceRun
import SluiceRunTestSupport
import XCTest

/// `encode.renditions`: a valid ladder, and each absurd one with its FILE:LINE:COL error.
final class RenditionSpecTests: XCTestCase {
    private func file(
        _ renditions: String, encodeExtra: String = "", transport: String = "server",
        capture: String = "{kind: test, width: 1280, height: 720, fps: 30}"
    ) -> String {
        """
        transport: {kind: \(transport)}
        send:
          video:
            capture: \(capture)
            encode:
              codec: h264\(encodeExtra)
              renditions:
        \(renditions)
        """
    }

    func testALadderLoadsBestFirstWithItsStartRung() throws {
        let spec = try XCTUnwrap(
            specLoadValid(
                file(
                    """
                            - {width: 1280, height: 720, bitrate: 2.5M}
                            - {name: sd, width: 854, height: 480, bitrate: 1000, start: true}
                            - {width: 426, height: 240, fps: 15, bitrate: 300k}
                    """)))
        let enc = try XCTUnwrap(spec.send?.video?.encode)
        XCTAssertEqual(enc.renditions.map(\.name), ["720p", "sd", "240p"])
        XCTAssertEqual(enc.renditions.map(\.bitrateKbps), [2500, 1000, 300])
        XCTAssertEqual(enc.renditions.map(\.fps), [nil, nil, 15])
        XCTAssertEqual(enc.startRendition, 1)
        XCTAssertEqual(enc.bitrateKbps, 1000, "the stream's nominal rate is its start rung's")
        XCTAssertEqual(enc.renditions[1].location, specLoc(9, 11))
        XCTAssertNotNil(
            specLoadValid(
                try String(contentsOfFile: "Pipelines/serve-ladder.yaml", encoding: .utf8),
                file: "Pipelines/serve-ladder.yaml"))
    }

    private func expect(_ yaml: String, at line: Int, _ column: Int, _ message: String, testLine: UInt = #line) {
        specExpectError(yaml, at: line, column, message, testLine: testLine)
    }

    func testAbsurdLaddersGiveFileLineColumnErrors() {
        let two = """
                    - {width: 1280, height: 720, bitrate: 2500}
                    - {width: 640, height: 360, bitrate: 800}
            """
        expect(file("        - {width: 1280, height: 720, bitrate: 2500}"), at: 8, 9, "at least two renditions")
        expect(
            file(
                two
                    + "\n        - {width: 320, height: 180, bitrate: 300}\n        - {width: 160, height: 90, bitrate: 100}\n        - {width: 96, height: 54, bitrate: 50}"
            ),
            at: 12, 11, "at most 4 renditions")
        expect(
            file(
                """
                        - {width: 640, height: 360, bitrate: 800}
                        - {width: 1280, height: 720, bitrate: 2500}
                """), at: 9, 47, "from the best to the least")
        expect(
            file(
                """
                        - {width: 1280, height: 720, bitrate: 2500}
                        - {width: 641, height: 360, bitrate: 800}
                """), at: 9, 19, "must be even")
        expect(
            file(
                """
                        - {width: 1280, height: 720, bitrate: 2500, start: true}
                        - {width: 640, height: 360, bitrate: 800, start: true}
                """), at: 9, 58, "only one rendition")
        expect(
            file(
                """
                        - {name: a, width: 1280, height: 720, bitrate: 2500}
                        - {name: a, width: 640, height: 360, bitrate: 800}
                """), at: 9, 18, "two renditions are named 'a'")
        expect(
            file(
                """
                        - {width: 1920, height: 1080, bitrate: 4000}
                        - {width: 640, height: 360, bitrate: 800}
                """), at: 8, 11, "larger than the capture")
        expect(
            file(
                """
                        - {width: 1280, height: 720, fps: 60, bitrate: 2500}
                        - {width: 640, height: 360, bitrate: 800}
                """), at: 8, 11, "renditions can only drop frames")
        expect(
            file(
                """
                        - {width: 1280, height: 720, bitrate: 1 gigabit}
                        - {width: 640, height: 360, bitrate: 800}
                """), at: 8, 47, "invalid rendition bitrate")
        expect(
            file(
                """
                        - {width: 1280, height: 720}
                        - {width: 640, height: 360, bitrate: 800}
                """), at: 8, 11, "needs bitrate")
        expect(
            file(
                """
                        - {width: 1280, height: 720, bitrate: 2500, resolution: high}
                        - {width: 640, height: 360, bitrate: 800}
                """), at: 8, 53, "resolution")
        expect(file(two, encodeExtra: "\n      bitrate: 1000"), at: 7, 7, "remove encode 'bitrate'")
        expect(file(two, transport: "loopback"), at: 8, 11, "set transport kind 'server'")
    }

    /// `passthrough: true` with renditions: the source's stream is the best rung, and the
    /// list holds the rungs below it (served from rung 1; `start` counts the source).
    func testAPassthroughLadderListsTheRungsBelowTheSource() throws {
        let camera = "{kind: rtsp, url: \"rtsp://127.0.0.1:8554/cam\"}"
        let spec = try XCTUnwrap(
            specLoadValid(
                file(
                    """
                            - {width: 640, height: 360, bitrate: 800, start: true}
                            - {width: 320, height: 180, bitrate: 300}
                    """, encodeExtra: "\n      passthrough: true", capture: camera)))
        let enc = try XCTUnwrap(spec.send?.video?.encode)
        XCTAssertTrue(enc.passthrough)
        XCTAssertEqual(enc.renditions.map(\.name), ["360p", "180p"])
        XCTAssertEqual(enc.startRendition, 1, "rung 0 is the source; the list's first rung is rung 1")
        let one = try XCTUnwrap(
            specLoadValid(
                file("        - {width: 320, height: 180, bitrate: 300}", encodeExtra: "\n      passthrough: true", capture: camera)))
        XCTAssertEqual(one.send?.video?.encode.renditions.count, 1, "one rung below the source is a ladder")
        XCTAssertEqual(one.send?.video?.encode.startRendition, 0, "viewers start on the source")
        XCTAssertNotNil(
            specLoadValid(
                try String(contentsOfFile: "Pipelines/rtsp-ladder.yaml", encoding: .utf8), file: "Pipelines/rtsp-ladder.yaml"))

        expect(
            file("        []", encodeExtra: "\n      passthrough: true", capture: camera), at: 9, 9, "at least one rendition below the source")
        expect(
            file("        - {name: source, width: 320, height: 180, bitrate: 300}", encodeExtra: "\n      passthrough: true", capture: camera),
            at: 9, 11, "'source' names the passed-through stream")
        expect(
            file("        - {width: 320, height: 180, bitrate: 300}", encodeExtra: "\n      passthrough: true", transport: "loopback", capture: camera),
            at: 9, 11, "set transport kind 'server'")
    }
}
