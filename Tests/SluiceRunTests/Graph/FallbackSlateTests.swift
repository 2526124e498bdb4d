import GStreamer
import Synchronization
import SluiceRunTestSupport
import XCTest
@testable import SluiceRun

/// What a fallback slate looks like: a black card, with `text:` written in white in its
/// middle, raw and after H.264 encoding and decoding (what a viewer's decoder shows).
final class FallbackSlateTests: XCTestCase {
    private static let caps = "video/x-raw,format=I420,width=320,height=240,framerate=30/1"

    /// Where the slate's bright pixels are, in its first decoded frame.
    private struct Brightness {
        /// Luma samples above 200 (ink; the black card is 16).
        var bright = 0
        /// Their bounding box: the smallest and largest x and y.
        var minX = Int.max, maxX = -1, minY = Int.max, maxY = -1
    }

    private func firstFrame(text: String?, codec: Codec?) async throws -> Brightness {
        XCTAssertTrue(TestFilters.registered)
        let spec = try XCTUnwrap(specLoadValid("transport: { kind: none }\nsend:\n  video:\n    capture: { kind: test }\n"))
        let pipeline = Pipeline()
        let builder = GraphBuilder(spec: spec, pipeline: pipeline, counters: RunCounters())
        var fallback = FallbackSpec(content: .pattern("black"))
        fallback.text = text
        let slate = FallbackSlate(spec: fallback, media: .video, codec: codec)
        var chain = try slate.elements(matching: try Caps(Self.caps), default: .init(width: 320, height: 240, fps: 30), with: builder)
        if codec != nil { chain += [try Element.make("avdec_h264"), try Element.make("videoconvert")] }
        let last = try Element.make("capsfilter"), sink = try Element.make("fakesink")
        try last.set("caps", fromString: Self.caps)
        chain += [last, sink]
        try pipeline.add(chain)
        try Element.link(chain)
        let seen = Mutex<Brightness?>(nil)
        try XCTUnwrap(sink.staticPad("sink")).addProbe(.buffer) { (info: borrowing Pad.ProbeInfo) in
            guard seen.withLock({ $0 == nil }), let buffer = info.buffer else { return .ok }
            var b = Brightness()
            buffer.withBytes { bytes in
                for y in 0..<240 {
                    for x in 0..<320 where bytes[y * 320 + x] > 200 {
                        b.bright += 1
                        b.minX = min(b.minX, x); b.maxX = max(b.maxX, x); b.minY = min(b.minY, y); b.maxY = max(b.maxY, y)
                    }
                }
            }
            seen.withLock { $0 = b }
            return .ok
        }
        XCTAssertNotEqual(pipeline.setState(.playing), .failure)
        defer { pipeline.setState(.null) }
        let deadline = ContinuousClock.now + .seconds(10)
        while seen.withLock({ $0 == nil }) && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        return try XCTUnwrap(seen.withLock { $0 }, "a frame of the slate within 10 s")
    }

    func testTheSlatesTextIsWrittenInTheMiddleOfThePicture() async throws {
        let plain = try await firstFrame(text: nil, codec: nil)
        XCTAssertEqual(plain.bright, 0, "a black card without text")
        let card = try await firstFrame(text: "OFFLINE", codec: nil)
        // 7 glyphs at 2 px per unit (240 / 90) in a box of 86 × 18 px centred at (116, 110)
        // (even): ink from (118, 112), the last glyph's ink ending at 118 + 6 × 12 + 9.
        XCTAssertGreaterThan(card.bright, 300, "white ink")
        XCTAssertEqual([card.minX, card.maxX, card.minY, card.maxY], [118, 199, 112, 125], "where the ink is")
    }

    func testTheTextSurvivesThePassthroughSlatesEncoding() async throws {
        let card = try await firstFrame(text: "OFFLINE", codec: .h264)
        XCTAssertGreaterThan(card.bright, 200, "the decoder shows the ink")
        // Where the raw test finds it, give or take the encoder's blur.
        XCTAssertTrue((112...122).contains(card.minX) && (195...206).contains(card.maxX), "in the middle: \(card)")
        XCTAssertTrue((106...116).contains(card.minY) && (121...131).contains(card.maxY), "in the middle: \(card)")
    }
}
