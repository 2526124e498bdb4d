import Foundation
import XCTest
@testable import SluiceLoad
@testable import SluiceMeasure
@testable import SluiceRun

/// A load report from a synthetic crowd: client rows, outcome counts, distributions against a
/// sort of the same values, the timeline, the text and the JSON.
final class LoadReportTests: XCTestCase {
    private let crowd = LoadFixtures.crowd(120)

    private func report(_ observations: [ClientObservation]? = nil, planned: Int = 120) -> LoadReport {
        LoadReport(
            pipeline: "whep-load.yaml", target: "http://127.0.0.1:8080/whep", clientsPlanned: planned, duration: 20,
            observations: observations ?? crowd, samples: LoadFixtures.samples(duration: 20, cores: 1.5, memory: 300))
    }

    func testAClientsRow() throws {
        var o = ClientObservation(id: 4, group: "g", decodes: true, startedAt: 1)
        o.iceConnectedAt = 1.25
        o.dtlsConnectedAt = 1.3
        var rng = LoadRandom(state: 3)
        LoadFixtures.stream(&o.frames, from: 1.5, to: 11.5, rng: &rng)
        o.glassToGlassMs = (1...100).map(Double.init)
        var n = ClientNetwork()
        n.packetsLost = 3
        n.rttMs = 2.5
        o.network = n
        o.endedAt = 11.5
        o.outcome = .leftAsPlanned
        let row = LoadClientRow(o, runEnd: 20)
        XCTAssertEqual(row.connect_ms!, 250, accuracy: 1e-9)
        XCTAssertEqual(row.dtls_ms!, 300, accuracy: 1e-9)
        XCTAssertEqual(row.time_to_first_frame_ms!, 500, accuracy: 1e-9)
        XCTAssertEqual(row.frames, 300)
        XCTAssertEqual(row.keyframes, 10)
        XCTAssertEqual(row.fps!, 30, accuracy: 0.01, "from a second after the first frame to the end")
        XCTAssertEqual(row.bitrate_kbps!, Double(10 * 6000 + 290 * 1200) * 8 / 1000 / 10, accuracy: 1e-9)
        XCTAssertEqual(row.freezes, 0)
        XCTAssertEqual(row.freezes_per_minute, 0)
        XCTAssertEqual(row.glass_to_glass_samples, 100)
        XCTAssertEqual(row.glass_to_glass_p50_ms, 50)
        XCTAssertEqual(row.glass_to_glass_p95_ms, 95)
        XCTAssertEqual(row.network?.packets_lost, 3)
        XCTAssertEqual(row.network?.rtt_ms, 2.5)
        XCTAssertEqual(row.outcome, .leftAsPlanned)
        XCTAssertNil(row.reason)
        o.decodes = false
        XCTAssertEqual(LoadClientRow(o, runEnd: 20).glass_to_glass_samples, 0, "a client that does not decode reads no stamps")
        o.outcome = .refused(reason: "503 busy")
        XCTAssertEqual(LoadClientRow(o, runEnd: 20).reason, "503 busy")
        XCTAssertFalse(LoadClientRow(o, runEnd: 20).succeeded)
    }

    func testOutcomeCountsAndExitCode() {
        let r = report()
        let refused = crowd.filter { $0.id % 17 == 5 }.count
        let failed = crowd.filter { $0.id % 17 != 5 && $0.id % 23 == 7 }.count
        let gone = crowd.filter { $0.id % 17 != 5 && $0.id % 23 != 7 && $0.id % 29 == 11 }.count
        XCTAssertGreaterThan(refused * failed * gone, 0, "the crowd has every kind of failure")
        XCTAssertEqual(r.overall.clients, 120)
        XCTAssertEqual(r.overall.refused, refused)
        XCTAssertEqual(r.overall.failed_to_connect, failed)
        XCTAssertEqual(r.overall.service_gone, gone)
        XCTAssertEqual(r.overall.succeeded, 120 - refused - failed - gone)
        XCTAssertEqual(r.overall.success_rate!, Double(120 - refused - failed - gone) / 120, accuracy: 1e-12)
        XCTAssertEqual(r.overall.failures.first { $0.reason == "503 server busy" }?.clients, refused)
        XCTAssertEqual(r.overall.failures.first { $0.reason == "503 server busy" }?.outcome, .refused)
        XCTAssertEqual(r.groups.map(\.group), ["viewers", "watchers"])
        XCTAssertEqual(r.groups.map(\.clients).reduce(0, +), 120)
        XCTAssertEqual(r.groups[0].clients, crowd.filter { $0.group == "viewers" }.count)
        XCTAssertEqual(r.clients.map(\.id), Array(0..<120))
        XCTAssertEqual(r.exitCode, 3)
        let good = crowd.filter { $0.outcome.succeeded }
        XCTAssertEqual(report(good, planned: good.count).exitCode, 0)
        XCTAssertEqual(report(good, planned: good.count + 1).exitCode, 3, "a planned client that never started")
        var stopped = good
        stopped[0].outcome = .stoppedEarly
        XCTAssertEqual(report(stopped, planned: good.count).exitCode, 0, "stopped early counts as a success")
        XCTAssertEqual(report(stopped, planned: good.count).overall.stopped_early, 1)
    }

