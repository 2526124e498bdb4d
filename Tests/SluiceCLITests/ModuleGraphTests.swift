import Foundation
import SluiceTestSupport
import XCTest

/// `Scripts/module-graph.py --check` (run by .ci/run): docs/architecture.md's module graph is
/// Package.swift's, and no source file imports a module of the package its target does not
/// depend on.
final class ModuleGraphTests: XCTestCase {
    private func graph(_ arguments: [String]) throws -> CLIResult {
        try CLI.execute(
            URL(fileURLWithPath: "/usr/bin/python3"), [Repository.path("Scripts/module-graph.py")] + arguments,
            env: [:], timeout: 60, reportPath: nil)
    }

    func testTheDrawnGraphIsPackageSwiftsAndImportsKeepToIt() throws {
        let r = try graph(["--check"])
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.contains("module-graph: 0 problem(s)"), r.stdout)
    }

    func testTheGraphPutsEachModuleAboveWhatItDependsOn() throws {
        let r = try graph([])
        XCTAssertEqual(r.status, 0, r.stderr)
        var level: [String: Int] = [:]
        var deps: [String: [String]] = [:]
        for line in r.stdout.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 3, let l = Int(fields[0]) else { continue }
            let name = String(fields[1])
            level[name] = l
            let right = line.components(separatedBy: "  + ")[0]
            let after = right.range(of: name).map { String(right[$0.upperBound...]) } ?? ""
            deps[name] = after.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { $0 != "-" && !$0.isEmpty }
        }
        // The product's layers, bottom to top.
        let order = ["GStreamer", "SluiceRun", "SluiceMeasure", "SluiceLoad", "Sluice", "SluiceServer", "sluice"]
        for (low, high) in zip(order, order.dropFirst()) {
            XCTAssertLessThan(try XCTUnwrap(level[low], r.stdout), try XCTUnwrap(level[high], r.stdout), "\(low) is not below \(high)")
        }
        for (name, list) in deps {
            for d in list { XCTAssertLessThan(level[d] ?? .max, level[name] ?? 0, "\(name) depends on \(d), which is not below it") }
        }
        XCTAssertFalse(deps["SluiceRun", default: []].contains("SluiceMeasure"), r.stdout)
    }

    func testAnImportOutsideTheDependenciesIsReported() throws {
        // A copy of the package's manifest and one source file that imports a module above it.
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("graph-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        for folder in ["Scripts", "docs", "Sources/SluiceRun"] {
            try FileManager.default.createDirectory(at: root.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        try FileManager.default.copyItem(
            atPath: Repository.path("Scripts/module-graph.py"), toPath: root.appendingPathComponent("Scripts/module-graph.py").path)
        try FileManager.default.copyItem(atPath: Repository.path("Package.swift"), toPath: root.appendingPathComponent("Package.swift").path)
        try FileManager.default.copyItem(
            atPath: Repository.path("docs/architecture.md"), toPath: root.appendingPathComponent("docs/architecture.md").path)
        try "import SluiceLoad\n".write(to: root.appendingPathComponent("Sources/SluiceRun/Up.swift"), atomically: true, encoding: .utf8)
        let r = try CLI.execute(
            URL(fileURLWithPath: "/usr/bin/python3"), [root.appendingPathComponent("Scripts/module-graph.py").path, "--check"],
            env: [:], timeout: 60, reportPath: nil)
        XCTAssertEqual(r.status, 1, r.stdout)
        XCTAssertTrue(r.stdout.contains("Sources/SluiceRun/Up.swift:1: SluiceRun imports SluiceLoad"), r.stdout)
    }
}
