import Foundation
import SluiceTestSupport
import XCTest

/// The control API (`/api/v1`, `Sources/SluiceControlAPI/openapi.yaml`) end to end: a real
/// `sluice serve` or `sluice run --control` in a loopback-only namespace, driven by
/// `Tests/Operate/control_check.py`, which reports what it measured; the assertions are here.
final class ControlAPIEndToEndTests: XCTestCase {
    /// Every pipeline operation on a served pipeline created at run time, with an aiortc
    /// viewer playing it, plus the refusals: tokens and scopes, invalid files and filter
    /// lists (with FILE:LINE:COL), unknown pipelines, filters and parameters, paths outside
    /// the allowed folder.
    func testServeCreatesControlsAndStopsAPipeline() throws {
        let client = """
            "$PYTHON" Tests/Operate/control_check.py serve "$URL" --admin adm1n --viewer v1ew --aiortc Tests/Interop/aiortc/aiortc_peer.py
            """
        let r = try CLI.runClientWithServer(
            serve: ["--admin-token", "adm1n", "--viewer-token", "v1ew", "--pipelines-dir", "Pipelines"],
            port: 18941, client: client, timeout: 150)
        XCTAssertEqual(r.status, 0, r.stderr.suffix(3000) + "")
        let j = try InteropAiortcTests.json(r)

        // Tokens: none or unknown → 401, a viewer may read but not change.
        XCTAssertEqual(j["no_token"] as? Int, 401)
        XCTAssertEqual(j["wrong_token"] as? Int, 401)
        XCTAssertEqual(j["viewer_read"] as? Int, 200)
        XCTAssertEqual(j["viewer_create"] as? Int, 403)
        XCTAssertEqual(j["viewer_create_type"] as? String, "application/problem+json")

        // Bad input is refused with the problem in the body.
        let bad = try XCTUnwrap(j["bad_yaml"] as? [String: Any])
        XCTAssertEqual(bad["status"] as? Int, 422)
        XCTAssertTrue((bad["type"] as? String ?? "").hasPrefix("application/problem+json"), "\(bad)")
        let errors = bad["errors"] as? [String] ?? []
        XCTAssertTrue(errors.contains { $0.hasPrefix("request body:4:21:") && $0.contains("tset") }, "\(errors)")
        XCTAssertEqual((j["bad_json"] as? [String: Any])?["status"] as? Int, 400, "\(j["bad_json"] ?? "")")
        XCTAssertEqual(j["unknown_pipeline"] as? Int, 404)
        XCTAssertEqual(j["path_escape"] as? Int, 403)
        XCTAssertEqual(j["path_missing"] as? Int, 404)

        // Created at run time, from posted YAML and from a file in the allowed folder.
        let create = try XCTUnwrap(j["create"] as? [String: Any])
        XCTAssertEqual(create["status"] as? Int, 201)
        XCTAssertEqual(create["state"] as? String, "playing")
        XCTAssertEqual(create["branches"] as? [String], ["send.video", "send.audio"])
        XCTAssertEqual(j["duplicate"] as? Int, 409)
        let fromPath = try XCTUnwrap(j["from_path"] as? [String: Any])
        XCTAssertEqual(fromPath["status"] as? Int, 201, "\(fromPath)")
        XCTAssertEqual(fromPath["name"] as? String, "fromfile")

        // Bitrate: 1.5 Mbit/s → 300 kbit/s shows in the encoder's output within 2 s.
        XCTAssertGreaterThan(j["kbps_before"] as? Int ?? 0, 1000, "\(j)")
        // kbit/s, as in pipeline files, in the request, the answer and the event.
        XCTAssertEqual((j["set_bitrate"] as? [String: Any])?["bitrate_kbps"] as? Int, 300, "\(j["set_bitrate"] ?? "")")
        let changed = try XCTUnwrap(j["bitrate_event"] as? [String: Any], "no bitrate event: \(j)")
        XCTAssertEqual(changed["bitrate_kbps"] as? Double, 300, "\(changed)")
        XCTAssertEqual(changed["media"] as? String, "video")
        let after = try XCTUnwrap(j["kbps_after"] as? Int, "no stats window after the change: \(j)")
        XCTAssertLessThan(after, 450, "the first full second after the change: \(j)")
        XCTAssertLessThanOrEqual(j["kbps_after_delay_s"] as? Double ?? 99, 2.2)
        XCTAssertEqual(j["bad_bitrate"] as? Int, 422, "below the minimum")
        let oldKey = try XCTUnwrap(j["old_key"] as? [String: Any])
        XCTAssertEqual(oldKey["status"] as? Int, 400, "\(oldKey)")
        XCTAssertTrue(
            (oldKey["detail"] as? String ?? "").contains("the body has 'bitrate': did you mean 'bitrate_kbps' (in kbit/s"),
            "the key before it named its unit: \(oldKey)")

        // Keyframes come out within 2 frames of each request.
        let keyframes = try XCTUnwrap(j["keyframes"] as? [[String: Any]])
        XCTAssertEqual(keyframes.count, 3)
        for k in keyframes {
            XCTAssertEqual(k["status"] as? Int, 202)
            let n = try XCTUnwrap(k["frames"] as? Int, "\(k)")
            XCTAssertTrue((1...2).contains(n), "the keyframe was frame \(n) after the request")
        }

        // Filters: swapped while frames keep flowing; parameters set and refused.
        XCTAssertEqual((j["swap"] as? [String: Any])?["filters"] as? [String], ["pixelate"], "\(j["swap"] ?? "")")
        let parameters = (j["set_parameter"] as? [String: Any])?["parameters"] as? [String: String]
        XCTAssertEqual(parameters?["block"], "16", "\(j["set_parameter"] ?? "")")
        XCTAssertEqual(j["unknown_parameter"] as? Int, 422)
        XCTAssertEqual(j["out_of_range"] as? Int, 422)
        XCTAssertEqual(j["missing_filter"] as? Int, 404)
        let badSwap = try XCTUnwrap(j["bad_swap"] as? [String: Any])
        XCTAssertEqual(badSwap["status"] as? Int, 422)
        XCTAssertTrue((badSwap["errors"] as? [String] ?? []).contains { $0.hasPrefix("request body:1:") }, "\(badSwap)")
        XCTAssertGreaterThan(j["fps_after_swap"] as? Double ?? 0, 25, "frames keep flowing across the swap")
        XCTAssertEqual(j["no_channel"] as? Int, 404)

        // The video track disabled: the viewer (aiortc) ends on a black picture.
        XCTAssertEqual((j["disable_video"] as? [String: Any])?["enabled"] as? Bool, false)
        let viewer = try XCTUnwrap(j["viewer"] as? [String: Any])
        XCTAssertGreaterThan(viewer["video_frames"] as? Int ?? 0, 100, "\(viewer)")
        let luma = try XCTUnwrap(viewer["mean_luma"] as? Double, "\(viewer)")
        XCTAssertLessThan(luma, 24, "black is luma 16; snow averages ~128: \(viewer)")

        // Stats and events; a graceful stop ends the stream.
        let detail = try XCTUnwrap(j["detail"] as? [String: Any])
        XCTAssertNotNil((detail["stats"] as? [String: Any])?["encoded_fps"], "\(detail)")
        // The stop answers once the pipeline is gone (200, `stopped`).
        XCTAssertEqual((j["stop"] as? [String: Any])?["status"] as? Int, 200, "\(j["stop"] ?? "")")
        XCTAssertEqual((j["stop"] as? [String: Any])?["state"] as? String, "stopped")
        XCTAssertEqual(j["gone"] as? Bool, true)
        XCTAssertEqual(j["events_ended"] as? Bool, true)
        let types = Set(j["event_types"] as? [String] ?? [])
        for t in ["state", "stats", "bitrate", "keyframe", "filters-replaced", "filter-parameters", "track", "session-start", "session-end"] {
            XCTAssertTrue(types.contains(t), "no \(t) event in \(types)")
        }
        XCTAssertEqual(j["last_state"] as? [String], ["stopped"])
        XCTAssertEqual(j["after_stop"] as? Int, 404)
    }

