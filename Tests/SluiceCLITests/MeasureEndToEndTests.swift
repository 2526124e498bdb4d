import Foundation
import XCTest
#if canImport(FoundationXML)
    import FoundationXML
#endif

/// `sluice measure`: one process, two processes in namespaces, and a delay imposed on the
/// link between them.
final class MeasureEndToEndTests: XCTestCase {
    private func measure(_ args: [String], timeout: Double = 90) throws -> (CLIResult, [String: Any]?, String?) {
        let tmp = FileManager.default.temporaryDirectory
        let json = tmp.appendingPathComponent("sluice-measure-\(UUID().uuidString).json").path
        let svg = tmp.appendingPathComponent("sluice-measure-\(UUID().uuidString).svg").path
        defer { try? FileManager.default.removeItem(atPath: json); try? FileManager.default.removeItem(atPath: svg) }
        let r = try CLI.run(["measure"] + args + ["--json", json, "--plot", svg], timeout: timeout)
        let report = FileManager.default.contents(atPath: json).flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
        let plot = FileManager.default.contents(atPath: svg).map { String(decoding: $0, as: UTF8.self) }
        return (r, report, plot)
    }

    private func number(_ o: [String: Any]?, _ path: String) -> Double? {
        var cur: Any? = o
        for k in path.split(separator: ".") { cur = (cur as? [String: Any])?[String(k)] }
        return (cur as? NSNumber)?.doubleValue
    }

    func testMeasureLoopbackReportsLatencyAndFrames() throws {
        let (r, report, plot) = try measure(["Pipelines/loopback.yaml", "--duration", "5", "--warmup", "1"])
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertTrue(r.stdout.contains("latency p50"), "progress lines while it runs: \(r.stdout)")
        let o = try XCTUnwrap(report, r.stdout)
        let p50 = try XCTUnwrap(number(o, "latency.p50_ms")), p99 = try XCTUnwrap(number(o, "latency.p99_ms"))
        XCTAssertGreaterThan(p50, 0)
        XCTAssertLessThan(p50, 300, "a loopback frame is not that late")
        XCTAssertGreaterThanOrEqual(p99, p50)
        let read = try XCTUnwrap(number(o, "frames.received"))
        XCTAssertGreaterThan(read, 60, "most of 5 s at 30 fps is read back")
        XCTAssertLessThanOrEqual(read, try XCTUnwrap(number(o, "frames.stamped")))
        XCTAssertEqual(number(o, "frames.duplicated"), 0)
        XCTAssertEqual(number(o, "frames.unreadable"), 0, "no loss on loopback, so every stamp reads")
        XCTAssertEqual(number(o, "width"), 1280)
        XCTAssertGreaterThan(number(o, "delivered_fps") ?? 0, 20)
        XCTAssertGreaterThan(number(o, "encoder_bitrate_kbps") ?? 0, 100)
        XCTAssertGreaterThan(number(o, "cpu_seconds") ?? 0, 0)
        XCTAssertGreaterThan(number(o, "peak_memory_mib") ?? 0, 10)
        XCTAssertEqual(number(o, "processes"), 1)
        XCTAssertEqual(number(o, "warmup_s"), 1)
        XCTAssertLessThan(number(o, "latency.samples") ?? 0, read, "the first second is left out of the latency figures")
        // Where the time goes: every stage of a frame's path, in order, each measured, and
        // together they account for the latency (what they leave is its own figure).
        try assertStagesAccount(for: o, in: "", p99: p99)
        XCTAssertTrue(r.stdout.contains("unaccounted"), "the summary prints it on a line of its own")
        // The file sends and receives audio too: mouth-to-ear from the audio stamps, and the
        // offset against the video frames captured at the same instants.
        XCTAssertGreaterThanOrEqual(number(o, "audio.stamps_read") ?? 0, 3, "\(o["audio"] ?? "no audio")")
        let mouthToEar = try XCTUnwrap(number(o, "audio.mouth_to_ear.p50_ms"))
        XCTAssertGreaterThan(mouthToEar, 1)
        XCTAssertLessThan(mouthToEar, 400)
        XCTAssertGreaterThanOrEqual(number(o, "audio.av_offset.samples") ?? 0, 3)
        XCTAssertTrue(r.stdout.contains("mouth-to-ear   p50"), r.stdout)
        // The audio path's stages, packet by packet, account for the mouth-to-ear delay too.
        try assertStagesAccount(for: o, in: "audio.", p99: try XCTUnwrap(number(o, "audio.mouth_to_ear.p99_ms")))
        XCTAssertTrue(r.stdout.contains("audio stages (packet by packet)"), r.stdout)
        let svg = try XCTUnwrap(plot)
        XCTAssertTrue(XMLParser(data: Data(svg.utf8)).parse(), "the plot is well-formed SVG")
        XCTAssertEqual(svg.components(separatedBy: "<circle").count - 1, Int(read), "one point per frame read")
    }

