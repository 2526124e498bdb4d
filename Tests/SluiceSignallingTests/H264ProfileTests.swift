import SluiceSignalling
import SluiceTestSupport
import XCTest

/// H.264 profiles as SDP and GStreamer write them, which decoder takes which stream, and the
/// payload type chosen for a stream that is not Constrained Baseline.
final class H264ProfileTests: XCTestCase {
    func testReadsAndWritesProfileLevelIDs() throws {
        let high = try XCTUnwrap(H264Profile(profileLevelID: "640028"))
        XCTAssertEqual(high.family, .high)
        XCTAssertEqual(high.level, "4")
        XCTAssertEqual(high.description, "High 4 (640028)")
        XCTAssertEqual(H264Profile(profileLevelID: "42E01F")?.family, .constrainedBaseline)
        XCTAssertEqual(H264Profile(profileLevelID: "42e01f")?.description, "Constrained Baseline 3.1 (42e01f)")
        XCTAssertEqual(H264Profile(profileLevelID: "4d401f")?.family, .main, "constraint_set1 alone leaves Main")
        XCTAssertEqual(H264Profile(profileLevelID: "4d801f")?.family, .constrainedBaseline, "Main with constraint_set0")
        XCTAssertEqual(H264Profile(profileLevelID: "42f00b")?.level, "1b")
        for bad in ["", "42e01", "42e01fff", "xyzxyz", "-1e01f"] { XCTAssertNil(H264Profile(profileLevelID: bad), bad) }
        XCTAssertEqual(H264Profile(profileLevelID: "58c01f")?.family, .constrainedBaseline, "Extended with constraint_set0 and 1")
        XCTAssertNil(H264Profile(profileLevelID: "2a001f")?.family, "profile 42 is not in Annex A")
    }

    func testReadsGStreamersCapsNames() {
        XCTAssertEqual(H264Profile(gstProfile: "high", level: "4")?.profileLevelID, "640028")
        XCTAssertEqual(H264Profile(gstProfile: "constrained-baseline", level: "3.1")?.profileLevelID, "42c01f")
        XCTAssertEqual(H264Profile(gstProfile: "main", level: "1b")?.profileLevelID, "4d100b")
        XCTAssertEqual(H264Profile(gstProfile: "progressive-high", level: nil)?.family, .high)
        XCTAssertEqual(H264Profile(gstProfile: "high-4:4:4", level: "5.1")?.profileLevelID, "f40033")
        XCTAssertNil(H264Profile(gstProfile: "multiview-high", level: "4"))
    }

    func testWhichDecoderTakesWhichStream() throws {
        let p = { (id: String) in H264Profile(profileLevelID: id)! }
        let cb = p("42e01f"), baseline = p("42001f"), main = p("4d001f"), high = p("640028"), high444 = p("f4001f")
        for decoder in [cb, baseline, main, high, high444] { XCTAssertTrue(decoder.decodes(cb), "\(decoder) decodes Constrained Baseline") }
        XCTAssertFalse(cb.decodes(high))
        XCTAssertFalse(main.decodes(high))
        XCTAssertTrue(high.decodes(main))
        XCTAssertTrue(high444.decodes(high), "High 4:4:4 decoders decode High")
        XCTAssertFalse(main.decodes(baseline), "Baseline may use FMO and ASO, which Main has not")
        XCTAssertFalse(high.decodes(p("f4001f")))
        XCTAssertTrue(high.decodes(p("64000a")), "levels are not compared")
    }

    /// A High stream and Chromium's offer: the only decoder for it (High 4:4:4) is at 41,
    /// below what GStreamer's payloaders write, and 41 is chosen (`PayloadTypeRewrite` writes
    /// it after the payloader). A Main stream goes to Main's 116; Sluice's Constrained
    /// Baseline to 108.
    func testChoosesAPayloadTypeWhoseDecoderTakesTheStream() throws {
        let video = SDPSession(H264Offers.chromiumFull).media[0]
        let high = try XCTUnwrap(H264Profile(profileLevelID: "640028"))
        XCTAssertEqual(CodecMatch.choose("H264", in: video, h264: high), .init(payloadType: 41))
        XCTAssertEqual(CodecMatch.choose("H264", in: video, h264: H264Profile(profileLevelID: "4d0028")!), .init(payloadType: 116))
        XCTAssertEqual(CodecMatch.choose("H264", in: video), .init(payloadType: 108))
        let baselineOnly = SDPSession(
            H264Offers.chromiumFull.replacingOccurrences(of: "4d001f", with: "42001f").replacingOccurrences(of: "f4001f", with: "42e01f")
        )
        .media[0]
        XCTAssertNil(CodecMatch.choose("H264", in: baselineOnly, h264: high), "nothing decodes High")
    }
}