    /// `sluice run --control`: muting the audio track is silence where it is received (the
    /// level the receive side measures), volume 0.5 is about -6 dB, a data channel message
    /// arrives at the other end, and the API's stop ends the run with exit 0.
    func testRunControlMutesSendsAndStops() throws {
        let script = """
            ip link set lo up
            URL=http://127.0.0.1:18942
            "$SLUICE" run Pipelines/control-loopback.yaml --control 127.0.0.1:18942 --duration 60 --quiet &
            run=$!
            i=0; until curl -s -m 1 -o /dev/null "$URL/api/v1/pipelines"; do i=$((i+1)); [ $i -lt 300 ] || exit 90; sleep 0.05; done
            "$PYTHON" Tests/Operate/control_check.py run "$URL" || exit 91
            wait $run
            echo EXIT: $?
            """
        let r = try CLI.execute(
            inNamespace: script,
            env: ["SLUICE": CLI.binary.path, "PYTHON": Repository.python], timeout: 90, reportPath: nil)
        XCTAssertEqual(r.status, 0, r.stderr.suffix(3000) + "")
        let line = r.stdout.split(separator: "\n").first { $0.hasPrefix("{") }.map(String.init) ?? ""
        let j = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], r.stdout)
        let before = try XCTUnwrap(j["level_before"] as? Double, "\(j)")
        XCTAssertGreaterThan(before, -20, "a full-scale-ish 440 Hz tone arrives")
        XCTAssertEqual(j["mute"] as? Int, 200)
        XCTAssertLessThan(j["level_muted"] as? Double ?? 0, -80, "muted is silence at the receiver: \(j)")
        XCTAssertLessThanOrEqual(j["level_muted_delay_s"] as? Double ?? 99, 2.2)
        let half = try XCTUnwrap(j["level_half"] as? Double, "\(j)")
        XCTAssertEqual(half - before, -6, accuracy: 2, "volume 0.5 is -6 dB: \(j)")
        XCTAssertEqual(j["bad_volume"] as? Int, 422)
        // An audio filter swapped in (`gain` −12 dB) and then set to 0 dB in place, while the
        // tone plays: the receiver hears each.
        XCTAssertEqual(j["audio_swap"] as? Int, 200, "\(j)")
        XCTAssertEqual(j["audio_gain0"] as? Int, 200, "\(j)")
        let withGain = try XCTUnwrap(j["level_gain"] as? Double, "\(j)"), gain0 = try XCTUnwrap(j["level_gain0"] as? Double, "\(j)")
        print("control API audio: level \(before) dB, volume 0.5 \(half) dB, gain −12 swapped in \(withGain) dB, set to 0 dB \(gain0) dB")
        XCTAssertEqual(withGain - half, -12, accuracy: 2, "gain −12 dB swapped in: \(j)")
        XCTAssertEqual(gain0 - half, 0, accuracy: 2, "then 0 dB, set in place: \(j)")
        XCTAssertEqual(j["message"] as? Int, 202)
        XCTAssertEqual(j["unknown_channel"] as? Int, 404)
        XCTAssertEqual(j["create"] as? Int, 409, "a run hosts its one pipeline")
        XCTAssertEqual((j["stop"] as? [String: Any])?["state"] as? String, "stopping")
        XCTAssertEqual(j["events_ended"] as? Bool, true)
        XCTAssertTrue(r.stdout.contains("[chat] hello from the API"), r.stdout)
        XCTAssertTrue(r.stdout.contains("EXIT: 0"), r.stdout)
    }
}

