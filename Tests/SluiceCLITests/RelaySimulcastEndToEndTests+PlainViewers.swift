import Foundation
import SluiceTestSupport
import XCTest

/// Viewers that know nothing of simulcast, of stacks nobody here wrote, play a relayed
/// simulcast publisher as one ordinary stream: Pion (Go) and Firefox ESR. Each is held on a
/// layer by `?layer=` and must decode that layer's size from the one SSRC it was answered
/// with; Pion reports any RTP stream it could not match to its track.
extension RelaySimulcastEndToEndTests {
    /// A Sluice publisher's three layers (640x360, 320x180, 160x90 VP8) in the relay, then
    /// `viewers` (shell lines that write their JSON to `$T.<name>`) one after the other.
    private func playRelayedLayers(port: Int, viewers: [String: String], timeout: Double) throws -> [String: [String: Any]] {
        let t = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-plain-viewers-\(UUID().uuidString)").path
        defer { for name in viewers.keys { try? FileManager.default.removeItem(atPath: "\(t).\(name)") } }
        let script = """
            ip link set lo up
            "$SLUICE" serve --port \(port) --relay >/dev/null 2>&1 &
            server=$!
            i=0; until curl -s -m 1 -o /dev/null http://127.0.0.1:\(port)/status.json; do i=$((i+1)); [ $i -lt 200 ] || exit 90; sleep 0.05; done
            SLUICE_WHIP=http://127.0.0.1:\(port)/whip/cam "$SLUICE" run Pipelines/whip-publish-simulcast.yaml --duration 120 --quiet >/dev/null 2>&1 &
            pub=$!
            # Live, every layer sized (bounded: 20 s).
            \(Self.waitForLayers(["h", "m", "l"], port: port))
            echo "STREAMS: $(curl -s http://127.0.0.1:\(port)/streams.json)"
            URL=http://127.0.0.1:\(port)/whep/cam
            \(viewers.keys.sorted().map { "\(viewers[$0]!) > \"$T.\($0)\" 2>\"$T.\($0).err\"; echo \"\($0.uppercased()): $?\"" }.joined(separator: "\n"))
            kill -INT $pub; wait $pub
            kill -INT $server; wait $server
            """
        var env = ["SLUICE": CLI.binary.path, "PYTHON": Repository.python, "T": t]
        if let pion = try? InteropPionTests.setup.get().peer { env["PION"] = pion }
        let r = try CLI.execute(inNamespace: script, env: env, timeout: timeout, reportPath: nil)
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        XCTAssertTrue(r.keyedLines["STREAMS"]?.contains(#""rid":"l""#) ?? false, "the publisher's layers: \(r.stdout)")
        var out: [String: [String: Any]] = [:]
        for name in viewers.keys {
            let text = (try? String(contentsOfFile: "\(t).\(name)", encoding: .utf8)) ?? ""
            let errors = (try? String(contentsOfFile: "\(t).\(name).err", encoding: .utf8)) ?? ""
            XCTAssertEqual(r.keyedLines[name.uppercased()], "0", "\(name) played: \(text.suffix(1500)) \(errors.suffix(1500))")
            let line = text.split(separator: "\n").last { $0.hasPrefix("{") }
            out[name] = line.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] } ?? [:]
            try? FileManager.default.removeItem(atPath: "\(t).\(name).err")
        }
        return out
    }

    /// Pion held on the top layer and on the least: each decodes that size at the frame rate,
    /// every RTP packet matched to its track.
    func testPionPlaysOneLayerOfARelayedSimulcastPublisher() throws {
        let peer = try InteropPionTests.setup.get().peer
        XCTAssertFalse(peer.isEmpty)
        let play = #""$PION" whep-play --url "$URL?layer=LAYER" --seconds 4 --codec vp8"#
        let results = try playRelayedLayers(
            port: 18488, viewers: ["top": play.replacingOccurrences(of: "LAYER", with: "h"), "least": play.replacingOccurrences(of: "LAYER", with: "l")],
            timeout: 120)
        for (name, size) in [("top", (640, 360)), ("least", (160, 90))] {
            let j = results[name] ?? [:]
            XCTAssertEqual(j["width"] as? Int, size.0, "\(name): \(j)")
            XCTAssertEqual(j["height"] as? Int, size.1, "\(name): \(j)")
            XCTAssertGreaterThanOrEqual(j["fps"] as? Double ?? 0, 24, "\(name): ≥ 80% of 30 fps: \(j)")
            let unhandled = (j["unhandled"] as? [String] ?? []).filter { $0.contains("RTP") && !$0.contains("RTCP") }
            XCTAssertEqual(unhandled, [], "\(name): every RTP packet belongs to the one stream it was answered with")
        }
    }

    /// Firefox held on the middle layer shows it: the `<video>` plays at 320x180 and the ball moves.
    func testFirefoxShowsOneLayerOfARelayedSimulcastPublisher() throws {
        try InteropFirefoxTests.requireFirefox()
        let play = #""$PYTHON" \#(InteropFirefoxTests.peer) play "$URL?layer=m" --seconds 4 --codec vp8 --timeout 30"#
        let j = try playRelayedLayers(port: 18489, viewers: ["firefox": play], timeout: 180)["firefox"] ?? [:]
        XCTAssertEqual(j["frame_size"] as? String, "320x180", "\(j)")
        XCTAssertGreaterThanOrEqual(j["decode_fps"] as? Double ?? 0, 24, "≥ 80% of 30 fps: \(j)")
        let video = j["video_element"] as? [String: Any] ?? [:]
        XCTAssertEqual(video["readyState"] as? Int, 4, "the <video> plays: \(video)")
        XCTAssertEqual(video["videoWidth"] as? Int, 320, "\(video)")
        // The publisher draws a small white ball on black (mean luma about 1.3 of 255): the
        // pixels must move and not be all black.
        let pixels = j["pixels"] as? [String: Any] ?? [:]
        XCTAssertEqual(pixels["changed"] as? Int, 1, "the picture moves: \(pixels)")
        XCTAssertGreaterThan(pixels["luma_second"] as? Double ?? 0, 0.5, "and is not black: \(pixels)")
    }
}