    /// Every stage of the path (`prefix`: "" for video, "audio." for audio) in order, each
    /// measured and no slower than the p99 end to end, and together they account for the
    /// mean end to end (what they leave is its own figure).
    private func assertStagesAccount(for o: [String: Any], in prefix: String, p99: Double) throws {
        let figures = prefix.isEmpty ? o : try XCTUnwrap(o[String(prefix.dropLast())] as? [String: Any])
        let stageList = (figures["stages"] as? [[String: Any]]) ?? []
        XCTAssertEqual(
            stageList.compactMap { $0["stage"] as? String },
            [
                "capture → encoder", "encode", "payload + SRTP", "network", "SRTP + jitter buffer", "depayload",
                "decode", "decoder → reader"
            ], "\(prefix)stages: \(figures["stages"] ?? "none")")
        var sumOfMeans = 0.0
        for s in stageList {
            let name = prefix + (s["stage"] as? String ?? "?")
            let p50 = (s["p50_ms"] as? NSNumber)?.doubleValue ?? -1
            XCTAssertGreaterThanOrEqual(p50, 0, name)
            XCTAssertLessThan(p50, p99, "\(name) alone is not slower than end to end")
            XCTAssertGreaterThan((s["samples"] as? NSNumber)?.intValue ?? 0, 30, name)
            sumOfMeans += (s["mean_ms"] as? NSNumber)?.doubleValue ?? 0
        }
        let mean = try XCTUnwrap(number(figures, prefix.isEmpty ? "latency.mean_ms" : "mouth_to_ear.mean_ms"))
        let unaccounted = try XCTUnwrap(number(figures, "unaccounted.mean_ms"), "the report says what the \(prefix)stages leave")
        XCTAssertEqual(unaccounted, mean - sumOfMeans, accuracy: 0.01)
        print("\(prefix)stages: mean \(mean) ms, stages \(sumOfMeans) ms, unaccounted \(unaccounted) ms")
        // Audio's mean is over a few stamps (one a second), the stages' over every packet: one
        // late stamp on a loaded machine moves it by several ms (6.7 of 14 ms seen in CI).
        let slack = prefix.isEmpty ? max(3, mean / 4) : max(10, mean * 0.6)
        XCTAssertLessThan(abs(unaccounted), slack, "the \(prefix)stages cover the path: mean \(mean) ms, stages \(sumOfMeans) ms")
    }

