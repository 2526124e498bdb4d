import Foundation
import XCTest
@testable import SluiceLoad
@testable import SluiceMeasure
@testable import SluiceRun

/// Shard reports merged: the same as one report of every client, percentiles included, and
/// through JSON too.
final class LoadReportMergeTests: XCTestCase {
    private let crowd = LoadFixtures.crowd(150)

    /// The report of the clients whose id is in `ids`, as shard `shard`, with its own samples.
    private func shard(_ ids: Range<Int>, _ name: String?, cores: Double) -> LoadReport {
        LoadReport(
            pipeline: "whep-load.yaml", target: "http://127.0.0.1:8080/whep", clientsPlanned: ids.count, duration: 20,
            shard: name, observations: crowd.filter { ids.contains($0.id) },
            samples: LoadFixtures.samples(duration: 20, cores: cores, memory: 100 * cores))
    }

    /// Every shard's clients in one report, with the three shards' samples summed.
    private func whole() -> LoadReport {
        let cores = [1.0, 2, 3]
        let samples = (0..<20).map { s in
            ProcessSample(
                second: s, cpuCores: cores.reduce(0) { $0 + $1 + Double(s % 3) * 0.125 },
                memoryMiB: cores.reduce(0) { $0 + 100 * $1 + Double(s) })
        }
        return LoadReport(
            pipeline: "whep-load.yaml", target: "http://127.0.0.1:8080/whep", clientsPlanned: 150, duration: 20,
            observations: crowd, samples: samples)
    }

    private func assertSame(_ a: LoadAggregate, _ b: LoadAggregate, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(a.group, b.group, file: file, line: line)
        XCTAssertEqual(
            [a.clients, a.succeeded, a.refused, a.failed_to_connect, a.service_gone, a.running, a.frames, a.freezes],
            [b.clients, b.succeeded, b.refused, b.failed_to_connect, b.service_gone, b.running, b.frames, b.freezes],
            file: file, line: line)
        XCTAssertEqual(a.success_rate, b.success_rate, file: file, line: line)
        XCTAssertEqual(a.freeze_s, b.freeze_s, accuracy: 1e-9, file: file, line: line)
        XCTAssertEqual(a.failures, b.failures, file: file, line: line)
        let pairs = [
            (a.connect_ms, b.connect_ms), (a.dtls_ms, b.dtls_ms), (a.time_to_first_frame_ms, b.time_to_first_frame_ms),
            (a.fps, b.fps), (a.freezes_per_minute, b.freezes_per_minute), (a.glass_to_glass_ms, b.glass_to_glass_ms)
        ]
        for (x, y) in pairs {
            XCTAssertEqual(x, y, file: file, line: line)
            for p in [50.0, 90, 95, 99, 100] { XCTAssertEqual(x.percentile(p), y.percentile(p), file: file, line: line) }
        }
    }

    private func assertSame(_ merged: LoadReport, _ one: LoadReport, file: StaticString = #filePath, line: UInt = #line) {
        assertSame(merged.overall, one.overall, file: file, line: line)
        XCTAssertEqual(merged.groups.count, one.groups.count, file: file, line: line)
        for (g, h) in zip(merged.groups, one.groups) { assertSame(g, h, file: file, line: line) }
        XCTAssertEqual(merged.clients, one.clients, file: file, line: line)
        XCTAssertEqual(merged.timeline.count, one.timeline.count, file: file, line: line)
        for (s, t) in zip(merged.timeline, one.timeline) {
            XCTAssertEqual(
                [s.t, s.clients_connected, s.bytes, s.frames, s.freezes_started], [t.t, t.clients_connected, t.bytes, t.frames, t.freezes_started],
                file: file, line: line)
            XCTAssertEqual(s.bitrate_kbps, t.bitrate_kbps, file: file, line: line)
            XCTAssertEqual(s.cpu_cores ?? -1, t.cpu_cores ?? -1, accuracy: 1e-9, file: file, line: line)
            XCTAssertEqual(s.memory_mib ?? -1, t.memory_mib ?? -1, accuracy: 1e-9, file: file, line: line)
        }
        XCTAssertEqual(merged.clients_planned, one.clients_planned, file: file, line: line)
        XCTAssertEqual(merged.exitCode, one.exitCode, file: file, line: line)
    }

