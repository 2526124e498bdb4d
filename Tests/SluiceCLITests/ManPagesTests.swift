import Foundation
import SluiceTestSupport
import XCTest

/// The man pages in docs/man (Scripts/generate-manuals.sh) say what `--help` says: the same
/// options for every command, every command a user types listed, no hidden command.
final class ManPagesTests: XCTestCase {
    private let folder = Repository.root.appendingPathComponent("docs/man")

    private func longOptions(_ text: String, pattern: String) -> Set<String> {
        let regex = try! NSRegularExpression(pattern: pattern)
        let range = NSRange(text.startIndex..., in: text)
        return Set(regex.matches(in: text, range: range).compactMap { Range($0.range(at: 1), in: text).map { String(text[$0]) } })
    }

    func testEveryPagesOptionsAreItsCommandsHelp() throws {
        let pages = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".1") }.sorted()
        XCTAssertFalse(pages.isEmpty)
        for page in pages {
            let words = page.dropLast(2).split(separator: ".").dropFirst().map(String.init) // sluice.load.crowd.1 → [load, crowd]
            let text = try String(contentsOf: folder.appendingPathComponent(page), encoding: .utf8)
            let help = try CLI.run(words + ["--help"], timeout: 30, isolated: false)
            XCTAssertEqual(help.status, 0, "sluice \(words.joined(separator: " ")) --help: \(help.stderr)")
            // The page's flags (`.Fl -name`), and the options `--help` lists (indented lines of
            // its OPTIONS; its prose may name other commands' options). `--help` is in both.
            let inPage = longOptions(text, pattern: #"Fl -([a-z][a-z0-9-]*)"#).subtracting(["help"])
            let inHelp = longOptions(help.stdout, pattern: #"(?m)^ {2}(?:-\w, )?--([a-z][a-z0-9-]*)"#).subtracting(["help"])
            XCTAssertEqual(inPage, inHelp, "\(page) against `sluice \(words.joined(separator: " ")) --help`: run Scripts/generate-manuals.sh")
        }
    }

    func testTheRootPageListsTheCommandsAndNoHiddenOne() throws {
        let pages = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        for hidden in ["measure-peer", "netem-relay", "help"] {
            XCTAssertFalse(pages.contains("sluice.\(hidden).1"), "no page for \(hidden)")
        }
        let root = try String(contentsOf: folder.appendingPathComponent("sluice.1"), encoding: .utf8)
        for command in ["run", "measure", "load", "validate", "inspect", "graph", "serve", "discover"] {
            XCTAssertTrue(root.contains(".It Cm \(command)\n"), "sluice.1 lists \(command)")
            XCTAssertTrue(root.contains(".Xr sluice.\(command) 1"), "sluice.1 sees also \(command)")
        }
        XCTAssertFalse(root.contains("measure-peer") || root.contains("netem-relay"), "hidden commands stay hidden")
        XCTAssertTrue(root.contains("Examples:") && root.contains("sluice run Pipelines/loopback.yaml"), "an example")
        XCTAssertTrue(root.contains(".It 3\n"), "the exit codes are named")
    }
}
