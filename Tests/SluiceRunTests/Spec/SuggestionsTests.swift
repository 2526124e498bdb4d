import XCTest
@testable import SluiceRun

/// "Did you mean": a swapped pair of letters is one typo, not two.
final class SuggestionsTests: XCTestCase {
    func testASwappedPairIsOneEdit() {
        XCTAssertEqual(Suggestions.distance("tset", "test", limit: 3), 1)
        XCTAssertEqual(Suggestions.distance("tset", "srt", limit: 3), 2)
        XCTAssertEqual(Suggestions.closest(to: "tset", in: ["srt", "test", "uri"]), "test")
        XCTAssertEqual(Suggestions.closest(to: "rtmpp", in: ["rtsp", "rtmp"]), "rtmp")
        XCTAssertNil(Suggestions.closest(to: "zzzz", in: ["test", "rtsp"]))
        XCTAssertEqual(Suggestions.distance("kitten", "sitting", limit: 5), 3, "plain edits still count one each")
    }
}
