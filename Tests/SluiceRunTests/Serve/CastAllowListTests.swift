import XCTest
@testable import SluiceRun

/// `--cast-allow`: only the schemes and URL prefixes listed are fetched, and nothing that could
/// break out of the player's pipeline description.
final class CastAllowListTests: XCTestCase {
    func testOnlyListedSchemesAndPrefixesArePlayed() {
        let allow = ["file:", "http://127.0.0.1:18710/media/"]
        XCTAssertNil(CastReceiver.refusal("file:///tmp/a.webm", allow: allow))
        XCTAssertNil(CastReceiver.refusal("http://127.0.0.1:18710/media/b.webm", allow: allow))
        XCTAssertNotNil(CastReceiver.refusal("http://127.0.0.1:18710/other/b.webm", allow: allow))
        XCTAssertNotNil(CastReceiver.refusal("https://203.0.113.7/x.mp4", allow: allow))
        XCTAssertNotNil(CastReceiver.refusal("http://127.0.0.1:18710/media/../../etc/passwd", allow: allow), "no '..' escapes a prefix")
        XCTAssertNotNil(CastReceiver.refusal("rtsp://127.0.0.1/x", allow: ["rtsp:"]), "only file, http and https are played")
        XCTAssertNotNil(CastReceiver.refusal("file:///tmp/a.webm\" ! filesink location=/tmp/x", allow: allow), "no quotes into the pipeline")
        XCTAssertNotNil(CastReceiver.refusal("file:///tmp/a b.webm", allow: allow))
        XCTAssertNotNil(CastReceiver.refusal("not a url", allow: ["not"]))
        XCTAssertNotNil(CastReceiver.refusal("file:///tmp/a.webm", allow: []), "nothing is allowed by default")
    }
}
