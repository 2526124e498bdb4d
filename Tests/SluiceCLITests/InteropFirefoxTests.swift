import Foundation
import SluiceTestSupport
import XCTest

/// The interop matrix, Firefox column (Debian `firefox-esr`, driven by `marionette-driver`):
/// Firefox plays Sluice over WHEP and shows the picture (the `<video>` reaches readyState 4 at
/// the stream's size, and its pixels move), and publishes its fake camera and microphone to
/// Sluice over WHIP. Debian's Firefox has VP8 and VP9 (H.264 needs a plugin Firefox
/// downloads, which it cannot here).
final class InteropFirefoxTests: XCTestCase {
    static let peer = "Tests/Interop/firefox/firefox_peer.py"

    override func setUpWithError() throws { try Self.requireFirefox() }

    /// Throws `BrowserToolsMissing` unless Firefox ESR and marionette-driver are installed.
    static func requireFirefox() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/firefox-esr") else {
            throw CLI.BrowserToolsMissing(missing: ["/usr/bin/firefox-esr"])
        }
        let r = try CLI.execute(URL(fileURLWithPath: Repository.python), ["-c", "import marionette_driver"], env: [:], timeout: 30, reportPath: nil)
        if r.status != 0 { throw CLI.BrowserToolsMissing(missing: ["marionette-driver in .venv"]) }
    }

    func testFirefoxPlaysSluiceOverWHEPAndShowsThePicture() throws {
        for (i, codec) in ["vp8", "vp9"].enumerated() {
            let r = try CLI.runClientWithServer(
                serve: ["--pipeline", "Pipelines/serve-av.yaml"], port: 18641 + i,
                client: "\"$PYTHON\" \(Self.peer) play \"$URL/whep/serve-av\" --seconds 4 --codec \(codec) --timeout 30",
                env: ["CODEC": codec], timeout: 120)
            XCTAssertEqual(r.status, 0, "\(codec): \(r.stderr.suffix(4000))")
            let j = try InteropAiortcTests.json(r)
            XCTAssertEqual((j["video_codec"] as? String)?.lowercased().contains(codec), true, "\(j)")
            XCTAssertEqual(j["frame_size"] as? String, "640x360", "\(codec): \(j)")
            XCTAssertGreaterThanOrEqual(j["decode_fps"] as? Double ?? 0, 24, "\(codec): ≥ 80% of 30 fps: \(j)")
            let video = j["video_element"] as? [String: Any] ?? [:]
            XCTAssertEqual(video["readyState"] as? Int, 4, "\(codec): the <video> plays: \(video)")
            XCTAssertEqual(video["videoWidth"] as? Int, 640, "\(codec): \(video)")
            XCTAssertEqual(j["moving_picture"] as? Bool, true, "\(codec): pixels change and are not black: \(j["pixels"] ?? "")")
            XCTAssertGreaterThan(j["audio_packets_in_window"] as? Int ?? 0, 100, "\(codec): audio arrives: \(j)")
        }
    }

    func testFirefoxPublishesToSluiceOverWHIP() throws {
        for (i, codec) in ["vp8", "vp9"].enumerated() {
            let r = try CLI.runClientWithServer(
                serve: ["--receive", "Pipelines/server.yaml"], port: 18651 + i,
                client: "\"$PYTHON\" \(Self.peer) publish \"$URL/whip/server\" --seconds 4 --codec \(codec) --timeout 30", timeout: 120)
            XCTAssertEqual(r.status, 0, "\(codec): \(r.stderr.suffix(4000))")
            let j = try InteropAiortcTests.json(r)
            let encoded = j["frames_encoded"] as? Int ?? 0
            let after = try XCTUnwrap(r.stdout.components(separatedBy: "AFTER:").last)
            let whip = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(after.utf8)) as? [String: Any], after)
            let ended = (whip["ended"] as? [String: Any])?["server"] as? [String: Any] ?? [:]
            XCTAssertGreaterThan(encoded, 100, "\(codec): Firefox sent frames: \(j)")
            XCTAssertGreaterThanOrEqual(Double(ended["video_frames"] as? Int ?? 0), 0.8 * Double(encoded), "\(codec): decoded ≥ 80% of \(encoded): \(after)")
            XCTAssertGreaterThan(ended["audio_buffers"] as? Int ?? 0, 100, "\(codec): audio: \(after)")
        }
    }
}
