import Foundation
import SluiceTestSupport
import XCTest

/// End-to-end encryption through Janus VideoRoom: Janus forwards frames it cannot read.
extension JanusEndToEndTests {
    /// A Sluice publisher encrypts (`Pipelines/janus-publish-e2ee.yaml`); a Sluice subscriber
    /// with the passphrase decodes its picture at its size and its sound
    /// (`janus-room-view-e2ee.yaml`), one with another passphrase decodes nothing and counts
    /// what failed, and both end cleanly; an aiortc subscriber gets the packets and decodes no
    /// picture.
    func testOnlyTheSubscriberWithTheKeySeesTheEncryptedPublisher() throws {
        try Janus.requireInstalled()
        let janus = Janus(httpPort: 18089, wsPort: 18189)
        let t = FileManager.default.temporaryDirectory.appendingPathComponent("janus-e2ee-\(UUID().uuidString.prefix(6))").path
        defer { for s in ["p", "k", "n", "a"] { for e in ["json", "err"] { try? FileManager.default.removeItem(atPath: "\(t).\(s).\(e)") } } }
        let run = { (who: String, file: String, passphrase: String, seconds: Int) in
            "E2EE_PASSPHRASE=\(passphrase) SLUICE_JANUS_DISPLAY=\(who) \"$SLUICE\" run Pipelines/\(file) --quiet --log-level info "
                + "--report \(t).\(who).json --duration \(seconds) > /dev/null 2> \(t).\(who).err"
        }
        let (lines, raw) = try inRoom(
            janus,
            """
            \(run("p", "janus-publish-e2ee.yaml", "s3same", 40)) &
            p=$!
            waitfor \(t).p.err 'publishing to room' 300
            \(run("k", "janus-room-view-e2ee.yaml", "s3same", 8)) &
            k=$!
            \(run("n", "janus-room-view-e2ee.yaml", "not-it", 8)) &
            n=$!
            aiortc=$('\(Repository.python)' '\(Repository.path("Tests/Interop/janus/aiortc_subscriber.py"))' http://127.0.0.1:\(janus.httpPort)/janus 1234 p --seconds 6 2> \(t).a.err)
            st=$?; echo "AIORTC: $aiortc"; echo "AIORTC-STATUS: $st"
            wait $k; echo "K-STATUS: $?"; wait $n; echo "N-STATUS: $?"
            kill -INT $p; wait $p; echo "P-STATUS: $?"
            echo "LOGS: $(cat \(t).p.err \(t).k.err \(t).n.err \(t).a.err | tr '\\n' ' ' | cut -c1-2000)"
            """)
        XCTAssertEqual(lines["P-STATUS"], "0", raw)
        XCTAssertEqual(lines["K-STATUS"], "0", raw)
        XCTAssertEqual(lines["N-STATUS"], "0", "the keyless subscriber ends cleanly too: \(raw)")
        XCTAssertFalse(raw.contains("s3same"), "the passphrase is never printed")
        func stream(_ who: String, _ media: String) -> [String: Any]? {
            let streams = ((report("\(t).\(who).json")["receive"] as? [String: Any])?["streams"] as? [[String: Any]]) ?? []
            return streams.first { $0["publisher"] as? String == "p" && $0["media"] as? String == media }
        }
        func failed(_ who: String) -> Int {
            let filters = report("\(t).\(who).json")["filters"] as? [[String: Any]] ?? []
            return filters.compactMap { ($0["events"] as? [String: Any])?["decrypt-failed"] as? Int }.reduce(0, +)
        }
        let frames = { (s: [String: Any]?) in (s?["frames"] as? NSNumber)?.intValue ?? 0 }
        let keyed = stream("k", "video"), keyless = stream("n", "video")
        print(
            "janus e2ee: keyed subscriber \(frames(keyed)) frames \(keyed?["width"] ?? "?")x\(keyed?["height"] ?? "?"), "
                + "\(frames(stream("k", "audio"))) sound buffers, \(failed("k")) failed; keyless \(frames(keyless)) frames, \(failed("n")) failed")
        XCTAssertGreaterThan(frames(keyed), 60, "the key holder decodes the picture: \(report("\(t).k.json"))")
        XCTAssertEqual((keyed?["width"] as? NSNumber)?.intValue, 640)
        XCTAssertGreaterThan(frames(stream("k", "audio")), 50, "and the sound")
        XCTAssertLessThanOrEqual(failed("k"), 2)
        XCTAssertNotNil(keyless, "the keyless subscriber got the publisher's streams: \(report("\(t).n.json"))")
        XCTAssertEqual(frames(keyless), 0, "but decodes no picture")
        XCTAssertEqual(frames(stream("n", "audio")), 0, "and no sound")
        XCTAssertGreaterThan(failed("n"), 3, "it counts the frames that did not decrypt: \(report("\(t).n.json"))")
        // aiortc (libvpx) subscribed to the same publisher: the encrypted packets reach it,
        // and it decodes no picture from them.
        XCTAssertEqual(lines["AIORTC-STATUS"], "0", raw)
        let aiortc = (lines["AIORTC"].flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) } as? [String: Any]) ?? [:]
        print("janus e2ee: aiortc subscriber \(aiortc)")
        XCTAssertGreaterThan(((aiortc["packets"] as? [String: Any])?["video"] as? NSNumber)?.intValue ?? 0, 100, "\(aiortc) \(raw)")
        XCTAssertEqual(((aiortc["frames"] as? [String: Any])?["video"] as? NSNumber)?.intValue, 0, "aiortc sees no picture: \(aiortc)")
    }

    /// Chromium through janus.js, with its own WebCrypto implementation of the format
    /// (RTCRtpScriptTransform): it subscribes to the encrypted Sluice publisher and shows its
    /// moving 640×360 picture, and publishes its camera encrypted, which a Sluice subscriber
    /// with the passphrase decrypts and decodes.
    func testChromiumThroughJanusReadsAndWritesTheEncryptedFrames() throws {
        try Janus.requireInstalled()
        try CLI.requireBrowserTools()
        let janus = Janus(httpPort: 18093, wsPort: 18193)
        let t = FileManager.default.temporaryDirectory.appendingPathComponent("janus-e2ee-browser-\(UUID().uuidString.prefix(6))").path
        defer { for e in ["json", "out", "done", "pub", "view", "berr"] { try? FileManager.default.removeItem(atPath: "\(t).\(e)") } }
        let (lines, raw) = try inRoom(
            janus, timeout: 150,
            """
            export E2EE_PASSPHRASE=open-s3same
            SLUICE_JANUS_DISPLAY=cam-e "$SLUICE" run Pipelines/janus-publish-e2ee.yaml --set send.video.capture.pattern=snow --duration 90 --quiet --log-level info > /dev/null 2> \(t).pub &
            a=$!
            waitfor \(t).pub 'the publishing PeerConnection is up' 300
            '\(Repository.python)' '\(Repository.path("Tests/Interop/janus/janus_browser.py"))' '\(janus.url)' 1234 cam-e --publish \
              --e2ee-passphrase "$E2EE_PASSPHRASE" --hold-until \(t).done --timeout 40 > \(t).out 2> \(t).berr &
            b=$!
            waitfor \(t).out picture 900
            "$SLUICE" run Pipelines/janus-room-view-e2ee.yaml --set 'transport.subscribe=[chromium]' --duration 5 --quiet --report \(t).json > /dev/null 2> \(t).view
            echo "VIEW-STATUS: $?"
            touch \(t).done
            wait $b; echo "BROWSER-STATUS: $?"
            echo "BROWSER: $(cat \(t).out)"
            kill -INT $a; wait $a; echo "PUB-STATUS: $?"
            echo "LOGS: $(cat \(t).berr \(t).pub \(t).view | tr '\\n' ' ' | cut -c1-2000)"
            """)
        XCTAssertEqual(lines["BROWSER-STATUS"], "0", raw)
        XCTAssertEqual(lines["VIEW-STATUS"], "0", raw)
        XCTAssertEqual(lines["PUB-STATUS"], "0", raw)
        let browser = (lines["BROWSER"].flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) } as? [String: Any]) ?? [:]
        let picture = browser["picture"] as? [String: Any] ?? [:], page = browser["e2ee"] as? [String: [String: Int]] ?? [:]
        let streams = ((report("\(t).json")["receive"] as? [String: Any])?["streams"] as? [[String: Any]]) ?? []
        let frames = { (media: String) in (streams.first { $0["media"] as? String == media }?["frames"] as? NSNumber)?.intValue ?? 0 }
        print(
            "janus e2ee with chromium: page \(page), picture \(picture["videoWidth"] ?? "?")x\(picture["videoHeight"] ?? "?"); "
                + "sluice decoded chromium's \(frames("video")) frames, \(frames("audio")) sound buffers")
        XCTAssertEqual((picture["videoWidth"] as? NSNumber)?.intValue, 640, "Chromium decrypted and decoded the picture: \(browser)")
        XCTAssertEqual((picture["videoHeight"] as? NSNumber)?.intValue, 360, "\(browser)")
        XCTAssertGreaterThan((picture["maxFrameDiff"] as? NSNumber)?.doubleValue ?? 0, 0.5, "a moving picture: \(browser)")
        XCTAssertGreaterThan(page["decrypted"]?["video"] ?? 0, 30, "\(browser)")
        XCTAssertLessThan(page["failed"]?["video"] ?? 0, 5, "\(browser)")
        XCTAssertGreaterThan(page["encrypted"]?["video"] ?? 0, 30, "Chromium published encrypted: \(browser)")
        XCTAssertGreaterThan(frames("video"), 30, "Sluice decrypted Chromium's picture through Janus: \(streams) \(raw)")
        XCTAssertGreaterThan(frames("audio"), 50, "and its sound: \(streams)")
    }
}
