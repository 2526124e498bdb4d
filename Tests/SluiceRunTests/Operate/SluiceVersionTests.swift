import GStreamer
import SluiceTestSupport
import XCTest
@testable import SluiceRun

/// The release `sluice --version` names is CHANGELOG.md's newest, and the rest says what runs.
final class SluiceVersionTests: XCTestCase {
    func testTheReleaseIsTheChangelogsNewest() throws {
        let changelog = try String(contentsOf: Repository.root.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        let releases = changelog.split(separator: "\n").filter { $0.hasPrefix("## ") && !$0.contains("Unreleased") }
        XCTAssertEqual(
            releases.first.map { String($0.dropFirst(3)) }, SluiceVersion.release,
            "CHANGELOG.md's newest release and SluiceVersion.release must agree")
    }

    func testTheVersionLinesNameWhatRuns() {
        let version = SluiceVersion.current(commit: "0123456789ab")
        XCTAssertEqual(version.gstreamer, Gst.version)
        XCTAssertTrue(version.gstreamer.hasPrefix("1."), version.gstreamer)
        XCTAssertEqual(version.lines, ["sluice \(SluiceVersion.release)", "commit 0123456789ab", "GStreamer \(Gst.version)", "Swift \(version.swift)"])
        XCTAssertTrue(version.swift.hasPrefix("6."), version.swift)
    }
}
