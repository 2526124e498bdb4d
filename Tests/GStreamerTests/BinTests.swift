import XCTest
@testable import GStreamer

final class BinTests: XCTestCase {
    func testParseFragmentWithCaps() throws {
        let bin = try Bin.parse("videotestsrc pattern=ball ! video/x-raw,width=64,height=48 ! fakesink")
        XCTAssertEqual(bin.children.count, 3)
    }

    func testParseFragmentGhostsUnlinkedPads() throws {
        let bin = try Bin.parse("videoflip method=horizontal-flip ! videobalance saturation=0")
        XCTAssertNotNil(bin.staticPad("sink"))
        XCTAssertNotNil(bin.staticPad("src"))
    }

    func testParseErrorIsReported() {
        XCTAssertThrowsError(try Bin.parse("videoflip ! nosuchelement")) { error in
            XCTAssertTrue((error as? GstError)?.message.contains("nosuchelement") ?? false, "\(error)")
        }
    }
}
