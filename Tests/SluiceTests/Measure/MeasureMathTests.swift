import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import XCTest
@testable import Sluice

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
        for bad in ["", "delay", "delay fast", "loss 120%", "rate 1mbit", "delay 10ms 20ms", "reorder 5%"] {
            XCTAssertThrowsError(try Impairment.parse(bad), bad)
        }
        do { _ = try Impairment.parse("rate 1mbit") } catch {
            XCTAssertTrue(error.description.contains("'rate' is not supported"), error.description)
        }
    }

    func testRelayDropsAndDelaysAsConfigured() {
        let relay = ImpairmentRelay(fd: -1, impairment: Impairment(delayMs: 40, jitterMs: 10, lossPercent: 20, duplicatePercent: 5), seed: 42)
        var dropped = 0, duplicated = 0
        var delays: [Double] = []
        for _ in 0..<20000 {
            guard let copies = relay.schedule() else { dropped += 1; continue }
            if copies.count == 2 { duplicated += 1 }
            delays += copies.map { Double($0) / 1e6 }
        }
        XCTAssertEqual(Double(dropped) / 20000, 0.20, accuracy: 0.015)
        XCTAssertEqual(Double(duplicated) / Double(20000 - dropped), 0.05, accuracy: 0.01)
        XCTAssertGreaterThanOrEqual(delays.min() ?? 0, 30)
        XCTAssertLessThanOrEqual(delays.max() ?? 99, 50)
        XCTAssertEqual(delays.reduce(0, +) / Double(delays.count), 40, accuracy: 0.5)
        // The same seed gives the same pattern (reproducible runs).
        let a = ImpairmentRelay(fd: -1, impairment: Impairment(lossPercent: 50), seed: 7)
        let b = ImpairmentRelay(fd: -1, impairment: Impairment(lossPercent: 50), seed: 7)
        XCTAssertEqual((0..<100).map { _ in a.schedule() == nil }, (0..<100).map { _ in b.schedule() == nil })
    }

    func testPlotIsWellFormedSVGWithEveryFrame() throws {
        var report = Measurement.report(
            spec: PipelineSpec(file: "a<b>&.yaml", name: "x", transport: TransportSpec(), send: nil, receive: nil),
            summary: RunSummary(pipeline: "x", duration_s: 3, send: .init(), receive: .init(), time_to_first_frame_ms: nil, ice_state: "completed",
                                network: .init(bytes_sent: 0, packets_sent: 0, bytes_received: 0, packets_received: 0,
                                               packets_lost: 0, rtt_ms: nil, jitter_ms: nil, bitrate_kbps: 0),
                                cpu_seconds: 1, gstreamer_version: "1.22"),
            samples: samples(Array(0..<60), latencyMs: 12), stamped: 60, unreadable: 0, cpu: 1, peakMiB: 50, processes: 1, netem: nil)
        report.pipeline = "a<b>&.yaml"
        let svg = LatencyPlot.svg(report)
        let parser = XMLParser(data: Data(svg.utf8))
        XCTAssertTrue(parser.parse(), "the SVG is well-formed XML: \(parser.parserError.map { "\($0)" } ?? "")")
        XCTAssertEqual(svg.components(separatedBy: "<circle").count - 1, 60, "one point per frame")
        XCTAssertTrue(svg.contains("a&lt;b&gt;&amp;.yaml"))
        report.samples = []
        XCTAssertTrue(XMLParser(data: Data(LatencyPlot.svg(report).utf8)).parse())
        XCTAssertTrue(LatencyPlot.svg(report).contains("no frame was read back"))
    }
}
