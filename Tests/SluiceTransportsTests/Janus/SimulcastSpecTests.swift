import SluiceRun
import SluiceRunTestSupport
import SluiceTransports
import XCTest

/// `encode.simulcast` (published to a Janus VideoRoom) and a subscriber's `substream`: valid
/// files, and each setting that cannot work with its FILE:LINE:COL error.
final class SimulcastSpecTests: XCTestCase {
    override func setUp() { SluiceTransports.registerBuiltIns() }

    private func file(
        _ layers: String, transport: String = "{ kind: janus, server: 'ws://127.0.0.1:8188', room: 1234 }",
        capture: String = "{ kind: test, width: 640, height: 360 }", encodeExtra: String = ""
    ) -> String {
        """
        transport: \(transport)
        send:
          video:
            capture: \(capture)
            encode:
              codec: vp8
              bitrate: 1200\(encodeExtra)
              simulcast:
        \(layers)
        """
    }

    private let three = """
                - { rid: h }
                - { rid: m, scale: 2, bitrate: 400 }
                - { rid: l, scale: 4 }
        """

    func testLayersLoadBestFirstWithTheirSizesAndBitrates() throws {
        let spec = try XCTUnwrap(specLoadValid(file(three)))
        let layers = try XCTUnwrap(spec.send?.video?.encode.simulcast)
        XCTAssertEqual(layers.map(\.rid), ["h", "m", "l"])
        XCTAssertEqual(layers.map(\.scale), [1, 2, 4])
        XCTAssertEqual(layers.map(\.bitrateKbps), [1200, 400, 75], "unset: the encode bitrate over the layer's area ratio")
        XCTAssertEqual(layers[1].location, specLoc(10, 11))
        XCTAssertNotNil(
            specLoadValid(
                try String(contentsOfFile: "Pipelines/janus-publish-simulcast.yaml", encoding: .utf8),
                file: "Pipelines/janus-publish-simulcast.yaml"))
    }

    private func expect(_ yaml: String, at line: Int, _ column: Int, _ message: String, testLine: UInt = #line) {
        specExpectError(yaml, at: line, column, message, testLine: testLine)
    }

    func testSettingsThatCannotWorkAreRefusedWhereTheyAreWritten() {
        expect(file("        - { rid: h }"), at: 9, 9, "at least two layers")
        expect(file("        - { rid: h }\n        - { rid: l, scale: 3 }"), at: 10, 28, "1, 2, 4 or 8")
        expect(file("        - { rid: h, scale: 2 }\n        - { rid: l, scale: 2 }"), at: 10, 11, "from the largest to the smallest")
        expect(file("        - { rid: h }\n        - { rid: h, scale: 2 }"), at: 10, 11, "two simulcast layers have rid 'h'")
        expect(file("        - { rid: 'h-1' }\n        - { rid: l, scale: 2 }"), at: 9, 18, "1 to 15 letters or digits")
        expect(file("        - { rid: abcdefghijklmnop }\n        - { rid: l, scale: 2 }"), at: 9, 18, "1 to 15 letters or digits")
        expect(file("        - { scale: 1 }\n        - { rid: l, scale: 2 }"), at: 9, 11, "needs a 'rid'")
        expect(
            file((0..<5).map { "        - { rid: r\($0), scale: \([1, 2, 4, 8, 8][$0]) }" }.joined(separator: "\n")),
            at: 13, 11, "at most 4 layers")
        // 360 / 8 = 45: odd.
        expect(file("        - { rid: h }\n        - { rid: l, scale: 8 }"), at: 10, 11, "would be 80x45")
        expect(
            file(
                "        - { rid: h }\n        - { rid: l, scale: 2 }", capture: "{ kind: rtsp, url: 'rtsp://127.0.0.1:8554/cam' }",
                encodeExtra: "\n      passthrough: true"
            ).replacingOccurrences(of: "      bitrate: 1200\n", with: ""),
            at: 8, 7, "passthrough decodes nothing")
    }

    func testSimulcastNeedsACodecAndAPeerThatForwardsLayers() {
        expect(
            file(three).replacingOccurrences(of: "codec: vp8", with: "codec: vp9"), at: 6, 14, "simulcast is sent in vp8 or h264")
        expect(file(three, transport: "{ kind: loopback }"), at: 9, 11, "it needs transport kinds whip, apprtc and janus")
        expect(
            file(three, transport: "{ kind: janus, server: 'ws://127.0.0.1:8188', plugin: echotest }"), at: 9, 11,
            "the echotest plugin takes one stream")
        expect(
            file(three + "\n        - { rid: x, scale: 8 }", capture: "{ kind: test, width: 1280, height: 720 }"), at: 12, 11,
            "at most 3 simulcast layers")
        expect(file(three, encodeExtra: "\n      gst: vp8enc"), at: 8, 7, "remove 'gst'")
    }

    /// `adaptive_layers` loads next to `simulcast`, and is refused without it (where it is
    /// written) and with an adaptive `bitrate` (whose message names it).
    func testLayersThatFollowTheLinkNeedSimulcastLayers() throws {
        let spec = try XCTUnwrap(specLoadValid(file(three, encodeExtra: "\n      adaptive_layers: true")))
        XCTAssertEqual(spec.send?.video?.encode.adaptiveLayers, true)
        XCTAssertEqual(try XCTUnwrap(specLoadValid(file(three))).send?.video?.encode.adaptiveLayers, false)
        expect(
            "transport: { kind: whip, endpoint: 'http://127.0.0.1:8443/whip/live' }\nsend:\n  video:\n    capture: {kind: test}\n"
                + "    encode: {codec: vp8, adaptive_layers: true}\n",
            at: 5, 26, "add 'simulcast' layers or remove it")
        expect(
            file(three).replacingOccurrences(of: "bitrate: 1200", with: "bitrate: {min: 300, start: 1000, max: 2000}"), at: 7, 16,
            "'adaptive_layers: true'")
    }

    func testASubscriberPicksItsSubstream() throws {
        let view = "transport: { kind: janus, server: 'ws://127.0.0.1:8188', room: 1234, substream: 1 }\nreceive:\n  video: {}\n"
        let spec = try XCTUnwrap(specLoadValid(view))
        XCTAssertEqual(spec.transport.settings(as: JanusSpec.self)?.substream, 1)
        expect(view.replacingOccurrences(of: "substream: 1", with: "substream: 3"), at: 1, 81, "between 0 and 2")
        expect(
            "transport: { kind: janus, server: 'ws://127.0.0.1:8188', plugin: echotest, substream: 1 }\nsend:\n  video: {capture: {kind: test}}\n",
            at: 1, 76, "'substream' is for VideoRoom")
    }
}