    func testDistributionsMatchASortOfTheSameValues() {
        let r = report()
        func check(_ d: LoadDistribution, _ values: [Double], _ name: String) {
            XCTAssertEqual(d.count, values.count, name)
            let sorted = values.sorted()
            for p in [50.0, 90, 95, 99, 100] {
                let exact = LoadFixtures.nearestRank(sorted, p)
                XCTAssertEqual(d.percentile(p)!, exact, accuracy: exact / 1000 + 0.001, "\(name) p\(p)")
            }
        }
        let connected = crowd.filter { $0.iceConnectedAt != nil }
        check(r.overall.connect_ms, connected.map { ($0.iceConnectedAt! - $0.startedAt) * 1000 }, "connect")
        check(r.overall.dtls_ms, connected.map { ($0.dtlsConnectedAt! - $0.startedAt) * 1000 }, "dtls")
        check(r.overall.time_to_first_frame_ms, crowd.compactMap { o in o.frames.firstAt.map { ($0 - o.startedAt) * 1000 } }, "first frame")
        check(r.overall.fps, r.clients.compactMap(\.fps), "fps")
        check(r.overall.freezes_per_minute, r.clients.compactMap(\.freezes_per_minute), "freezes")
        check(r.overall.glass_to_glass_ms, crowd.filter(\.decodes).flatMap(\.glassToGlassMs), "glass-to-glass")
        XCTAssertEqual(r.overall.fps.p50!, 30, accuracy: 0.5)
        XCTAssertEqual(r.overall.freezes, crowd.filter { $0.id % 5 == 0 && $0.frames.count > 0 }.count, "one 500 ms gap each")
        let viewers = r.groups.first { $0.group == "viewers" }!
        check(viewers.connect_ms, connected.filter { $0.group == "viewers" }.map { ($0.iceConnectedAt! - $0.startedAt) * 1000 }, "viewers")
    }

    func testTimeline() {
        let r = report()
        XCTAssertEqual(r.timeline.map(\.t), Array(0..<20))
        for s in r.timeline {
            let t = Double(s.t)
            let connected = crowd.filter { o in o.iceConnectedAt.map { $0 < t + 1 } == true && (o.endedAt ?? .infinity) > t }
            XCTAssertEqual(s.clients_connected, connected.count, "second \(s.t)")
            let frames = crowd.reduce(0) { $0 + ($1.frames.perSecond.count > s.t ? $1.frames.perSecond[s.t] : 0) }
            let bytes = crowd.reduce(0) { $0 + ($1.frames.bytesPerSecond.count > s.t ? $1.frames.bytesPerSecond[s.t] : 0) }
            XCTAssertEqual(s.frames, frames)
            XCTAssertEqual(s.bitrate_kbps, Double(bytes) * 8 / 1000, accuracy: 1e-9)
            XCTAssertEqual(s.cpu_cores, 1.5 + Double(s.t % 3) * 0.125)
            XCTAssertEqual(s.memory_mib, 300 + t)
        }
        XCTAssertEqual(r.timeline.map(\.freezes_started).reduce(0, +), r.overall.freezes)
        XCTAssertEqual(r.timeline[8].freezes_started + r.timeline[7].freezes_started, r.overall.freezes, "every gap is just before 8 s")
        XCTAssertGreaterThan(r.timeline[5].clients_connected, r.timeline[15].clients_connected, "those whose service went away at 10 s")
    }

    func testTextNamesEveryFailureAndTheGroups() {
        let r = report()
        let text = r.text
        let refused = r.overall.refused, failed = r.overall.failed_to_connect, gone = r.overall.service_gone
        XCTAssertTrue(text.contains("\(refused) refused: 503 server busy"), text)
        XCTAssertTrue(text.contains("\(failed) failed to connect: ICE failed"), text)
        XCTAssertTrue(text.contains("\(gone) service gone: session ended"), text)
        XCTAssertTrue(text.contains("\(r.overall.succeeded) of 120 succeeded"), text)
        XCTAssertTrue(text.contains(String(format: "p50 %.1f ms", r.overall.connect_ms.p50!)), text)
        XCTAssertTrue(text.contains(String(format: "p99 %.1f ms", r.overall.time_to_first_frame_ms.p99!)), text)
        XCTAssertTrue(text.contains("glass-to-glass"), text)
        XCTAssertTrue(text.contains("group viewers"), text)
        XCTAssertTrue(text.contains("group watchers"), text)
        XCTAssertTrue(text.contains("peak use       1.75 cores"), text)
        let oneGroup = report(crowd.filter { $0.group == "viewers" && $0.outcome.succeeded && !$0.decodes })
        XCTAssertFalse(oneGroup.text.contains("group "), "one group: no group lines")
        XCTAssertFalse(oneGroup.text.contains("failures"), "no failure: no failure lines")
        XCTAssertFalse(oneGroup.text.contains("glass-to-glass"), "no stamp read")
    }

    func testJSONRoundTripWithStableKeys() throws {
        let r = report()
        let data = try r.json()
        let back = try JSONDecoder().decode(LoadReport.self, from: data)
        XCTAssertEqual(back, r)
        XCTAssertEqual(back.text, r.text)
        let object = try JSONSerialization.jsonObject(with: data) as! [String: Any]
        XCTAssertEqual(
            Set(object.keys), ["pipeline", "target", "clients_planned", "duration_s", "overall", "groups", "clients", "timeline"],
            "shard is left out when nil")
        let overall = object["overall"] as! [String: Any]
        XCTAssertNotNil(overall["time_to_first_frame_ms"] as? [String: Any])
        XCTAssertNotNil(overall["success_rate"] as? Double)
        let row = (object["clients"] as! [[String: Any]])[0]
        XCTAssertEqual(row["outcome"] as? String, "left_as_planned")
        XCTAssertNotNil(row["connect_ms"] as? Double)
        XCTAssertNotNil((object["timeline"] as! [[String: Any]])[0]["clients_connected"] as? Int)
        XCTAssertEqual(try r.json(), data, "the same report, the same bytes")
    }
}
