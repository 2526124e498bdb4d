import Foundation
#if canImport(FoundationXML)
    import FoundationXML
#endif
import XCTest
@testable import SluiceMeasure
@testable import SluiceRun

/// The arithmetic of `sluice measure`: percentiles, frame accounting, the impairment relay's
/// decisions and the SVG.
final class MeasureMathTests: XCTestCase {
    private func samples(_ numbers: [UInt32], latencyMs: Int = 10) -> [LatencyRecorder.Sample] {
        numbers.enumerated().map { i, n in .init(number: n, latencyMicroseconds: latencyMs * 1000, at: Double(i) / 30) }
    }

    func testPercentilesAreNearestRank() {
        let values = (1...100).map(Double.init)
        XCTAssertEqual(LatencyFigures.percentile(values, 50), 50)
        XCTAssertEqual(LatencyFigures.percentile(values, 95), 95)
        XCTAssertEqual(LatencyFigures.percentile(values, 99), 99)
        XCTAssertEqual(LatencyFigures.percentile(values, 100), 100)
        XCTAssertEqual(LatencyFigures.percentile([7], 99), 7)
        let f = LatencyFigures((0..<10).map { .init(number: UInt32($0), latencyMicroseconds: ($0 + 1) * 1000, at: 0) })
        XCTAssertEqual(f.p50_ms, 5)
        XCTAssertEqual(f.max_ms, 10)
        XCTAssertEqual(f.min_ms, 1)
        XCTAssertEqual(f.mean_ms, 5.5)
        XCTAssertNil(LatencyFigures([]).p50_ms)
    }

    func testFrameAccounting() {
        // Stamped 0...19; read 3,4,5, 7 (6 lost), 5 again (duplicate), 9, 8 (late: out of order), 10.
        let a = FrameAccounting(samples: samples([3, 4, 5, 7, 5, 9, 8, 10]), stamped: 20, unreadable: 2)
        XCTAssertEqual(a.received, 8)
        XCTAssertEqual(a.duplicated, 1)
        XCTAssertEqual(a.out_of_order, 1)
        XCTAssertEqual(a.lost, 1, "only 6 never arrived between 3 and 10")
        XCTAssertEqual(a.before_first_frame, 3)
        XCTAssertEqual(a.in_flight_at_stop, 9, "11...19 were stamped after the newest frame read")
        XCTAssertEqual(a.not_delivered, 13, "20 stamped, 7 distinct read")
        XCTAssertEqual(a.unreadable, 2)
        let none = FrameAccounting(samples: [], stamped: 5, unreadable: 0)
        XCTAssertEqual(none.lost, 0)
        XCTAssertEqual(none.in_flight_at_stop, 5)
        XCTAssertEqual(none.not_delivered, 5, "nothing read: every stamped frame is missing")
    }

    func testImpairmentParsing() throws {
        XCTAssertEqual(try Impairment.parse("delay 40ms loss 2%"), Impairment(delayMs: 40, lossPercent: 2))
        XCTAssertEqual(try Impairment.parse("delay 0.1s 20ms duplicate 1"), Impairment(delayMs: 100, jitterMs: 20, duplicatePercent: 1))
        XCTAssertEqual(try Impairment.parse("rate 1mbit limit 50"), Impairment(rateBitsPerSecond: 1e6, limitPackets: 50))
        XCTAssertEqual(try Impairment.parse("rate 800kbit").rateBitsPerSecond, 800_000)
        XCTAssertEqual(try Impairment.parse("rate 100kbps").rateBitsPerSecond, 800_000, "kbps is kilobytes per second, as in tc")
        XCTAssertEqual(try Impairment.parse("delay 20ms reorder 25%").reorderPercent, 25)
        for bad in [
            "", "delay", "delay fast", "loss 120%", "rate", "rate 1", "rate fast", "rate 1bit", "rate -3mbit",
            "limit 0", "limit many", "delay 10ms 20ms", "reorder 5%", "slot 10ms"
        ] {
            XCTAssertThrowsError(try Impairment.parse(bad), bad)
        }
        do { _ = try Impairment.parse("reorder 5%") } catch {
            XCTAssertTrue(error.description.contains("give a delay too"), error.description)
        }
    }