    func testMeasureAcrossTwoProcessesWithADelayOnTheLink() throws {
        // Two namespaces joined by a veth pair (through Sluice's relay where the kernel has no
        // netem); 30 ms one way from sender to receiver.
        let (r, report, _) = try measure([
            "Pipelines/loopback.yaml", "--duration", "6", "--processes", "2",
            "--netem", "delay 30ms",
            "--set", "send.video.capture.width=640", "--set", "send.video.capture.height=360"
        ])
        XCTAssertEqual(r.status, 0, r.stderr + r.stdout)
        let o = try XCTUnwrap(report, r.stdout)
        XCTAssertEqual(number(o, "processes"), 2)
        XCTAssertTrue((o["netem"] as? String)?.hasPrefix("delay 30ms") ?? false, "\(o["netem"] ?? "none")")
        let p50 = try XCTUnwrap(number(o, "latency.p50_ms"))
        XCTAssertGreaterThanOrEqual(p50, 30, "the imposed delay shows in the latency")
        XCTAssertLessThan(p50, 250)
        XCTAssertGreaterThan(number(o, "frames.received") ?? 0, 60)
        XCTAssertGreaterThan(number(o, "frames.stamped") ?? 0, 0, "the sender's stamps are counted")
        XCTAssertEqual(number(o, "width"), 640)
        XCTAssertGreaterThan(number(o, "cpu_seconds") ?? 0, 0)
        // Each process times its own stages: no network stage, and the 30 ms are unaccounted.
        let stages = ((o["stages"] as? [[String: Any]]) ?? []).compactMap { $0["stage"] as? String }
        XCTAssertEqual(
            stages,
            [
                "capture → encoder", "encode", "payload + SRTP", "SRTP + jitter buffer", "depayload", "decode",
                "decoder → reader"
            ], "\(o["stages"] ?? "none")")
        XCTAssertEqual((o["unaccounted"] as? [String: Any])?["includes"] as? String, "network")
        XCTAssertGreaterThanOrEqual(number(o, "unaccounted.mean_ms") ?? 0, 25, "the link's delay is in what the stages leave")
        // So do the audio path's: the sender's up to its transport, the receiver's from its own.
        let audioStages = ((o["audio"] as? [String: Any])?["stages"] as? [[String: Any]] ?? []).compactMap { $0["stage"] as? String }
        XCTAssertEqual(audioStages, stages, "\((o["audio"] as? [String: Any])?["stages"] ?? "no audio stages")")
        XCTAssertEqual(((o["audio"] as? [String: Any])?["unaccounted"] as? [String: Any])?["includes"] as? String, "network")
        XCTAssertGreaterThanOrEqual(number(o, "audio.unaccounted.mean_ms") ?? 0, 25, "the link's delay is in what the audio stages leave")
    }

    /// A pipeline that sends and receives in one process: sending does not wait for the
    /// receive side. With a 200 ms jitter buffer, in-order packets still pass at once, and
    /// nothing on the send path holds a frame (webrtcbin's clocksync once held every frame
    /// for its capture's frame time after each latency recalculation).
    func testSendingDoesNotWaitInAPipelineThatAlsoReceives() throws {
        let (r, report, _) = try measure([
            "Benchmarks/loopback-h264-video.yaml", "--duration", "5", "--warmup", "2",
            "--set", "transport.latency=200"
        ])
        XCTAssertEqual(r.status, 0, r.stderr + r.stdout)
        let o = try XCTUnwrap(report, r.stdout)
        let stages = Dictionary(
            uniqueKeysWithValues: ((o["stages"] as? [[String: Any]]) ?? []).compactMap { s in
                (s["stage"] as? String).map { ($0, s) }
            })
        let send = try XCTUnwrap((stages["payload + SRTP"]?["p50_ms"] as? NSNumber)?.doubleValue, r.stdout)
        XCTAssertLessThan(send, 15, "payloading and SRTP do not wait a frame's time (33 ms): \(r.stdout)")
        XCTAssertLessThan(try XCTUnwrap(number(o, "latency.p50_ms")), 100, "glass-to-glass is not the jitter buffer's 200 ms: \(r.stdout)")
    }