extension ControlAPIEndToEndTests {
    /// schemathesis (PyPI) generates requests from the served `/openapi.yaml` against a server
    /// with a pipeline and a `--pipelines-dir`, with every check it has (`-c all`) and every
    /// phase: examples, boundary values, fuzzed bodies and parameters, and the stateful phase,
    /// which follows the document's links from a created or listed pipeline to the operations
    /// on it. No 5xx, only statuses, content types and bodies the document declares, 405 for a
    /// method a path does not have, 401 without the token, a stopped pipeline gone.
    /// `Tests/Interop/openapi/schemathesis.toml` bounds the event stream (`limit=1`) and says
    /// which refusals a schema-valid pipeline file may get.
    func testSchemathesisFindsNoServerErrorAndNoResponseOutsideTheSchema() throws {
        let client = """
            "$(dirname "$PYTHON")/schemathesis" --config-file Tests/Interop/openapi/schemathesis.toml run "$URL/openapi.yaml" \\
              --url "$URL/api/v1" -H 'Authorization: Bearer adm1n' --checks all --phases examples,coverage,fuzzing,stateful \\
              --max-examples 20 --seed 7 --workers 1 --no-color --request-timeout 10
            """
        let r = try CLI.runClientWithServer(
            serve: [
                "--admin-token", "adm1n", "--pipeline", "Pipelines/serve-testsrc.yaml", "--pipeline", "Pipelines/serve-stamped.yaml", "--pipelines-dir",
                "Pipelines"
            ],
            port: 18943, client: client, timeout: 600)
        XCTAssertEqual(r.status, 0, "schemathesis found problems:\n\(r.stdout.suffix(6000))\n\(r.stderr.suffix(2000))")
        XCTAssertTrue(r.stdout.contains("passed"), r.stdout.suffix(3000) + "")
    }
}

extension ControlAPIEndToEndTests {
    /// Pipelines created and stopped over and over through the API leave nothing behind:
    /// after a warm-up, open fds and threads are back where they were and resident memory
    /// has not grown by more than allocator noise. (`Tests/Operate/cycles.py`; docs/serve-and-operate.md's
    /// figure is from 1,000 cycles, this test runs fewer to keep the suite short.)
    func testCreateStopCyclesLeakNothing() throws {
        let client = """
            "$PYTHON" Tests/Operate/cycles.py "$URL" --token t0k --cycles 150 --warmup 10
            """
        let r = try CLI.runClientWithServer(serve: ["--token", "t0k"], port: 18944, client: client, timeout: 400)
        XCTAssertEqual(r.status, 0, r.stderr.suffix(3000) + "")
        let j = try InteropAiortcTests.json(r)
        let warm = try XCTUnwrap(j["warm"] as? [String: Double]), end = try XCTUnwrap(j["end"] as? [String: Double])
        let fds = try XCTUnwrap(end["process_open_fds"]) - (warm["process_open_fds"] ?? 0)
        let threads = try XCTUnwrap(end["process_threads"]) - (warm["process_threads"] ?? 0)
        let rss = try XCTUnwrap(end["process_resident_memory_bytes"]) - (warm["process_resident_memory_bytes"] ?? 0)
        XCTAssertLessThanOrEqual(fds, 2, "open fds grew over 150 cycles: \(j)")
        XCTAssertLessThanOrEqual(threads, 2, "threads grew over 150 cycles: \(j)")
        XCTAssertLessThan(rss, 16_000_000, "resident memory grew by \(Int(rss / 1e6)) MB over 150 cycles: \(j)")
    }
}