    func testScheduleParsingAndSteps() throws {
        let s = try ImpairmentSchedule.parse("rate 3mbit for 10s; rate 800kbit for 15s; rate 3mbit")
        XCTAssertEqual(s.steps.map(\.impairment.rateBitsPerSecond), [3e6, 8e5, 3e6])
        XCTAssertEqual(s.steps.map(\.seconds), [10, 15, nil])
        XCTAssertEqual([0, 9.9, 10, 24.9, 25, 1000].map(s.step(at:)), [0, 0, 1, 1, 2, 2])
        XCTAssertEqual(s.spans.map(\.from), [0, 10, 25])
        XCTAssertEqual(s.spans.map(\.text), ["rate 3mbit", "rate 800kbit", "rate 3mbit"])
        for bad in [
            "", ";", "rate 3mbit; rate 1mbit", "rate 3mbit for; rate 1mbit", "rate 3mbit for 0s; rate 1mbit",
            "rate 3mbit for 10s; loss 200%"
        ] {
            XCTAssertThrowsError(try ImpairmentSchedule.parse(bad), bad)
        }
        do { _ = try ImpairmentSchedule.parse("rate 3mbit for 10s; loss 200%") } catch {
            XCTAssertTrue(error.description.hasPrefix("step 2:"), error.description)
        }
    }

    func testRelayDropsAndDelaysAsConfigured() {
        let relay = ImpairmentRelay(fd: -1, impairment: Impairment(delayMs: 40, jitterMs: 10, lossPercent: 20, duplicatePercent: 5), seed: 42)
        var dropped = 0, duplicated = 0
        var delays: [Double] = []
        for _ in 0..<20000 {
            let due = relay.admit(bytes: 100, now: 1_000_000_000)
            guard !due.isEmpty else { dropped += 1; continue }
            if due.count == 2 { duplicated += 1 }
            delays += due.map { Double($0 - 1_000_000_000) / 1e6 }
        }
        XCTAssertEqual(Double(dropped) / 20000, 0.20, accuracy: 0.015)
        XCTAssertEqual(Double(duplicated) / Double(20000 - dropped), 0.05, accuracy: 0.01)
        XCTAssertGreaterThanOrEqual(delays.min() ?? 0, 30)
        XCTAssertLessThanOrEqual(delays.max() ?? 99, 50)
        XCTAssertEqual(delays.reduce(0, +) / Double(delays.count), 40, accuracy: 0.5)
        // The same seed gives the same pattern (reproducible runs).
        let a = ImpairmentRelay(fd: -1, impairment: Impairment(lossPercent: 50), seed: 7)
        let b = ImpairmentRelay(fd: -1, impairment: Impairment(lossPercent: 50), seed: 7)
        XCTAssertEqual((0..<100).map { _ in a.admit(bytes: 1, now: 0).isEmpty }, (0..<100).map { _ in b.admit(bytes: 1, now: 0).isEmpty })
    }

    func testRelayRateSpacesPacketsByTheirSize() {
        // 1 Mbit/s: a 1250-byte packet takes 10 ms on the wire. A burst of 5 leaves 10 ms apart.
        let relay = ImpairmentRelay(fd: -1, impairment: Impairment(delayMs: 20, rateBitsPerSecond: 1e6), seed: 1)
        let t0: UInt64 = 5_000_000_000
        let due = (0..<5).map { _ in relay.admit(bytes: 1250, now: t0)[0] - t0 }
        XCTAssertEqual(due, [30, 40, 50, 60, 70].map { UInt64($0) * 1_000_000 })
        // After the link has been idle, a packet waits only its delay and its own time.
        XCTAssertEqual(relay.admit(bytes: 125, now: t0 + 1_000_000_000)[0] - t0, 1_021_000_000)
    }

    func testRelayReordersAndLimitsItsQueue() {
        // Reordered packets are due at once, ahead of the 50 ms ones.
        let relay = ImpairmentRelay(fd: -1, impairment: Impairment(delayMs: 50, reorderPercent: 30), seed: 3)
        let due = (0..<10000).map { _ in relay.admit(bytes: 100, now: 0)[0] }
        XCTAssertEqual(Double(due.filter { $0 == 0 }.count) / 10000, 0.30, accuracy: 0.02)
        XCTAssertTrue(due.allSatisfy { $0 == 0 || $0 == 50_000_000 })
        // `limit` bounds what waits: 3 queued, the next 2 dropped as overflow.
        let limited = ImpairmentRelay(fd: -1, impairment: Impairment(delayMs: 100, limitPackets: 3), seed: 3)
        XCTAssertEqual((0..<5).map { _ in limited.enqueue([0, 1, 2], now: 0) }, [1, 1, 1, 0, 0])
        XCTAssertEqual(limited.counts.overflowed, 2)
        XCTAssertEqual(limited.counts.dropped, 0, "overflow is counted apart from random loss")
    }