    /// Loss on the link shows as frames lost or unreadable (corrupted until a keyframe).
    func testLossOnTheLinkShowsInTheAccounting() throws {
        let (r, report, _) = try measure([
            "Pipelines/loopback.yaml", "--duration", "5", "--processes", "2", "--netem", "loss 10%",
            "--set", "send.video.capture.width=640", "--set", "send.video.capture.height=360"
        ])
        XCTAssertEqual(r.status, 0, r.stderr + r.stdout)
        let o = try XCTUnwrap(report, r.stdout)
        // Whether frames are lost, damaged or never start (no intact keyframe gets through),
        // the accounting shows it.
        XCTAssertGreaterThan(number(o, "frames.stamped") ?? 0, 0)
        XCTAssertGreaterThan(number(o, "frames.not_delivered") ?? 0, 0, "10% packet loss costs frames: \(r.stdout)")
        XCTAssertLessThan(number(o, "frames.received") ?? 0, number(o, "frames.stamped") ?? 0)
    }

    /// Loss repaired by retransmission: 5% loss with 40 ms delay on the sender-to-receiver
    /// link. The receiver offers VP8, VP9 and H.264 and the sender picks H.264, so this
    /// fails if RTX is paired with the first codec only (webrtcbin 1.22's offers); the
    /// jitter buffer waits longer than the file's 50 ms once repairs need it. Generous bounds
    /// (Benchmarks/congestion.sh holds the tight figure).
    func testRetransmissionRepairsLossOnTheLink() throws {
        let (r, report, _) = try measure(
            [
                "Pipelines/adaptive.yaml", "--duration", "10", "--processes", "2", "--quiet",
                "--netem", "delay 40ms loss 5%", "--set", "send.video.encode.bitrate=1500",
                "--set", "send.video.capture.width=640", "--set", "send.video.capture.height=360"
            ],
            timeout: 120)
        XCTAssertEqual(r.status, 0, r.stderr + r.stdout)
        let o = try XCTUnwrap(report, r.stdout)
        XCTAssertGreaterThan(number(o, "repair.nacks") ?? 0, 0, r.stdout)
        XCTAssertGreaterThan(number(o, "repair.rtx_repaired") ?? 0, 10, "retransmissions repair lost packets: \(r.stdout)")
        XCTAssertGreaterThan(number(o, "repair.jitter_buffer_latency_ms") ?? 0, 50, "the jitter buffer waits for repairs: \(r.stdout)")
        let stamped = number(o, "frames.stamped") ?? 0, received = number(o, "frames.received") ?? 0
        let counted = stamped - (number(o, "frames.before_first_frame") ?? 0) - (number(o, "frames.in_flight_at_stop") ?? 0)
        XCTAssertGreaterThan(received / max(1, counted), 0.8, "most frames arrive intact: \(r.stdout)")
    }

