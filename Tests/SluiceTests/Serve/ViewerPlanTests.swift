import SluiceSignalling
import SluiceTestSupport
import XCTest
@testable import Sluice

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

    /// A camera's High profile, passed through, to Chromium: its decoder for High is at 41,
    /// which a GStreamer payloader cannot write, so the stream goes out at 116 and the plan
    /// says why.
    func testAHighStreamToChromiumIsSentOnAUsablePayloadTypeWithANote() throws {
        let high = try XCTUnwrap(H264Profile(profileLevelID: "640028"))
        let plan = try ViewerPlan(offer: Self.chromium, outputs: [(.video, .h264)], h264Profiles: [.video: high])
        XCTAssertEqual(plan.tracks.map(\.parameters.payloadType), [116])
        XCTAssertEqual(plan.notes.count, 1)
        XCTAssertTrue(plan.notes.first?.contains("payload type 41") == true, "\(plan.notes)")
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
        XCTAssertEqual(plan.tracks.map(\.transcoded), [true])
        let own = try ViewerPlan(offer: Self.aiortc, outputs: [(.video, .h264)])
        XCTAssertEqual(plan.tracks.map(\.parameters.payloadType), own.tracks.map(\.parameters.payloadType), "the payload type Sluice's own stream gets")
        XCTAssertTrue(plan.notes.contains { $0.contains("encoded again as Constrained Baseline") }, "\(plan.notes)")
        let chromium = try ViewerPlan(offer: Self.chromium, outputs: [(.video, .h264)], h264Profiles: [.video: high], transcodable: [.video])
        XCTAssertEqual(chromium.tracks.map(\.transcoded), [false], "a decoder that takes High gets the source")
        XCTAssertEqual(chromium.tracks.map(\.parameters.payloadType), [116])
        XCTAssertThrowsError(
            try ViewerPlan(offer: Self.aiortc, outputs: [(.video, .h264)], h264Profiles: [.video: high], transcodable: [.audio]),
            "only the medium that may be encoded again")
    }
}