    func testMergedShardsEqualOneReportOfEveryClient() throws {
        let shards = [shard(100..<150, "3/3", cores: 3), shard(0..<50, "1/3", cores: 1), shard(50..<100, "2/3", cores: 2)]
        let merged = try LoadReport.merge(shards)
        let one = whole()
        assertSame(merged, one)
        XCTAssertNil(merged.shard, "all three shards: the whole run")
        XCTAssertEqual(merged.pipeline, "whep-load.yaml")
        XCTAssertEqual(merged.duration_s, 20)
        // Percentiles of the merge are those of every value, not an average of the shards'.
        let allG2G = crowd.filter(\.decodes).flatMap(\.glassToGlassMs).sorted()
        let p99 = LoadFixtures.nearestRank(allG2G, 99)
        XCTAssertEqual(merged.overall.glass_to_glass_ms.p99!, p99, accuracy: p99 / 1000 + 0.001)
        let averaged = shards.map { $0.overall.connect_ms.p95! }.reduce(0, +) / 3
        XCTAssertEqual(merged.overall.connect_ms.p95, one.overall.connect_ms.p95)
        XCTAssertNotEqual(merged.overall.connect_ms.p95, averaged, "had the shards' p95s been averaged, this would be equal")
    }

    func testMergingThroughJSONIsExact() throws {
        let shards = [shard(0..<50, "1/3", cores: 1), shard(50..<100, "2/3", cores: 2), shard(100..<150, "3/3", cores: 3)]
        let decoded = try shards.map { try JSONDecoder().decode(LoadReport.self, from: $0.json()) }
        let merged = try LoadReport.merge(decoded)
        XCTAssertEqual(merged, try LoadReport.merge(shards))
        assertSame(merged, whole())
        XCTAssertEqual(merged.text, try LoadReport.merge(shards).text)
    }

    func testCollidingClientIDsAreRefused() {
        let a = shard(0..<50, "1/2", cores: 1), b = shard(40..<100, "2/2", cores: 1)
        XCTAssertThrowsError(try LoadReport.merge([a, b])) { error in
            XCTAssertEqual(error as? LoadReportMergeError, .clientIDCollision(ids: Array(40..<50)))
            XCTAssertTrue("\(error)".contains("10 client id(s) appear in more than one report"), "\(error)")
        }
        XCTAssertThrowsError(try LoadReport.merge([a, a]), "the same shard twice")
        XCTAssertThrowsError(try LoadReport.merge([])) { XCTAssertEqual($0 as? LoadReportMergeError, .noReports) }
    }

    func testSomeShardsAndMetadata() throws {
        let a = shard(0..<50, "1/4", cores: 1), b = shard(50..<100, "3/4", cores: 1)
        var c = shard(100..<150, "2/4", cores: 1)
        c.target = "http://other/whep"
        c.duration_s = 25
        let merged = try LoadReport.merge([b, c, a])
        XCTAssertEqual(merged.shard, "1/4+2/4+3/4", "three of four shards, in order")
        XCTAssertEqual(merged.target, "http://127.0.0.1:8080/whep, http://other/whep")
        XCTAssertEqual(merged.duration_s, 25)
        XCTAssertEqual(merged.clients_planned, 150)
        XCTAssertEqual(merged.clients.map(\.id), Array(0..<150))
        let single = try LoadReport.merge([a])
        XCTAssertEqual(single, a, "one report merges into itself")
        XCTAssertNil(LoadReport.mergedShard(["1/2", "2/2"]))
        XCTAssertEqual(LoadReport.mergedShard(["1/2", nil]), "1/2")
        XCTAssertEqual(LoadReport.mergedShard(["odd", "1/2"]), "odd+1/2", "names it cannot read are kept as given")
        XCTAssertNil(LoadReport.mergedShard([nil, nil]))
    }
}