    func testRelayFollowsItsSchedule() throws {
        let schedule = try ImpairmentSchedule.parse("loss 100% for 1s; delay 5ms")
        let relay = ImpairmentRelay(fd: -1, schedule: schedule, seed: 1)
        relay.restartSchedule()
        let start = ImpairmentRelay.now()
        XCTAssertTrue(relay.admit(bytes: 10, now: start + 500_000_000).isEmpty, "step 1 loses everything")
        XCTAssertEqual(relay.counts.step, 0)
        XCTAssertEqual(relay.admit(bytes: 10, now: start + 1_500_000_000), [start + 1_505_000_000])
        XCTAssertEqual(relay.counts.step, 1)
    }

    func testTimelinesOfTwoProcessesLineUp() {
        // The sender started 0.5 s before the receiver; its rows move 0.5 s earlier.
        let sender = [
            MeasureReport.BitrateSecond(t: 1.5, target_kbps: 900, encoder_kbps: 880),
            MeasureReport.BitrateSecond(t: 2.5, target_kbps: 800, encoder_kbps: 790)
        ]
        let receiver = [
            MeasureReport.BitrateSecond(t: 1.0, rtp_kbps: 850), MeasureReport.BitrateSecond(t: 2.0, rtp_kbps: 760),
            MeasureReport.BitrateSecond(t: 5.0, rtp_kbps: 700)
        ]
        let merged = BitrateTimeline.merge(sender: sender, senderOrigin: 100.0, receiver: receiver, receiverOrigin: 100.5)
        XCTAssertEqual(merged.map(\.target_kbps), [900, 800, nil])
        XCTAssertEqual(merged.map(\.rtp_kbps), [850, 760, 700])
        let schedule = try? ImpairmentSchedule.parse("rate 1mbit for 8s; rate 4mbit")
        XCTAssertEqual(schedule?.conditions.map(\.rate_kbps), [1000, 4000])
        XCTAssertEqual(schedule?.conditions.map(\.to_s), [8, nil])
    }

    func testStartUpFiguresSeparateTheFirstFrames() {
        // Three stale frames at the start, then 100 fresh ones.
        let stale = (0..<3).map { LatencyRecorder.Sample(number: UInt32($0), latencyMicroseconds: 400_000 - $0 * 100_000, at: 0.5) }
        let fresh = (3..<103).map { LatencyRecorder.Sample(number: UInt32($0), latencyMicroseconds: 10_000, at: 0.5 + Double($0) / 30) }
        let s = MeasureReport.StartUp(samples: stale + fresh, timeToFirstFrameMs: 420)
        XCTAssertEqual(s.first_frame_age_ms, 400)
        XCTAssertEqual(s.time_to_first_frame_ms, 420)
        XCTAssertEqual(s.whole_run_p99_ms, 300)
        XCTAssertEqual(s.steady_p99_ms, 10)
    }

    func testPlotIsWellFormedSVGWithEveryFrame() throws {
        var report = threeSecondReport(file: "a<b>&.yaml")
        report.pipeline = "a<b>&.yaml"
        report.bitrate = [.init(t: 1, target_kbps: 900, encoder_kbps: 850, rtp_kbps: 800), .init(t: 2, target_kbps: 700, rtp_kbps: 690)]
        report.conditions = [.init(from_s: 0, to_s: 2, netem: "rate 1mbit & <x>", rate_kbps: 1000), .init(from_s: 2, netem: "loss 1%")]
        let svg = LatencyPlot.svg(report)
        XCTAssertEqual(svg.components(separatedBy: "<path").count - 1, 4, "latency line and three bitrate lines")
        XCTAssertTrue(svg.contains("rate 1mbit &amp; &lt;x&gt;"))
        let parser = XMLParser(data: Data(svg.utf8))
        XCTAssertTrue(parser.parse(), "the SVG is well-formed XML: \(parser.parserError.map { "\($0)" } ?? "")")
        XCTAssertEqual(svg.components(separatedBy: "<circle").count - 1, 60, "one point per frame")
        XCTAssertTrue(svg.contains("a&lt;b&gt;&amp;.yaml"))
        report.samples = []
        XCTAssertTrue(XMLParser(data: Data(LatencyPlot.svg(report).utf8)).parse())
        XCTAssertTrue(LatencyPlot.svg(report).contains("no frame was read back"))
    }

