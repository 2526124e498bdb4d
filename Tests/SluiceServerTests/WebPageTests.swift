import XCTest
@testable import SluiceServer

/// What a newcomer sees on the web page before and after watching: what to press, not a black box.
final class WebPageTests: XCTestCase {
    func testThePlayerSaysWhatToPress() throws {
        let html = WebPage.html
        let state = try XCTUnwrap(html.range(of: #"<span class="state" id="play-state">[^<]*</span>"#, options: .regularExpression))
        XCTAssertTrue(html[state].contains("press Play beside a stream"), String(html[state]))
        XCTAssertTrue(html.contains(#"b.textContent = "Play";"#), "the button it names is there")
        XCTAssertTrue(html.contains("stopped: press Play beside a stream to watch again"), "and after Stop")
    }
}
