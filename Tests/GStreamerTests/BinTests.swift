import XCTest
@testable import GStreamer

final class BinTests: XCTestCase {
    func testParseFragmentWithCaps() throws {
        let bin = try Bin.parse("videotestsrc pattern=ball ! video/x-raw,width=64,height=48 ! fakesink")
        XCTAssertEqual(bin.children.count, 3)
    }

    func testParseFragmentGhostsUnlinkedPads() throws {
        let bin = try Bin.parse("videoflip method=horizontal-flip ! videobalance saturation=0")
        XCTAssertNotNil(bin.staticPad("sink"))
        XCTAssertNotNil(bin.staticPad("src"))
    }

    func testParseErrorIsReported() {
        XCTAssertThrowsError(try Bin.parse("videoflip ! nosuchelement")) { error in
            XCTAssertTrue((error as? GstError)?.message.contains("nosuchelement") ?? false, "\(error)")
        }
    }

    /// A checked cast only succeeds for the right GType: an element is not a bin, a bin is
    /// not a pipeline (the wrappers read GstBin/GstPipeline fields, so a wrong cast would
    /// read another struct's memory).
    func testCastsCheckTheGType() throws {
        let identity = try Element.make("identity")
        XCTAssertNil(identity.cast(to: Bin.self))
        XCTAssertNil(identity.cast(to: Pipeline.self))
        let bin: Element = Bin.make(name: "b")
        XCTAssertNotNil(bin.cast(to: Bin.self))
        XCTAssertNil(bin.cast(to: Pipeline.self))
        let pipeline: Element = Pipeline(name: "p")
        XCTAssertNotNil(pipeline.cast(to: Bin.self))
        XCTAssertNotNil(pipeline.cast(to: Pipeline.self))
        let webrtc = try Element.make("webrtcbin")
        let children = try XCTUnwrap(webrtc.cast(to: Bin.self)).children
        XCTAssertFalse(children.isEmpty, "webrtcbin is a bin with children")
        XCTAssertTrue(children.allSatisfy { $0.cast(to: Element.self) != nil })
    }

    /// `descendants` goes into nested bins, depth first: a parsed bin inside a bin.
    func testDescendantsReachIntoNestedBins() throws {
        let outer = Bin.make(name: "outer")
        let inner = try Bin.parse("identity name=deep ! queue name=deeper")
        try outer.add(inner)
        try outer.add(try Element.make("fakesink", name: "top"))
        let names = Set(outer.descendants.map(\.name))
        XCTAssertTrue(names.isSuperset(of: ["deep", "deeper", "top", inner.name]), "\(names)")
        XCTAssertEqual(outer.descendants.count, 4)
        XCTAssertEqual(outer.children.count, 2)
    }

    /// A message from an element deep in bins names it and every bin it is in, innermost
    /// first (what lets a run name the source an error came from), and takes and drops
    /// its references to them (memcheck runs this).
    func testAMessageNamesTheBinsItsSourceIsIn() async throws {
        let pipeline = Pipeline(name: "top")
        let outer = Bin.make(name: "outer")
        let inner = try Bin.parse("videotestsrc num-buffers=3 ! identity name=deep error-after=1 ! fakesink")
        try outer.add(inner)
        try pipeline.add(outer)
        let refsBefore = inner.refCount
        XCTAssertNotEqual(pipeline.setState(.playing), .failure)
        var lineage: [String] = []
        let deadline = ContinuousClock.now + .seconds(10)
        for await m in pipeline.bus.messages() {
            if m.kind == .error { lineage = m.sourceLineage; break }
            if ContinuousClock.now > deadline { break }
        }
        _ = pipeline.setState(.null)
        XCTAssertEqual(lineage, ["deep", inner.name, "outer", "top"])
        XCTAssertEqual(inner.refCount, refsBefore, "every parent reference taken was dropped")
    }
}
