import Foundation
import SluiceTestSupport
import XCTest

/// End-to-end encryption with Chromium, both ways (`Pipelines/room-echo-e2ee.yaml`): Sluice
/// encrypts its picture and tone with `e2ee`; the page decrypts them in an
/// RTCRtpScriptTransform worker with WebCrypto (its own implementation of LiveKit's format,
/// Tests/Browser/browser_echo.py), decodes, plays, encodes them again and encrypts what it
/// sends back; Sluice decrypts that and reads the framestamps and audio stamps, which
/// survive only if Chromium decoded the picture and the sound.
extension BrowserEndToEndTests {
    func testChromiumDecryptsSluicesFramesAndSluiceDecryptsChromiums() throws {
        try CLI.requireBrowserTools()
        let passphrase = "sesame-\(UUID().uuidString.prefix(8))"
        let trip = try CLI.roundTrip(
            through: "chromium", port: 18624, file: "Pipelines/room-echo-e2ee.yaml", peerArguments: "--e2ee-passphrase \(passphrase)",
            environment: ["E2EE_PASSPHRASE": passphrase])
        let r = trip.result
        XCTAssertEqual(r.status, 0, "Chromium answered, echoed and left: " + r.stdout + r.stderr.suffix(4000))
        let page = trip.peer["e2ee"] as? [String: [String: Int]] ?? [:]
        print(
            "e2ee through chromium and back: video p50 \(r.double("latency.p50_ms") ?? .nan) ms, audio p50 \(r.double("audio.mouth_to_ear.p50_ms") ?? .nan) ms; page: \(page)"
        )
        // Chromium sends back at the rate its own encoder chooses (10–30 fps seen), Opus
        // every 20 ms.
        for (kind, least) in [("video", 30), ("audio", 100)] {
            XCTAssertGreaterThan(page["decrypted"]?[kind] ?? 0, 100, "Chromium decrypted Sluice's \(kind) frames: \(trip.peer)")
            XCTAssertGreaterThan(page["encrypted"]?[kind] ?? 0, least, "Chromium encrypted the \(kind) it sent back: \(trip.peer)")
            // A frame may fail while the first keyframe is awaited; not more than a few.
            XCTAssertLessThan(page["failed"]?[kind] ?? 0, 5, "frames Chromium could not decrypt: \(trip.peer)")
        }
        XCTAssertGreaterThan(r.double("frames.received") ?? 0, 30, "Sluice decrypted Chromium's picture: \(r.stdout)")
        XCTAssertGreaterThan(r.double("latency.samples") ?? 0, 20, "framestamps read in Chromium's re-encoded picture: \(r.stdout)")
        XCTAssertGreaterThanOrEqual(r.double("audio.stamps_read") ?? 0, 8, "audio stamps read in Chromium's re-encoded sound: \(r.stdout)")
        let video = try XCTUnwrap(r.double("latency.p50_ms"), r.stdout)
        XCTAssertGreaterThan(video, 0)
        XCTAssertLessThan(video, 500)
    }

    /// The same round trip in H.264: Chromium decrypts Sluice's frames (encrypted as AVC after
    /// h264parse, read by Chromium as Annex B) and decodes them, encodes with its own H.264
    /// encoder and encrypts; Sluice decrypts that (Annex B from rtph264depay) and reads the
    /// framestamps, which survive only if Chromium decoded the picture.
    func testChromiumAndSluiceExchangeEncryptedH264() throws {
        try assertEncryptedExchange(codec: "h264", port: 18628)
    }

    /// VP9 both ways: Sluice's frames, all ciphertext, go out through its own payloader
    /// (flexible-mode descriptors, `VP9Payloader`), which Chromium's receiver takes and whose
    /// frames it decrypts and decodes; Chromium's encrypted VP9 comes back through rtpvp9depay.
    func testChromiumAndSluiceExchangeEncryptedVP9() throws {
        try assertEncryptedExchange(codec: "vp9", port: 18629)
    }

