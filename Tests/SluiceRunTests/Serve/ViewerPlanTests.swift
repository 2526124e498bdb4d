import SluiceSignalling
import SluiceTestSupport
import XCTest
@testable import SluiceRun

/// A viewer's offer matched against a served stream's H.264 profile.
final class ViewerPlanTests: XCTestCase {
    private static let chromium = H264Offers.chromium
    private static let aiortc = H264Offers.aiortc

    /// Sluice's own Constrained Baseline goes to Chromium's Constrained Baseline payload type.
    func testSluicesOwnStreamGoesOnTheConstrainedBaselinePayloadType() throws {
        let plan = try ViewerPlan(offer: Self.chromium, outputs: [(.video, .h264)])
        XCTAssertEqual(plan.tracks.map(\.parameters.payloadType), [108])
        XCTAssertEqual(plan.notes, [])
    }

    /// A camera's High profile, passed through, to Chromium: its decoder for High (High
    /// 4:4:4) is at 41, which a GStreamer payloader cannot write; the stream goes out at 41
    /// all the same (the payloader writes 96 and `PayloadTypeRewrite` makes it 41).
    func testAHighStreamToChromiumGoesOnItsHighDecodersPayloadTypeBelow96() throws {
        let high = try XCTUnwrap(H264Profile(profileLevelID: "640028"))
        let plan = try ViewerPlan(offer: Self.chromium, outputs: [(.video, .h264)], h264Profiles: [.video: high])
        XCTAssertEqual(plan.tracks.map(\.parameters.payloadType), [41])
        XCTAssertEqual(plan.tracks.map(\.parameters.payloaderPayloadType), [96])
        XCTAssertEqual(plan.notes, [])
    }

    /// aiortc offers Baseline and Constrained Baseline only: a High stream is refused, and
    /// the refusal names the stream's profile, each offered one and what would serve it.
    func testAHighStreamToABaselineOnlyViewerIsRefusedWithTheProfilesNamed() throws {
        let high = try XCTUnwrap(H264Profile(profileLevelID: "64001e"))
        XCTAssertThrowsError(try ViewerPlan(offer: Self.aiortc, outputs: [(.video, .h264)], h264Profiles: [.video: high])) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("the stream has video H264 High 3 (64001e)"), text)
            XCTAssertTrue(text.contains("H264 Baseline 3.1 (42001f), H264 Constrained Baseline 3.1 (42e01f)"), text)
            XCTAssertTrue(text.contains("passed through from its source"), text)
            XCTAssertTrue(text.contains("encode: { codec: h264 }"), text)
            XCTAssertTrue(text.contains("encode: { passthrough: auto }"), text)
        }
        XCTAssertNoThrow(try ViewerPlan(offer: Self.aiortc, outputs: [(.video, .h264)]), "Sluice's own Constrained Baseline is fine")
    }

    /// With `passthrough: auto` (the medium is transcodable), the Baseline-only viewer is
    /// matched as for Constrained Baseline and its track marked transcoded, with a note;
    /// Chromium, whose decoders take High, still gets the source.
    func testWithTranscodingAllowedABaselineOnlyViewerGetsTheStreamEncodedAgain() throws {
        let high = try XCTUnwrap(H264Profile(profileLevelID: "64001e"))
        let plan = try ViewerPlan(offer: Self.aiortc, outputs: [(.video, .h264)], h264Profiles: [.video: high], transcodable: [.video])
        XCTAssertEqual(plan.tracks.map(\.transcodedTo), [.h264])
        let own = try ViewerPlan(offer: Self.aiortc, outputs: [(.video, .h264)])
        XCTAssertEqual(plan.tracks.map(\.parameters.payloadType), own.tracks.map(\.parameters.payloadType), "the payload type Sluice's own stream gets")
        XCTAssertTrue(plan.notes.contains { $0.contains("encoded again as Constrained Baseline") }, "\(plan.notes)")
        let chromium = try ViewerPlan(offer: Self.chromium, outputs: [(.video, .h264)], h264Profiles: [.video: high], transcodable: [.video])
        XCTAssertEqual(chromium.tracks.map(\.transcodedTo), [nil], "a decoder that takes High gets the source")
        XCTAssertEqual(chromium.tracks.map(\.parameters.payloadType), [41])
        XCTAssertThrowsError(
            try ViewerPlan(offer: Self.aiortc, outputs: [(.video, .h264)], h264Profiles: [.video: high], transcodable: [.audio]),
            "only the medium that may be encoded again")
    }

    /// Firefox without OpenH264 offers no H.264: with `passthrough: auto` it gets the stream
    /// encoded again as VP8 on its VP8 payload type, with a note; without, a refusal that
    /// names `passthrough: auto`. A VP8 camera goes to it as it is, and encoded again as H.264 to a viewer with H.264 only.
    func testAViewerWithoutH264GetsVP8WhenTheStreamMayBeEncodedAgain() throws {
        let high = try XCTUnwrap(H264Profile(profileLevelID: "64001e"))
        let firefox = H264Offers.firefoxWithoutH264
        let plan = try ViewerPlan(offer: firefox, outputs: [(.video, .h264)], h264Profiles: [.video: high], transcodable: [.video])
        XCTAssertEqual(plan.tracks.map(\.transcodedTo), [.vp8])
        XCTAssertEqual(plan.tracks.map(\.parameters.payloadType), [120])
        XCTAssertEqual(plan.tracks.map(\.parameters.codec), [.vp8], "the payloader is VP8's")
        XCTAssertTrue(plan.notes.contains { $0.contains("takes no H264 it can decode: it gets the stream encoded again as VP8") }, "\(plan.notes)")
        XCTAssertThrowsError(try ViewerPlan(offer: firefox, outputs: [(.video, .h264)], h264Profiles: [.video: high])) {
            XCTAssertTrue("\($0)".contains("the viewer offers no H.264") && "\($0)".contains("passthrough: auto"), "\($0)")
        }
        let vp8Source = try ViewerPlan(offer: firefox, outputs: [(.video, .vp8)], transcodable: [.video])
        XCTAssertEqual(vp8Source.tracks.map(\.transcodedTo), [nil], "a VP8 camera goes to Firefox as it is")
        let h264OnlyOfVP8 = try ViewerPlan(offer: H264Offers.aiortc, outputs: [(.video, .vp8)], transcodable: [.video])
        XCTAssertEqual(h264OnlyOfVP8.tracks.map(\.transcodedTo), [.h264], "an H.264-only viewer of a VP8 camera gets H.264")
        XCTAssertEqual(h264OnlyOfVP8.tracks.map(\.parameters.codec), [.h264])
    }
}
