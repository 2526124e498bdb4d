import Foundation
#if canImport(FoundationXML)
    import FoundationXML
#endif
import XCTest
@testable import SluiceLoad
@testable import SluiceMeasure
@testable import SluiceRun

/// The load report's SVG: well-formed, with its curves, its audio panels when clients heard
/// audio, and the HTML page around it.
final class LoadPlotTests: XCTestCase {
    /// A rectangle's place and size, SVG units.
    private struct Box {
        var x: Double, y: Double, width: Double, height: Double
    }

    /// The elements of a parsed SVG: each path's `d` by its id, every id seen, the page's
    /// height, and the bars and lines inside each group, by the group's id.
    private final class Elements: NSObject, XMLParserDelegate {
        var paths: [String: String] = [:]
        var ids: Set<String> = []
        var rects = 0
        var height: Double?
        var bars: [String: [Box]] = [:]
        /// The x of each line's start, by group.
        var lineXs: [String: [Double]] = [:]
        private var groups: [String] = []

        func parser(
            _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            func number(_ key: String) -> Double { Double(attributes[key] ?? "") ?? .nan }
            if let id = attributes["id"] { ids.insert(id) }
            if name == "svg" { height = number("height") }
            if name == "g" { groups.append(attributes["id"] ?? "") }
            if name == "path", let id = attributes["id"] { paths[id] = attributes["d"] }
            if name == "rect" { rects += 1 }
            guard let group = groups.last else { return }
            if name == "rect" { bars[group, default: []].append(Box(x: number("x"), y: number("y"), width: number("width"), height: number("height"))) }
            if name == "line" { lineXs[group, default: []].append(number("x1")) }
        }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            if name == "g" { groups.removeLast() }
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

    /// The points of a path's `d`, in order.
    private func coordinates(_ d: String?) -> [LoadPlot.Point] {
        (d ?? "").split(whereSeparator: { $0 == "M" || $0 == "L" }).compactMap { p in
            let xy = p.split(separator: " ").compactMap { Double($0) }
            return xy.count == 2 ? LoadPlot.Point(x: xy[0], y: xy[1]) : nil
        }
    }

    /// `o` with sound from its first frame to its end, a 20 ms packet at a time, `lost` of them
    /// never arriving half-way; and, when it decodes, one audio stamp a second, heard 50 ms plus
    /// `offsets[k]` after capture and paired with a frame captured with it that took 50 ms: A/V
    /// offsets of `offsets`. Clients without frames hear nothing.
    private func hearing(_ o: ClientObservation, lost: Int = 0, offsets: [Double] = []) -> ClientObservation {
        guard let first = o.frames.firstAt, let end = o.endedAt else { return o }
        var o = o, a = ClientAudio()
        let packets = Int((end - first) / 0.02), gap = packets / 2..<packets / 2 + lost
        for i in 0..<packets where !gap.contains(i) {
            a.record(at: first + Double(i) * 0.02, sequence: UInt16(truncatingIfNeeded: i), timestamp: UInt32(i * 960))
        }
        if o.decodes {
            for (k, offset) in offsets.enumerated() {
                a.pairing.video(capturedMs: Double(k) * 1000, latencyMs: 50)
                a.pairing.audio(capturedMs: Double(k) * 1000, delayMs: 50 + offset)
                a.mouthToEarMs.append(50 + offset)
            }
        }
        o.audio = a
        return o
    }

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

    func testHeardAudioAddsACurveAndThreePanels() throws {
        let crowd = LoadFixtures.crowd(60).map { hearing($0, lost: $0.id % 2 == 0 ? 0 : 5, offsets: [-30, 10, 40]) }
        let r = report(crowd)
        let svg = LoadPlot.svg(r)
        let e = parse(svg)
        let layout = LoadPlot.Layout()
        let heard = crowd.filter { $0.audio != nil }.count
        XCTAssertTrue((1..<60).contains(heard), "some clients heard nothing")
        XCTAssertEqual(points(e.paths["cdf-first-audio"]), 2 * heard + 1, "a step up per client that heard audio")
        let last = try XCTUnwrap(coordinates(e.paths["cdf-first-audio"]).last)
        XCTAssertEqual(last.y, layout.top1 + layout.h1 - Double(heard) / 60 * layout.h1, accuracy: 0.06, "ends at their share")
        XCTAssertTrue(svg.contains(">first audio ("), "a legend entry")
        // Below the timeline: glass-to-glass, mouth-to-ear, A/V offset and missing audio, each in the next place.
        XCTAssertEqual(e.height, Double(Int(layout.height(lower: 4))))
        for (i, id) in ["glass-to-glass", "mouth-to-ear", "av-offset"].enumerated() {
            let bars = try XCTUnwrap(e.bars[id], id)
            XCTAssertFalse(bars.isEmpty, id)
            for b in bars {
                XCTAssertGreaterThanOrEqual(b.y, layout.lowerTop(i) - 0.1, id)
                XCTAssertEqual(b.y + b.height, layout.lowerTop(i) + layout.h3, accuracy: 0.1, "\(id) stands on its panel's axis")
            }
        }
        let missing = coordinates(e.paths["missing-audio"])
        let rows = r.clients.compactMap { $0.audio?.missing_ms_per_minute }
        XCTAssertEqual(missing.count, 2 * rows.count + 2, "a step a client, and on to the right edge")
        let bottom = layout.lowerTop(3) + layout.h3
        XCTAssertEqual(missing.first?.y ?? 0, bottom, accuracy: 0.1, "from 0% at the panel's bottom")
        XCTAssertEqual(missing.last?.y ?? 0, layout.lowerTop(3), accuracy: 0.1, "to 100% at its top")
        XCTAssertEqual(missing.last?.x ?? 0, layout.left + layout.plotW, accuracy: 0.1, "at the right edge")
        // The clients that lost nothing step up at 0 ms: the curve's height there is their share.
        let clean = rows.filter { $0 == 0 }.count
        XCTAssertTrue((1..<rows.count).contains(clean), "some clients lost packets")
        let atZero = try XCTUnwrap(missing.filter { abs($0.x - layout.left) < 0.01 }.map(\.y).min())
        XCTAssertEqual(atZero, bottom - Double(clean) / Double(rows.count) * layout.h3, accuracy: 0.06)
        XCTAssertTrue(svg.contains("audio: first audio p50 "), "the header's audio line")
        XCTAssertTrue(svg.contains(String(format: "A/V offset p50 %.0f ms", try XCTUnwrap(r.overall.av_offset_ms.p50))))
    }