    /// Congestion control end to end through Sluice's relay: the served stream's encoder
    /// follows the WHEP receiver's transport-wide feedback. 2.5 Mbit/s start behind 1 Mbit/s:
    /// the target goes under the link and latency comes back down; when the link opens to
    /// 4 Mbit/s the target climbs past what the narrow link carried. Generous bounds (Benchmarks/congestion.sh holds the
    /// tight figures).
    func testAdaptiveBitrateFollowsAChangingLink() throws {
        let (r, report, plot) = try measure(
            [
                "Pipelines/adaptive.yaml", "--duration", "20", "--processes", "2", "--quiet",
                "--netem-schedule", "rate 1mbit for 8s; rate 4mbit"
            ], timeout: 120)
        XCTAssertEqual(r.status, 0, r.stderr + r.stdout)
        let o = try XCTUnwrap(report, r.stdout)
        let conditions = try XCTUnwrap(o["conditions"] as? [[String: Any]])
        XCTAssertEqual(conditions.map { $0["rate_kbps"] as? Double }, [1000, 4000])
        let table = try XCTUnwrap(o["bitrate"] as? [[String: Any]])
        func rows(_ from: Double, _ to: Double) -> [[String: Any]] {
            table.filter { (($0["t"] as? Double) ?? -1) >= from && (($0["t"] as? Double) ?? 99) < to }
        }
        let narrow = rows(5, 8).compactMap { $0["target_kbps"] as? Double }
        XCTAssertFalse(narrow.isEmpty, "the sender's target is in the report: \(table)")
        XCTAssertLessThanOrEqual(narrow.max() ?? .infinity, 1100, "under the 1 Mbit/s link from 5 s on: \(table)")
        XCTAssertGreaterThanOrEqual(narrow.min() ?? 0, 300, "never below the file's min")
        // Once the link opens the target goes past what the narrow link carried. (How far in
        // 8 s depends on how low the start burst's drain left it, 15% a second from there, and
        // on the load: a CI run under load climbed more slowly than 1100 in 6 s.)
        let opened = rows(16, 21).compactMap { $0["target_kbps"] as? Double }
        XCTAssertGreaterThan(opened.max() ?? 0, 1100, "climbs past the old link once it opens: \(table)")
        XCTAssertGreaterThan(opened.max() ?? 0, 1.25 * (narrow.max() ?? .infinity), "\(table)")
        // What a viewer sees behind the narrow link once settled: frames keep coming, not late.
        let samples = try XCTUnwrap(o["samples"] as? [[Double]])
        let settled = samples.filter { $0[0] >= 4 && $0[0] < 8 }.map { $0[2] }.sorted()
        XCTAssertGreaterThan(settled.count, 80, "≥ 20 fps while the link is narrow: \(settled.count) frames in 4–8 s")
        let p95 = settled.isEmpty ? .infinity : settled[Int(Double(settled.count - 1) * 0.95)]
        XCTAssertLessThan(p95, 400, "no queue growing without bound: p95 \(p95) ms in 4–8 s")
        XCTAssertTrue(plot?.contains("bitrate") ?? false, "the plot draws the bitrates")
    }

    /// Below `scale_below` the sender halves its picture (and the stamps still read): behind
    /// a 1 Mbit/s link the receiver decodes 640×360 from a 1280×720 capture, frames keep
    /// coming and none is damaged.
    func testALowTargetLowersTheResolution() throws {
        let (r, report, _) = try measure(
            [
                "Pipelines/adaptive.yaml", "--duration", "10", "--processes", "2", "--quiet",
                "--netem", "rate 1mbit",
                "--set", "send.video.encode.bitrate={min: 300, start: 2500, max: 2500, scale_below: 1500}"
            ],
            timeout: 120)
        XCTAssertEqual(r.status, 0, r.stderr + r.stdout)
        let o = try XCTUnwrap(report, r.stdout)
        XCTAssertEqual(number(o, "width"), 640, "the receiver decodes the smaller picture: \(r.stdout)")
        XCTAssertEqual(number(o, "height"), 360)
        XCTAssertGreaterThan(number(o, "delivered_fps") ?? 0, 20, r.stdout)
        XCTAssertLessThanOrEqual(number(o, "frames.unreadable") ?? 99, 5, "stamps read at half size: \(r.stdout)")
    }

    func testMeasureArgumentsAndFilesThatCannotBeMeasured() throws {
        let netemAlone = try CLI.run(["measure", "Pipelines/loopback.yaml", "--netem", "delay 10ms"])
        XCTAssertEqual(netemAlone.status, 2)
        XCTAssertTrue(netemAlone.stderr.contains("--netem needs --processes 2"), netemAlone.stderr)
        let badNetem = try CLI.run(["measure", "Pipelines/loopback.yaml", "--processes", "2", "--netem", "delay 10ms; reboot"])
        XCTAssertEqual(badNetem.status, 2)
        XCTAssertTrue(badNetem.stderr.contains("--netem takes tc netem settings"), badNetem.stderr)
        let badSchedule = try CLI.run([
            "measure", "Pipelines/loopback.yaml", "--processes", "2",
            "--netem-schedule", "rate 3mbit; rate 1mbit"
        ])
        XCTAssertEqual(badSchedule.status, 2)
        XCTAssertTrue(badSchedule.stderr.contains("needs 'for T'"), badSchedule.stderr)
        let both = try CLI.run([
            "measure", "Pipelines/loopback.yaml", "--processes", "2", "--netem", "delay 1ms",
            "--netem-schedule", "rate 3mbit"
        ])
        XCTAssertEqual(both.status, 2)
        XCTAssertTrue(both.stderr.contains("not both"), both.stderr)
        let stagesApart = try CLI.run(["measure", "Pipelines/loopback.yaml", "--processes", "2", "--no-stages"])
        XCTAssertEqual(stagesApart.status, 2)
        XCTAssertTrue(stagesApart.stderr.contains("--no-stages is for one process"), stagesApart.stderr)
        let audio = try CLI.run(["measure", "Pipelines/audio-only.yaml", "--duration", "2"])
        XCTAssertEqual(audio.status, 3, audio.stderr)
        XCTAssertTrue(audio.stderr.contains("measure needs a send.video branch"), audio.stderr)
    }