    /// Audio stamps are drawn over the frames, one square each, and the header gives their figures.
    func testPlotDrawsEveryAudioStampBesideTheFrames() throws {
        var report = threeSecondReport(file: "av.yaml")
        let heard = (0..<5).map { AudioDelayRecorder.Sample(sequence: $0, capturedMilliseconds: Double($0) * 400, delayMilliseconds: 30, at: Double($0) * 0.4) }
        report.audio = AudioMeasurement(audio: heard, unreadable: 0, video: [], duration: 3)
        XCTAssertEqual(report.audio?.samples.count, 5)
        let svg = LatencyPlot.svg(report)
        XCTAssertTrue(XMLParser(data: Data(svg.utf8)).parse())
        let group = try XCTUnwrap(svg.components(separatedBy: ##"<g id="audio">"##).last?.components(separatedBy: "</g>").first)
        XCTAssertEqual(group.components(separatedBy: "<rect").count - 1, 5, "one square per stamp")
        XCTAssertTrue(svg.contains("audio mouth-to-ear p50 30.0 ms"), "the header says it")
        report.audio = AudioMeasurement(audio: [], unreadable: 2, video: [], duration: 3)
        XCTAssertTrue(LatencyPlot.svg(report).contains("no audio stamps read: 2 heard but unreadable"), "or why there is none")
    }

    /// The A/V offset line as drawn: its path's `d`, its points, and the y of the panel's zero line.
    private struct AVOffsetLine {
        /// A point of the path, SVG units.
        struct Point {
            var x: Double, y: Double
        }
        var d: String
        var points: [Point]
        var zero: Double
    }

    /// The A/V offset line of `svg`.
    private func avOffsetLine(_ svg: String) throws -> AVOffsetLine {
        let d = try XCTUnwrap(svg.components(separatedBy: ##"<path id="av-offset" d=""##).dropFirst().first?.components(separatedBy: "\"").first)
        let points = d.split(whereSeparator: { $0 == "M" || $0 == "L" }).map { p in
            let xy = p.split(separator: " ").compactMap { Double($0) }
            return AVOffsetLine.Point(x: xy[0], y: xy[1])
        }
        let zeroLine = try XCTUnwrap(svg.components(separatedBy: ##"<g id="av-offset-zero">"##).dropFirst().first)
        let y1 = try XCTUnwrap(zeroLine.components(separatedBy: ##"y1=""##).dropFirst().first?.components(separatedBy: "\"").first)
        return AVOffsetLine(d: d, points: points, zero: try XCTUnwrap(Double(y1)))
    }

    /// Frames captured every 100 ms for 3 s, 12 ms glass-to-glass, and an audio stamp with each
    /// frame of the seconds in `offsets`, heard so that its A/V offset is that second's value.
    private func audio(offsets: [Int: Double]) -> AudioMeasurement {
        let video = (0..<30).map {
            LatencyRecorder.Sample(number: UInt32($0), latencyMicroseconds: 12_000, at: Double($0) / 10, capturedMicroseconds: UInt64($0) * 100_000)
        }
        let heard = (0..<30).compactMap { i -> AudioDelayRecorder.Sample? in
            offsets[i / 10].map {
                AudioDelayRecorder.Sample(sequence: i % 16, capturedMilliseconds: Double(i) * 100, delayMilliseconds: 12 + $0, at: Double(i) / 10)
            }
        }
        return AudioMeasurement(audio: heard, unreadable: 0, video: video, duration: 3)
    }

    /// Each second's A/V offset is a line on a panel of its own, above 0 where audio came late
    /// and below where it came early, at the middle of its second on the time axis.
    func testPlotDrawsTheAVOffsetOfEachSecond() throws {
        var report = threeSecondReport(file: "av.yaml")
        report.audio = audio(offsets: [0: 30, 1: -10])
        XCTAssertEqual(report.audio?.per_second.map(\.av_offset_ms), [30, -10, nil])
        let svg = LatencyPlot.svg(report)
        XCTAssertTrue(XMLParser(data: Data(svg.utf8)).parse())
        let line = try avOffsetLine(svg)
        let points = line.points, zero = line.zero, d = line.d
        let layout = LatencyPlot.Layout(), top = layout.top4(bitrate: false)
        guard points.count == 2 else { return XCTFail("a point a second with offsets: \(d)") }
        XCTAssertTrue(d.hasPrefix("M") && d.contains("L"), "consecutive seconds joined")
        // The report lasts 3 s: each second's point at its middle.
        XCTAssertEqual(points[0].x, layout.left + 0.5 / 3 * layout.plotW, accuracy: 0.1)
        XCTAssertEqual(points[1].x, layout.left + 1.5 / 3 * layout.plotW, accuracy: 0.1)
        XCTAssertLessThan(points[0].y, zero, "+30 ms (audio late) above 0")
        XCTAssertGreaterThan(points[1].y, zero, "-10 ms (audio early) below 0")
        XCTAssertEqual((zero - points[0].y) / (points[1].y - zero), 3, accuracy: 0.05, "distances from 0 as the offsets")
        for y in points.map(\.y) + [zero] { XCTAssertTrue((top - 0.1...top + layout.h4 + 0.1).contains(y), "inside its panel") }
        XCTAssertTrue(svg.contains(##"height="\##(Int(layout.height(bitrate: false, avOffset: true)))""##), "the page grows by the panel")
        XCTAssertTrue(svg.contains("A/V offset, median of each second"), "a legend")
        let frames = report.latency.samples
        XCTAssertEqual(svg.components(separatedBy: "<circle").count - 1, frames, "still one circle per frame read, none for the offsets")
        // A second without offsets breaks the line.
        report.audio = audio(offsets: [0: 5, 2: 8])
        let gapped = try avOffsetLine(LatencyPlot.svg(report))
        XCTAssertEqual(gapped.d.filter { $0 == "M" }.count, 2)
        XCTAssertFalse(gapped.d.contains("L"))
        // Stamps with no frame to pair with: no offsets, no panel.
        let unpaired = [AudioDelayRecorder.Sample(sequence: 0, capturedMilliseconds: 0, delayMilliseconds: 30, at: 0.5)]
        report.audio = AudioMeasurement(audio: unpaired, unreadable: 0, video: [], duration: 3)
        let svg2 = LatencyPlot.svg(report)
        XCTAssertTrue(svg2.contains(##"<g id="audio">"##), "the stamp is drawn")
        XCTAssertFalse(svg2.contains("av-offset"), "but there is no offset")
        XCTAssertTrue(svg2.contains(##"height="\##(Int(layout.height(bitrate: false, avOffset: false)))""##))
    }

    /// Once audio stamps are read, the live line ends with the last second's mouth-to-ear p50.
    func testTheLiveLineGivesTheLastSecondsMouthToEar() {
        var p = MeasureProgress(elapsed: 5, receiveFps: 30, p50ms: 12, p95ms: 15, framesRead: 150)
        let video = p.line
        XCTAssertFalse(video.contains("mouth-to-ear"), "no audio column without stamps")
        p.stampsRead = 40
        p.mouthToEarP50ms = 42.5
        XCTAssertTrue(p.line.hasPrefix(video))
        XCTAssertTrue(p.line.hasSuffix("mouth-to-ear p50   42.5 ms"), p.line)
        p.mouthToEarP50ms = nil
        XCTAssertTrue(p.line.hasSuffix("mouth-to-ear p50      - ms"), "none in the last second: \(p.line)")
        let recorder = AudioDelayRecorder()
        recorder.take(event: "audiostamp", fields: ["sequence": 1, "captured_ms": 0, "delay_ms": 30])
        recorder.take(event: "audiostamp-unreadable", fields: [:])
        XCTAssertEqual(recorder.count, 1)
        XCTAssertEqual(recorder.since(0).map(\.delayMilliseconds), [30])
        XCTAssertTrue(recorder.since(3600).isEmpty, "only what arrived since")
    }

    /// A 3 s one-process report of `file` with 60 frames read at 12 ms.
    private func threeSecondReport(file: String) -> MeasureReport {
        Measurement.report(
            spec: PipelineSpec(file: "\(file)", name: "x", transport: TransportSpec(), send: nil, receive: nil),
            summary: RunSummary(
                pipeline: "x", duration_s: 3, send: .init(), receive: .init(), time_to_first_frame_ms: nil, ice_state: "completed",
                network: .init(
                    bytes_sent: 0, packets_sent: 0, bytes_received: 0, packets_received: 0,
                    packets_lost: 0, rtt_ms: nil, jitter_ms: nil, bitrate_kbps: 0),
                cpu_seconds: 1, gstreamer_version: "1.22"),
            samples: samples(Array(0..<60), latencyMs: 12), stamped: 60, unreadable: 0, cpu: 1, peakMiB: 50, processes: 1, netem: nil)
    }
}
