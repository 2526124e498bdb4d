import Foundation
import SluiceTestSupport
import XCTest

/// `Scripts/undocumented.py --check` (run by .ci/run over every library module) fails on a public
/// declaration without a doc comment and on a raw C type in a public signature.
final class PublicAPICheckTests: XCTestCase {
    private func check(_ source: String) throws -> CLIResult {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("api-\(UUID().uuidString)/Sources/Lib")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent().deletingLastPathComponent()) }
        try source.write(to: folder.appendingPathComponent("A.swift"), atomically: true, encoding: .utf8)
        return try CLI.execute(
            URL(fileURLWithPath: "/usr/bin/python3"), [Repository.path("Scripts/undocumented.py"), "--check", folder.path],
            env: [:], timeout: 60, reportPath: nil)
    }

    func testTheLibraryModulesPass() throws {
        let r = try CLI.execute(
            URL(fileURLWithPath: "/usr/bin/python3"),
            [Repository.path("Scripts/undocumented.py"), "--check"]
                + ["GStreamer", "Sluice", "SluiceRun", "SluiceMeasure", "SluiceLoad", "SluiceServer", "SluiceSignalling", "SluiceFilterKit"].map {
                    Repository.path("Sources/\($0)")
                },
            env: [:], timeout: 120, reportPath: nil)
        XCTAssertEqual(r.status, 0, r.stdout + r.stderr)
    }

    func testARawCTypeInAPublicSignatureFails() throws {
        let r = try check(
            """
            /// Documented, but it shows GLib's type.
            public func typeOf(_ name: String) -> GType { 0 }
            /// A Swift type named like a C one is not one.
            public enum GstLaunchFragment {}
            /// Takes the Swift one: fine.
            public func parse(_ f: GstLaunchFragment) {}
            /// Package: fine.
            package func raw(_ v: UnsafePointer<GValue>) {}
            """)
        XCTAssertEqual(r.status, 1, r.stdout + r.stderr)
        XCTAssertTrue(r.stdout.contains("A.swift:2: func typeOf shows raw C type(s) GType"), r.stdout)
        XCTAssertFalse(r.stdout.contains("func parse") || r.stdout.contains("func raw") || r.stdout.contains("GstLaunchFragment"), r.stdout)
    }

    func testAnUndocumentedPublicDeclarationFails() throws {
        let r = try check("public struct Bare {}\n")
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.stdout.contains("A.swift:1: struct Bare"), r.stdout)
    }
}