    /// `--no-stages`: the latency and frame figures without the stage breakdown (the
    /// benchmark against plain C runs it so, to show what the probes cost).
    func testWithoutStagesTheLatencyStaysAndTheBreakdownGoes() throws {
        let (r, report, _) = try measure(["Pipelines/loopback.yaml", "--duration", "4", "--warmup", "1", "--no-stages", "--quiet"])
        XCTAssertEqual(r.status, 0, r.stderr)
        let o = try XCTUnwrap(report, r.stdout)
        XCTAssertGreaterThan(number(o, "latency.p50_ms") ?? 0, 0)
        XCTAssertGreaterThan(number(o, "frames.received") ?? 0, 45)
        XCTAssertEqual((o["stages"] as? [Any])?.count ?? 0, 0, "\(o["stages"] ?? "")")
        XCTAssertNil(o["unaccounted"])
        XCTAssertFalse(r.stdout.contains("unaccounted"), r.stdout)
    }

    /// Audio held back on purpose shows as that much A/V offset: a queue in send.audio.filters
    /// that lets sound go only once it holds 90 ms of 10 ms buffers (the tone source's) holds
    /// each buffer 80 ms (GStreamer's queue counts a buffer's end: it lets buffer k go when
    /// buffer k + 8 has come in). Medians of one 6 s run each, a stamp every 400 ms.
    func testAudioHeldBackOnPurposeShowsAsThatMuchOffset() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-av-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        func file(_ name: String, audioFilters: String) throws -> String {
            try avFile(in: dir, name: name, audioFilters: audioFilters)
        }
        let held = Self.heldBackAudio
        var figures: [String: (mouthToEar: Double, offset: Double)] = [:], videoMedians: [String: Double] = [:]
        for (name, filters) in [("plain", ""), ("held", held)] {
            let (r, report, _) = try measure([try file("\(name).yaml", audioFilters: filters), "--duration", "6", "--warmup", "1"])
            XCTAssertEqual(r.status, 0, r.stderr)
            let o = try XCTUnwrap(report, r.stdout)
            figures[name] = (
                try XCTUnwrap(number(o, "audio.mouth_to_ear.p50_ms"), "\(name): \(o["audio"] ?? "no audio")"),
                try XCTUnwrap(number(o, "audio.av_offset.p50_ms"), "\(name): \(o["audio"] ?? "no audio")")
            )
            videoMedians[name] = number(o, "latency.p50_ms")
        }
        let plain = try XCTUnwrap(figures["plain"]), heldBack = try XCTUnwrap(figures["held"])
        print("A/V: plain mouth-to-ear \(plain.mouthToEar) ms, offset \(plain.offset) ms; held back \(heldBack.mouthToEar) ms, \(heldBack.offset) ms")
        XCTAssertEqual(heldBack.mouthToEar - plain.mouthToEar, 80, accuracy: 5, "the queue holds the sound 80 ms")
        XCTAssertEqual(heldBack.offset - plain.offset, 80, accuracy: 5, "and the A/V offset grows by as much")
        // Without the queue the offset is not 0 but what the two paths differ by: Opus waits
        // for its 20 ms frame to fill, the 320x240 picture is through in a few ms.
        let plainVideo = try XCTUnwrap(videoMedians["plain"])
        XCTAssertEqual(plain.offset, plain.mouthToEar - plainVideo, accuracy: 5, "the offset is audio's delay less video's")
    }

    /// A queue that lets sound go only once it holds 90 ms of the tone source's 10-ms buffers:
    /// each buffer leaves 80 ms after it came (see the test above).
    private static let heldBackAudio =
        ", { gst: \"queue min-threshold-time=90000000 max-size-time=0 max-size-buffers=0 max-size-bytes=0\" }"

    /// A loopback file sending 320x240 VP8 and a stamped tone, with `audioFilters` after the
    /// stamp writer and `playout` as `receive.playout` (none: the default).
    private func avFile(in dir: URL, name: String, audioFilters: String, playout: String? = nil) throws -> String {
        let path = dir.appendingPathComponent(name).path
        try """
        transport: { kind: loopback, ice: { addresses: [127.0.0.1] } }
        send:
          video:
            capture: { kind: test, width: 320, height: 240, fps: 30 }
            encode: { codec: vp8, bitrate: 500 }
          audio:
            capture: { kind: swift, name: tone, frequency: 440 }
            filters: [{ filter: audiostamp, interval_ms: 400 }\(audioFilters)]
            encode: { codec: opus, bitrate: 32 }
        receive:
          \(playout.map { "playout: \($0)" } ?? "")
          video: { sink: stats }
          audio: { sink: stats }
        """.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// `receive.playout: lip-sync` plays sound and picture captured together at the same
    /// moment: the A/V offset is 0 ± 5 ms where playing on arrival gives what the paths differ
    /// by (Opus's 20-ms frame). Sound held back 80 ms on the sender (its RTCP reports keep
    /// mapping RTP time to capture time) is met by the picture waiting 80 ms longer: still in
    /// sync, both later by as much. Medians of one 6 s run each, a stamp every 400 ms.
    func testLipSyncedPlayoutPlaysSoundAndPictureTogether() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-lips-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        struct Figures { var video: Double, audio: Double, offset: Double }
        var figures: [String: Figures] = [:]
        for (name, filters) in [("synced", ""), ("held", Self.heldBackAudio)] {
            let path = try avFile(in: dir, name: "\(name).yaml", audioFilters: filters, playout: "lip-sync")
            let (r, report, _) = try measure([path, "--duration", "6", "--warmup", "1"])
            XCTAssertEqual(r.status, 0, r.stderr)
            let o = try XCTUnwrap(report, r.stdout)
            let context = "\(name): \(o["audio"] ?? "no audio")"
            figures[name] = Figures(
                video: try XCTUnwrap(number(o, "latency.p50_ms"), r.stdout),
                audio: try XCTUnwrap(number(o, "audio.mouth_to_ear.p50_ms"), context),
                offset: try XCTUnwrap(number(o, "audio.av_offset.p50_ms"), context))
            XCTAssertGreaterThanOrEqual(number(o, "audio.av_offset.samples") ?? 0, 8, context)
        }
        let synced = try XCTUnwrap(figures["synced"]), held = try XCTUnwrap(figures["held"])
        print("lip sync: \(synced) ms; sound held back 80 ms: \(held) ms")
        XCTAssertEqual(synced.offset, 0, accuracy: 5, "sound and picture played together")
        XCTAssertEqual(held.offset, 0, accuracy: 5, "still together with the sound held back")
        // The queue holds each buffer 80 ms after it came; a tone buffer made late under load
        // (CI's two busy cores) is held a buffer less: 71 ms was seen. What lip sync must do is
        // that the picture waits as long as the sound came later, whatever that was.
        let soundLater = held.audio - synced.audio, pictureLater = held.video - synced.video
        XCTAssertEqual(soundLater, 80, accuracy: 15, "the sound came about 80 ms later")
        XCTAssertEqual(pictureLater, soundLater, accuracy: 8, "and the picture waited as long")
    }

    /// Two processes, without and with 40 ms one way on the link: the audio's mouth-to-ear
    /// grows by 40 ± 3 ms (medians of one 8 s run each, a stamp every 400 ms), as the
    /// video's glass-to-glass does.
    func testAudioMouthToEarAcrossTwoProcessesGrowsByTheLinksDelay() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-m2e-\(UUID().uuidString).yaml").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try """
        name: m2e
        transport: { kind: loopback, ice: { addresses: [127.0.0.1] } }
        send:
          video:
            capture: { kind: test, width: 320, height: 240, fps: 30 }
            encode: { codec: vp8, bitrate: 500 }
          audio:
            capture: { kind: test, wave: sine, frequency: 440 }
            filters: [{ filter: audiostamp, interval_ms: 400 }]
            encode: { codec: opus, bitrate: 32 }
        receive:
          video: { sink: stats }
          audio: { sink: stats }
        """.write(toFile: path, atomically: true, encoding: .utf8)
        var audio: [Double] = [], video: [Double] = []
        for netem in [[], ["--netem", "delay 40ms"]] {
            let (r, report, _) = try measure([path, "--duration", "8", "--warmup", "1", "--processes", "2", "--quiet"] + netem)
            XCTAssertEqual(r.status, 0, r.stderr + r.stdout)
            let o = try XCTUnwrap(report, r.stdout)
            XCTAssertGreaterThanOrEqual(number(o, "audio.stamps_read") ?? 0, 12, "\(o["audio"] ?? "no audio")")
            XCTAssertGreaterThanOrEqual(number(o, "audio.av_offset.samples") ?? 0, 12, "the stamps meet their video frames across processes")
            audio.append(try XCTUnwrap(number(o, "audio.mouth_to_ear.p50_ms"), "\(o["audio"] ?? "no audio")"))
            video.append(try XCTUnwrap(number(o, "latency.p50_ms")))
        }
        print("two processes: mouth-to-ear p50 \(audio[0]) → \(audio[1]) ms, glass-to-glass p50 \(video[0]) → \(video[1]) ms with 40 ms on the link")
        XCTAssertEqual(audio[1] - audio[0], 40, accuracy: 3, "the link's 40 ms show in the audio's delay")
        XCTAssertEqual(video[1] - video[0], 40, accuracy: 10, "and in the video's")
    }

    /// Sound in which no stamp survives (a `volume volume=0` after the writer): `measure`
    /// says that no audio stamp was read and what to check, in the summary and the JSON, and
    /// still reports the video's figures.
    func testMeasureSaysWhyNoAudioStampsWereReadAndStillReportsVideo() throws {
        let (r, report, _) = try measure(
            ["Pipelines/loopback.yaml", "--duration", "3", "--set", "send.audio.filters=[{gst: \"volume volume=0\"}]"])
        XCTAssertEqual(r.status, 0, r.stderr + r.stdout)
        let note = "no audio stamps read: nothing arrived that sounds like one (is `audiostamp` in send.audio.filters"
        XCTAssertTrue(r.stdout.contains("audio          " + note), r.stdout)
        let o = try XCTUnwrap(report, r.stdout)
        XCTAssertEqual(number(o, "audio.stamps_read"), 0)
        XCTAssertTrue(((o["audio"] as? [String: Any])?["note"] as? String)?.hasPrefix(note) ?? false, "\(o["audio"] ?? "no audio")")
        XCTAssertNil(number(o, "audio.mouth_to_ear.p50_ms"), "no figure is invented")
        XCTAssertGreaterThan(number(o, "latency.samples") ?? 0, 30, "the video's figures are still there")
        XCTAssertNotNil(number(o, "latency.p50_ms"))
    }
}