    func testNegativeAVOffsetsLandLeftOfZero() throws {
        let early = { (o: ClientObservation) in o.id % 3 == 0 }
        let crowd = LoadFixtures.crowd(40).map { hearing($0, offsets: early($0) ? [-20, -20] : [30]) }
        let e = parse(LoadPlot.svg(report(crowd)))
        let zero = try XCTUnwrap(e.lineXs["av-offset-zero"]?.first, "a line at 0 ms")
        let bars = try XCTUnwrap(e.bars["av-offset"])
        let left = bars.filter { $0.x + $0.width <= zero }, right = bars.filter { $0.x >= zero }
        XCTAssertEqual(left.count, 1, "one bar, -20 ms, left of 0")
        XCTAssertEqual(right.count, 1, "one bar, +30 ms, right of 0")
        XCTAssertEqual(bars.count, 2)
        let earlyBar = try XCTUnwrap(left.first), lateBar = try XCTUnwrap(right.first)
        // Bars start half a unit right of their bin's edge: -20 ms is 2/3 as far from 0 as +30 ms.
        XCTAssertEqual((zero - (earlyBar.x - 0.5)) / (lateBar.x - 0.5 - zero), 20.0 / 30.0, accuracy: 0.01)
        let stamped = crowd.filter { $0.decodes && $0.audio != nil }
        let earlyStamps = 2 * stamped.filter(early).count, lateStamps = stamped.count - stamped.filter(early).count
        XCTAssertGreaterThan(earlyStamps * lateStamps, 0)
        XCTAssertEqual(earlyBar.height / lateBar.height, Double(earlyStamps) / Double(lateStamps), accuracy: 0.02, "bars as tall as their counts")
    }

    func testWithoutAudioThereAreNoAudioPanels() {
        let e = parse(LoadPlot.svg(report(LoadFixtures.crowd(30))))
        for id in ["cdf-first-audio", "mouth-to-ear", "av-offset", "av-offset-zero", "missing-audio"] {
            XCTAssertFalse(e.ids.contains(id), id)
        }
        XCTAssertTrue(e.ids.contains("glass-to-glass"))
        XCTAssertEqual(e.height, Double(Int(LoadPlot.Layout().height(lower: 1))), "the page ends below the one panel")
        XCTAssertFalse(LoadPlot.svg(report(LoadFixtures.crowd(30))).contains("first audio"))
    }

    func testSoundWithoutStampsHasOnlyTheMissingAudioPanel() throws {
        // No client decodes: no frame or audio stamp is read, but sound arrives and some is lost.
        let crowd = LoadFixtures.crowd(30).filter { !$0.decodes }.map { hearing($0, lost: 3, offsets: [5]) }
        let svg = LoadPlot.svg(report(crowd))
        let e = parse(svg)
        let layout = LoadPlot.Layout()
        for id in ["glass-to-glass", "mouth-to-ear", "av-offset"] { XCTAssertFalse(e.ids.contains(id), id) }
        XCTAssertNotNil(e.paths["cdf-first-audio"])
        let missing = coordinates(e.paths["missing-audio"])
        XCTAssertEqual(missing.last?.y ?? 0, layout.lowerTop(0), accuracy: 0.1, "the missing-audio panel takes the first place")
        XCTAssertEqual(e.height, Double(Int(layout.height(lower: 1))))
        XCTAssertFalse(svg.contains("mouth-to-ear p50"), "no stamp figures in the header")
        XCTAssertTrue(svg.contains("missing p50 "))
    }
}
