import Foundation
import XCTest
@testable import SluiceLoad
@testable import SluiceMeasure
@testable import SluiceRun

/// The HdrHistogram behind a load report's distributions: percentiles against a sort, exact
/// merging, and a JSON form that gives the same histogram back.
final class LoadDistributionTests: XCTestCase {
    /// `count` values spread over four decades (1 ms to 10 s), as connect times might be.
    private func values(_ count: Int, seed: UInt64) -> [Double] {
        var rng = LoadRandom(state: seed)
        return (0..<count).map { _ in pow(10, Double.random(in: 0...4, using: &rng)) }
    }

    /// The largest difference the histogram may make at `v` (three significant digits, values
    /// recorded to 1/1000).
    private func tolerance(_ v: Double) -> Double { v / 1000 + 0.001 }

    func testPercentilesMatchASort() {
        for (count, seed) in [(1, 1 as UInt64), (7, 2), (100, 3), (10_000, 4)] {
            let v = values(count, seed: seed)
            let d = LoadDistribution(v)
            let sorted = v.sorted()
            XCTAssertEqual(d.count, count)
            for p in [1.0, 50, 90, 95, 99, 99.9, 100] {
                let exact = LoadFixtures.nearestRank(sorted, p)
                XCTAssertEqual(d.percentile(p)!, exact, accuracy: tolerance(exact), "p\(p) of \(count) values")
            }
            XCTAssertEqual(d.p95!, LoadFixtures.nearestRank(sorted, 95), accuracy: tolerance(sorted.last!))
            XCTAssertEqual(d.max!, sorted.last!, accuracy: 0.0005, "the largest value is kept exactly (to 1/1000)")
            XCTAssertEqual(d.min!, sorted.first!, accuracy: 0.0005, "the smallest value is kept exactly (to 1/1000)")
            XCTAssertEqual(d.mean!, v.reduce(0, +) / Double(count), accuracy: tolerance(sorted.last!))
        }
    }

    func testAnEmptyDistributionHasNoFigures() throws {
        let d = LoadDistribution()
        XCTAssertEqual(d.count, 0)
        XCTAssertNil(d.p50)
        XCTAssertNil(d.max)
        XCTAssertNil(d.min)
        let back = try JSONDecoder().decode(LoadDistribution.self, from: JSONEncoder().encode(d))
        XCTAssertEqual(back, d)
        XCTAssertEqual(back.count, 0)
    }

    func testNegativeAndNonFiniteValues() {
        var d = LoadDistribution()
        d.record(-3)
        d.record(.nan)
        d.record(.infinity)
        d.record(2)
        XCTAssertEqual(d.count, 2, "NaN and infinity are left out")
        XCTAssertEqual(d.min, 0, "a negative value counts as 0")
        XCTAssertEqual(d.max, 2)
    }

    /// A signed figure (the A/V offset) is kept from its origin up; JSON carries the origin, and
    /// distributions of another origin merge bucket by bucket.
    func testAnOriginKeepsNegativeValues() throws {
        var d = LoadDistribution(scale: 1000, significantDigits: 4, origin: -1000)
        for v in [-15.0, -2.5, 0, 12.25, 40] { d.record(v) }
        d.record(-5000)
        XCTAssertEqual(d.count, 6)
        XCTAssertEqual(d.min, -1000, "below the origin counts as the origin")
        XCTAssertEqual(d.max!, 40, accuracy: 0.01)
        XCTAssertEqual(d.p50!, -2.5, accuracy: 0.1)
        let back = try JSONDecoder().decode(LoadDistribution.self, from: JSONEncoder().encode(d))
        XCTAssertEqual(back, d)
        XCTAssertEqual(back.origin, -1000)
        var plain = LoadDistribution([3, 4])
        plain.add(d)
        XCTAssertEqual(plain.count, 8)
        XCTAssertEqual(plain.min, 0, "a distribution from 0 keeps what is below as 0")
    }

    func testAddingEqualsRecordingEverything() {
        let a = values(3000, seed: 10), b = values(500, seed: 11).map { $0 * 7 }
        var merged = LoadDistribution(a)
        merged.add(LoadDistribution(b))
        let all = LoadDistribution(a + b)
        XCTAssertEqual(merged, all)
        for p in [50.0, 90, 95, 99, 100] { XCTAssertEqual(merged.percentile(p), all.percentile(p)) }
        var other = LoadDistribution(a, scale: 10)
        other.add(LoadDistribution(b))
        XCTAssertEqual(other.count, 3500, "another scale is recorded bucket by bucket")
        XCTAssertEqual(other.max!, (a + b).max()!, accuracy: 0.1)
    }

    func testJSONGivesTheSameHistogramBack() throws {
        let cases: [[Double]] = [
            values(5000, seed: 20),
            [0, 0, 3.5, 1200],
            [42.25],
            [5000.1, 5000.4], // the smallest and the largest value in one bucket
            [0, 5000.1, 5000.4, 5000.2]
        ]
        for v in cases {
            let d = LoadDistribution(v)
            let data = try JSONEncoder().encode(d)
            let back = try JSONDecoder().decode(LoadDistribution.self, from: data)
            XCTAssertEqual(back, d, "\(v.prefix(5))")
            XCTAssertEqual(back.max, d.max)
            XCTAssertEqual(back.min, d.min)
            for p in [0.0, 10, 50, 90, 99, 100] { XCTAssertEqual(back.percentile(p), d.percentile(p)) }
        }
        let pair = try JSONDecoder().decode(LoadDistribution.self, from: JSONEncoder().encode(LoadDistribution([5000.1, 5000.4])))
        XCTAssertEqual(pair.max, 5000.4)
        XCTAssertEqual(pair.min, 5000.1)
    }

    func testJSONCarriesASummaryAndRejectsNonsense() throws {
        let d = LoadDistribution([1, 2, 0.5, 4.5])
        let object = try JSONSerialization.jsonObject(with: JSONEncoder().encode(d)) as! [String: Any]
        XCTAssertEqual(Set(object.keys), ["scale", "significant_digits", "count", "min", "p50", "p90", "p95", "p99", "max", "mean", "recorded"])
        XCTAssertEqual(object["count"] as? Int, 4)
        XCTAssertEqual(object["p50"] as? Double, 1, "exact below 2.048 ms (unit resolution up to 2048 µs)")
        XCTAssertEqual((object["recorded"] as? [[Int]])?.map { $0[0] }, [500, 1000, 2000, 4500], "values in µs, the largest exactly")
        XCTAssertEqual((object["recorded"] as? [[Int]])?.map { $0[1] }, [1, 1, 1, 1])
        for bad in [
            #"{"scale": 0, "significant_digits": 3, "recorded": []}"#,
            #"{"scale": 1000, "significant_digits": 9, "recorded": []}"#,
            #"{"scale": 1000, "significant_digits": 3, "recorded": [[1, 2, 3]]}"#
        ] {
            XCTAssertThrowsError(try JSONDecoder().decode(LoadDistribution.self, from: Data(bad.utf8)), bad)
        }
    }
}