    /// Pipelines/room-echo-e2ee.yaml with `codec` for video, through Chromium and back:
    /// Chromium decrypts what Sluice sent and encrypts what it sends back, which Sluice decrypts
    /// (framestamps read in it).
    private func assertEncryptedExchange(codec: String, port: Int, file: StaticString = #filePath, line: UInt = #line) throws {
        try CLI.requireBrowserTools()
        let passphrase = "sesame-\(UUID().uuidString.prefix(8))"
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("room-echo-e2ee-\(codec)-\(UUID().uuidString.prefix(8)).yaml").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let vp8 = try String(contentsOfFile: Repository.path("Pipelines/room-echo-e2ee.yaml"), encoding: .utf8)
        try vp8.replacingOccurrences(of: "codec: vp8", with: "codec: \(codec)").replacingOccurrences(of: "codecs: [vp8]", with: "codecs: [\(codec)]")
            .write(toFile: path, atomically: true, encoding: .utf8)
        let trip = try CLI.roundTrip(
            through: "chromium", port: port, file: path, peerArguments: "--e2ee-passphrase \(passphrase)",
            environment: ["E2EE_PASSPHRASE": passphrase])
        let r = trip.result
        XCTAssertEqual(r.status, 0, "Chromium answered, echoed and left: " + r.stdout + r.stderr.suffix(4000), file: file, line: line)
        let page = trip.peer["e2ee"] as? [String: [String: Int]] ?? [:]
        print("e2ee \(codec) through chromium and back: video p50 \(r.double("latency.p50_ms") ?? .nan) ms; page: \(page)")
        XCTAssertGreaterThan(page[codec]?["decrypted"] ?? 0, 100, "Chromium decrypted Sluice's \(codec) frames: \(trip.peer)", file: file, line: line)
        XCTAssertGreaterThan(page[codec]?["encrypted"] ?? 0, 30, "Chromium encrypted the \(codec) it sent back: \(trip.peer)", file: file, line: line)
        XCTAssertLessThan(page["failed"]?["video"] ?? 0, 5, "frames Chromium could not decrypt: \(trip.peer)", file: file, line: line)
        XCTAssertGreaterThan(r.double("frames.received") ?? 0, 30, "Sluice decrypted Chromium's picture: \(r.stdout)", file: file, line: line)
        XCTAssertGreaterThan(
            r.double("latency.samples") ?? 0, 20, "framestamps read in Chromium's re-encoded picture: \(r.stdout)", file: file, line: line)
    }

    /// The page ratchets its sending key one step (LiveKit's ratchet) after 60 video frames,
    /// as a LiveKit sender does mid-stream; Sluice's receiver follows through its ratchet
    /// window, and the picture keeps coming back to the end of the run.
    func testSluiceFollowsChromiumRatchetingItsKeyMidStream() throws {
        try CLI.requireBrowserTools()
        let passphrase = "sesame-\(UUID().uuidString.prefix(8))"
        let trip = try CLI.roundTrip(
            through: "chromium", port: 18627, seconds: 12, file: "Pipelines/room-echo-e2ee.yaml",
            peerArguments: "--e2ee-passphrase \(passphrase) --e2ee-ratchet-after 60", environment: ["E2EE_PASSPHRASE": passphrase])
        let r = trip.result
        XCTAssertEqual(r.status, 0, "Chromium answered, echoed and left: " + r.stdout + r.stderr.suffix(4000))
        let page = trip.peer["e2ee"] as? [String: [String: Int]] ?? [:]
        let perSecond = (r.value("per_second") as? [[String: Any]] ?? []).map { ($0["frames"] as? NSNumber)?.intValue ?? 0 }
        print("chromium ratchets its key after 60 video frames: page \(page); frames read back per second \(perSecond)")
        XCTAssertEqual(page["ratchetedAfter"]?["video"], 60, "the page ratcheted: \(trip.peer)")
        XCTAssertGreaterThan(page["encryptedAfterRatchet"]?["video"] ?? 0, 30, "and went on sending: \(trip.peer)")
        // The last three whole seconds still bring frames back: Sluice decrypts the ratcheted key.
        XCTAssertGreaterThanOrEqual(perSecond.count, 8, "\(r.stdout)")
        XCTAssertTrue(perSecond.dropLast().suffix(3).allSatisfy { $0 > 3 }, "frames after the ratchet (the last second may be cut short): \(perSecond)")
        XCTAssertGreaterThanOrEqual(r.double("audio.stamps_read") ?? 0, 8, "the sound, ratcheted too, is read: \(r.stdout)")
    }

    /// A page with another passphrase decrypts nothing, so it decodes no picture and sends
    /// nothing back; Sluice says no frame came back, and neither side crashes or hangs.
    func testChromiumWithAnotherPassphraseDecryptsNothing() throws {
        try CLI.requireBrowserTools()
        let trip = try CLI.roundTrip(
            through: "chromium", port: 18625, seconds: 6, warmup: 2, file: "Pipelines/room-echo-e2ee.yaml",
            peerArguments: "--e2ee-passphrase not-the-one", environment: ["E2EE_PASSPHRASE": "the-one"])
        let r = trip.result
        let page = trip.peer["e2ee"] as? [String: [String: Int]] ?? [:]
        print("e2ee with another passphrase: measure exit \(r.status); page: \(page), video in: \(trip.peer["in_video"] ?? "-")")
        XCTAssertFalse(trip.peer.isEmpty, "the page ran and reported: \(r.stderr.suffix(3000))")
        for kind in ["video", "audio"] {
            XCTAssertEqual(page["decrypted"]?[kind] ?? 0, 0, "nothing decrypts with another key: \(trip.peer)")
            XCTAssertGreaterThan(page["failed"]?[kind] ?? 0, 50, "the page saw \(kind) frames and could not decrypt them: \(trip.peer)")
        }
        let videoIn = trip.peer["in_video"] as? [String: Any] ?? [:]
        XCTAssertEqual((videoIn["frames_decoded"] as? NSNumber)?.intValue ?? 0, 0, "no picture decoded: \(trip.peer)")
        XCTAssertEqual(r.double("frames.received") ?? 0, 0, "nothing came back to Sluice: \(r.stdout) \(r.stderr.suffix(2000))")
        XCTAssertLessThan(r.status, 128, "measure ended on its own, not on a signal: \(r.stderr.suffix(3000))")
    }
}
