import GStreamer
import Synchronization
import XCTest
@testable import SluiceRun

/// `FallbackSwitch` in process: a red live source behind a valve feeds an input-selector.
/// Closing the valve (the source goes silent) puts a green fallback on air after `after`;
/// opening it takes the fallback off at the source's first frame and removes the fallback's
/// elements. What leaves the selector is red, then green, then red, with timestamps that
/// never go backwards, and the events and report say the same.
final class FallbackSwitchTests: XCTestCase {
    /// What left the selector: per change of colour, the colour and its frames.
    private final class Seen: Sendable {
        let runs = Mutex<[(colour: String, frames: Int)]>([])
        let backwards = Atomic<Int>(0)
        let lastPTS = Atomic<UInt>(0)
        let events = Mutex<[String]>([])

        func frame(colour: String, pts: ClockTime?) {
            runs.withLock { runs in
                if runs.last?.colour == colour { runs[runs.count - 1].frames += 1 } else { runs.append((colour, 1)) }
            }
            guard let pts else { return }
            if pts < lastPTS.load(ordering: .relaxed) { backwards.add(1, ordering: .relaxed) }
            lastPTS.store(pts, ordering: .relaxed)
        }
    }

    private static let caps = "video/x-raw,format=I420,width=64,height=48,framerate=30/1"

    private static func element(_ factory: String, _ properties: [(String, String)] = []) throws -> Element {
        let element = try Element.make(factory)
        for (name, value) in properties { try element.set(name, fromString: value) }
        return element
    }

    func testTheFallbackGoesOnAirWhenTheSourceIsSilentAndOffWhenItIsBack() async throws {
        Gst.initialize()
        let pipeline = Pipeline(name: "fallback-switch")
        let source = try Self.element("videotestsrc", [("is-live", "true"), ("pattern", "red")])
        let filter = try Self.element("capsfilter", [("caps", Self.caps)])
        let valve = try Self.element("valve")
        let selector = try Self.element("input-selector", [("sync-streams", "false"), ("drop-backwards", "true")])
        let sink = try Self.element("fakesink", [("sync", "false")])
        try pipeline.add([source, filter, valve, selector, sink])
        try Element.link([source, filter, valve, selector, sink])
        let input = try XCTUnwrap(selector.staticPad("sink_0"))
        let seen = Seen()
        try XCTUnwrap(selector.staticPad("src")).addProbe(.buffer) { (info: borrowing Pad.ProbeInfo) in
            // I420: the first byte is a luma sample; red's is about 81, green's about 145.
            var luma = 0
            if let buffer = info.buffer { luma = buffer.withBytes { Int($0[0]) } ?? 0 }
            seen.frame(colour: luma < 110 ? "red" : "green", pts: info.bufferRunningTime)
            return .ok
        }
        let slate = FallbackSlate(spec: FallbackSpec(content: .pattern("green"), afterSeconds: 0.3), media: .video, codec: nil)
        let fallback = FallbackSwitch(source: "test source", slate: slate, selector: selector, input: input, pipeline: pipeline) {
            (caps: Caps) throws(RunError) -> [Element] in
            XCTAssertEqual(caps.structure(at: 0)?.get("width", as: Int.self), 64, "made for the source's caps")
            do {
                return [
                    try Self.element("videotestsrc", [("is-live", "true"), ("pattern", "green")]),
                    try Self.element("capsfilter", [("caps", caps.description)])
                ]
            } catch { throw RunError("\(error)") }
        }
        fallback.onEvent { event in seen.events.withLock { $0.append(event.type) } }
        let children = pipeline.children.count
        XCTAssertNotEqual(pipeline.setState(.playing), .failure)
        defer { pipeline.setState(.null) }
        fallback.start()
        defer { fallback.stop() }

        try await waitUntil("red frames arrive") { seen.runs.withLock { $0.first?.frames ?? 0 } >= 10 }
        try valve.set("drop", true)
        try await waitUntil("the fallback goes on air") { seen.events.withLock { $0 } == ["fallback-on"] }
        XCTAssertEqual(pipeline.children.count, children + 2, "the fallback's two elements were added")
        try await waitUntil("green frames arrive") { seen.runs.withLock { $0.last.map { $0.colour == "green" && $0.frames >= 10 } ?? false } }
        try valve.set("drop", false)
        try await waitUntil("the source is back on air") { seen.events.withLock { $0 } == ["fallback-on", "fallback-off"] }
        try await waitUntil("the fallback's elements are gone") { pipeline.children.count == children }
        try await waitUntil("red frames again") { seen.runs.withLock { $0.last.map { $0.colour == "red" && $0.frames >= 5 } ?? false } }
        XCTAssertEqual(seen.runs.withLock { $0.map(\.colour) }, ["red", "green", "red"])
        XCTAssertEqual(seen.backwards.load(ordering: .relaxed), 0, "timestamps never went backwards")
        XCTAssertNil(selector.staticPad("sink_1"), "the fallback's selector pad was released")
        let report = fallback.report()
        XCTAssertEqual(report.times, 1)
        XCTAssertGreaterThan(report.seconds, 0.2)
    }

    /// Waits, bounded (10 s), until `condition` holds.
    private func waitUntil(_ what: String, _ condition: @Sendable () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while !condition() {
            guard ContinuousClock.now < deadline else { return XCTFail("timed out waiting until \(what)") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
