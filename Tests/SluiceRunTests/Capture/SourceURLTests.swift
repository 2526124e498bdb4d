import XCTest
@testable import SluiceRun

/// The URL of a network source: its scheme, and its password kept out of every message.
final class SourceURLTests: XCTestCase {
    func testAPasswordNeverShowsInTheURLItsMessagesName() {
        XCTAssertEqual(SourceURL.redacted("rtsp://admin:s3cret@cam:554/s"), "rtsp://admin@cam:554/s")
        XCTAssertEqual(SourceURL.redacted("rtmp://bob:pw@server/live/x"), "rtmp://bob@server/live/x")
        XCTAssertEqual(SourceURL.redacted("rtsp://cam/s"), "rtsp://cam/s")
        XCTAssertEqual(SourceURL.password(in: "rtsp://admin:s3cret@cam/s"), "s3cret")
        XCTAssertNil(SourceURL.password(in: "srt://:9000"))
        let label = SourceLabel(text: "rtsp capture rtsp://admin@cam/s", secret: "s3cret")
        XCTAssertEqual(label.redact("could not open rtsp://admin:s3cret@cam/s"), "could not open rtsp://admin:***@cam/s")
    }

    func testTheSchemeIsWhatComesBeforeTheSlashes() {
        XCTAssertEqual(SourceURL.scheme(of: "RTSP://cam/s"), "rtsp")
        XCTAssertEqual(SourceURL.scheme(of: "srt://:9000"), "srt")
        XCTAssertNil(SourceURL.scheme(of: "cam/s"))
        XCTAssertNil(SourceURL.scheme(of: "://cam"))
    }
}
