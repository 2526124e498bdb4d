import Foundation
import SluiceTestSupport
import XCTest

/// The benchmark tables (docs/benchmarks.md, and the README's headline) are generated from `Benchmarks/results-*.json`
/// (`Scripts/bench-tables.py`), so the docs cannot keep a figure the results no longer have.
final class BenchmarkTablesTests: XCTestCase {
    private func check(readme: String? = nil) throws -> CLIResult {
        try CLI.execute(
            URL(fileURLWithPath: "/usr/bin/python3"),
            ["\(Repository.root.path)/Scripts/bench-tables.py", "--check"] + (readme.map { ["--readme", $0] } ?? []),
            env: [:], timeout: 60, reportPath: nil)
    }

    func testTheREADMEsTablesAreTheRecordedResults() throws {
        let r = try check()
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.contains("generated tables match"), r.stdout)
    }

    /// The check can fail: a copy of docs/benchmarks.md with one figure changed by hand is caught.
    func testAFigureTypedIntoATableIsCaught() throws {
        let text = try String(contentsOf: Repository.root.appendingPathComponent("docs/benchmarks.md"), encoding: .utf8)
        let start = try XCTUnwrap(text.range(of: "<!-- table:latency-floor -->"))
        let figure = try XCTUnwrap(
            text.range(
                of: #"\| glass-to-glass p50 \| [0-9.]+ ms"#, options: .regularExpression,
                range: start.upperBound..<text.endIndex))
        let tampered = text.replacingCharacters(in: figure, with: "| glass-to-glass p50 | 999.9 ms")
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("benchmarks-\(UUID().uuidString).md")
        try tampered.write(to: copy, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: copy) }
        let r = try check(readme: copy.path)
        XCTAssertEqual(r.status, 1, r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.contains("latency-floor"), r.stdout)
    }
}
