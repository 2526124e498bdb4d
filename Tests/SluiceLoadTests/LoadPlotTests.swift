import Foundation
#if canImport(FoundationXML)
    import FoundationXML
#endif
import XCTest
@testable import SluiceLoad
@testable import SluiceMeasure
@testable import SluiceRun

/// The load report's SVG: well-formed, with its curves, and the HTML page around it.
final class LoadPlotTests: XCTestCase {
    /// The elements of a parsed SVG: each path's `d` by its id, and every id seen.
    private final class Elements: NSObject, XMLParserDelegate {
        var paths: [String: String] = [:]
        var ids: Set<String> = []
        var rects = 0

        func parser(
            _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            if let id = attributes["id"] { ids.insert(id) }
            if name == "path", let id = attributes["id"] { paths[id] = attributes["d"] }
            if name == "rect" { rects += 1 }
        }
    }

    /// Parses `svg`, failing the test when it is not well-formed XML.
    private func parse(_ svg: String, file: StaticString = #filePath, line: UInt = #line) -> Elements {
        let parser = XMLParser(data: Data(svg.utf8))
        let elements = Elements()
        parser.delegate = elements
        XCTAssertTrue(parser.parse(), "the SVG is well-formed XML: \(parser.parserError.map { "\($0)" } ?? "")", file: file, line: line)
        return elements
    }

    /// Points in a path's `d` (one per `M` or `L`).
    private func points(_ d: String?) -> Int { (d ?? "").filter { $0 == "M" || $0 == "L" }.count }

    private func report(_ observations: [ClientObservation], pipeline: String = "load <a&b>.yaml") -> LoadReport {
        LoadReport(
            pipeline: pipeline, target: "http://127.0.0.1/whep?x=1&y=2", clientsPlanned: observations.count, duration: 20,
            observations: observations, samples: LoadFixtures.samples(duration: 20, cores: 1, memory: 200))
    }

    func testTheSVGHasItsCurvesAndParses() {
        let crowd = LoadFixtures.crowd(60)
        let r = report(crowd)
        let svg = LoadPlot.svg(r)
        let e = parse(svg)
        let connected = crowd.filter { $0.iceConnectedAt != nil }.count
        let firstFrames = crowd.filter { $0.frames.firstAt != nil }.count
        XCTAssertEqual(points(e.paths["cdf-connect"]), 2 * connected + 1, "a step up per connected client")
        XCTAssertEqual(points(e.paths["cdf-first-frame"]), 2 * firstFrames + 1)
        XCTAssertEqual(points(e.paths["timeline-clients"]), 20, "a point a second")
        XCTAssertEqual(points(e.paths["timeline-bitrate"]), 20)
        XCTAssertTrue(e.ids.contains("glass-to-glass"))
        XCTAssertGreaterThan(e.rects, 5, "the background and the histogram's bars")
        XCTAssertTrue(svg.contains("load &lt;a&amp;b&gt;.yaml"), "names are escaped")
        XCTAssertTrue(svg.contains("x=1&amp;y=2"))
    }

    func testTheCDFEndsAtTheShareOfClientsThatGotThere() throws {
        let crowd = LoadFixtures.crowd(60)
        let e = parse(LoadPlot.svg(report(crowd)))
        let layout = LoadPlot.Layout()
        let connected = Double(crowd.filter { $0.iceConnectedAt != nil }.count) / 60
        let last = try XCTUnwrap(e.paths["cdf-connect"]?.split(separator: "L").last)
        let y = try XCTUnwrap(Double(last.split(separator: " ")[1]))
        XCTAssertEqual(y, layout.top1 + layout.h1 - connected * layout.h1, accuracy: 0.06)
        XCTAssertLessThan(connected, 1, "some were refused or failed")
    }

    func testWithoutStampsThereIsNoGlassToGlassPanel() {
        let r = report(LoadFixtures.crowd(30).filter { !$0.decodes })
        let e = parse(LoadPlot.svg(r))
        XCTAssertFalse(e.ids.contains("glass-to-glass"))
        XCTAssertNotNil(e.paths["cdf-connect"])
        XCTAssertNotNil(e.paths["timeline-clients"])
    }

    func testAnEmptyReportSaysSo() {
        let svg = LoadPlot.svg(report([]))
        let e = parse(svg)
        XCTAssertTrue(svg.contains("no client in the report"))
        XCTAssertTrue(e.paths.isEmpty)
    }

    func testTheHTMLPageHoldsTheSVG() {
        let r = report(LoadFixtures.crowd(10))
        let html = LoadPlot.html(r)
        XCTAssertTrue(html.hasPrefix("<!DOCTYPE html>"))
        XCTAssertTrue(html.contains(LoadPlot.svg(r)))
        XCTAssertTrue(html.contains("<title>sluice load — load &lt;a&amp;b&gt;.yaml → http://127.0.0.1/whep?x=1&amp;y=2</title>"))
        XCTAssertTrue(html.hasSuffix("</html>\n"))
    }
}
