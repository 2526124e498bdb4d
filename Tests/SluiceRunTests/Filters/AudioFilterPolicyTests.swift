import GStreamer
import SluiceFilterKit
import SluiceTestSupport
import Synchronization
import XCTest
@testable import SluiceRun

/// An audio filter's `on_error` policies over WebRTC loopback, and analysis-only filters that
/// read shared buffers without copying them.
final class AudioFilterPolicyTests: XCTestCase {
    override func setUp() { _ = TestFilters.registered }

    private func spec(_ yaml: String) throws -> PipelineSpec {
        try PipelineLoader(environment: [:], catalog: GStreamerCatalog(), filters: FilterRegistry.shared)
            .load(yaml: yaml, file: "test.yaml")
    }

    /// A 440 Hz sine (RMS −4.95 dBFS) through a filter that throws on every other block,
    /// into Opus, and a level meter after decoding.
    private func run(_ policy: String) async throws -> RunSummary {
        try await PipelineRun(
            spec: spec(
                """
                transport: { ice: { addresses: [127.0.0.1] } }
                send:
                  audio:
                    capture: { kind: test, wave: sine, frequency: 440 }
                    filters:
                      - filter: test-audio-throwing
                        every: 2
                        on_error: \(policy)
                    encode: { codec: opus, bitrate: 64 }
                receive:
                  audio:
                    filters:
                      - filter: level
                        interval_ms: 200
                """)
        ).run(options: RunOptions(duration: 3))
    }

    /// The receiver's last RMS level, dBFS.
    private func heard(_ summary: RunSummary) throws -> Double {
        let meter = try XCTUnwrap(summary.filters.first { $0.filter == "level" }, "\(summary.filters)")
        return try XCTUnwrap(meter.last_event_fields?["level"]?["rms_db"], "\(meter)")
    }

    func testAThrowingAudioFilterUnderEachPolicy() async throws {
        try requireLoopbackOnlyNetwork()
        let expected = 20 * log10(0.8 / 2.0.squareRoot())
        // pass: every block goes on as it was, errors are counted: the tone is heard whole.
        let pass = try await run("pass")
        let passStats = try XCTUnwrap(pass.filters.first { $0.filter == "test-audio-throwing" })
        XCTAssertGreaterThan(passStats.errors, 50, "\(passStats)")
        XCTAssertEqual(passStats.errors, passStats.frames / 2, accuracy: 1)
        XCTAssertEqual(passStats.dropped, 0)
        XCTAssertTrue(passStats.last_error?.contains("boom at block") ?? false, "\(passStats)")
        XCTAssertEqual(try heard(pass), expected, accuracy: 1.5, "the receiver hears the tone at its level")

        // drop: the failing half of the blocks is gone; the stream goes on with what is left.
        let drop = try await run("drop")
        let dropStats = try XCTUnwrap(drop.filters.first { $0.filter == "test-audio-throwing" })
        XCTAssertGreaterThan(dropStats.errors, 50, "\(dropStats)")
        XCTAssertEqual(dropStats.dropped, dropStats.errors)
        let sent = try XCTUnwrap(drop.send.audio?.buffers), sentWhole = try XCTUnwrap(pass.send.audio?.buffers)
        XCTAssertLessThan(Double(sent), Double(sentWhole) * 0.75, "half the sound was dropped before the encoder")
        XCTAssertGreaterThan(drop.receive.audio?.buffers ?? 0, 25, "what is left still plays")

        // fail: the run stops with the filter's error, and the runner survives to say so.
        do {
            _ = try await run("fail")
            XCTFail("on_error: fail must stop the run")
        } catch let error as RunError {
            XCTAssertTrue(error.message.contains("boom at block"), error.message)
            XCTAssertTrue(error.message.contains("test-audio-throwing"), error.message)
        }
    }

    /// Each buffer is also held by the test (as a tee's branches hold theirs), so it is not
    /// writable: an analysis-only filter reads it where it is, a filter that writes gets a
    /// copy (the check that this test can tell the two apart).
    func testAnAnalysisOnlyAudioFilterReadsSharedBuffersWithoutACopy() throws {
        let peeked = try addresses(through: "test-audio-peek")
        XCTAssertEqual(peeked.filter.count, 20)
        XCTAssertEqual(peeked.filter, peeked.arriving, "the analysis-only filter saw every buffer's own memory")
        let touched = try addresses(through: "test-audio-touch")
        XCTAssertEqual(touched.filter.count, 20)
        XCTAssertTrue(zip(touched.filter, touched.arriving).allSatisfy { $0 != $1 }, "a writing filter works on a copy of a shared buffer")
    }

    /// Where each of 20 buffers lives as it arrives at `filter`'s element (held by the test
    /// from then on) and as the filter sees it.
    private func addresses(through filter: String) throws -> (arriving: [UInt], filter: [UInt]) {
        Gst.initialize()
        let peek = filter == "test-audio-peek"
        func seen() -> [UInt] { peek ? AudioBlockAddresses.peeked.withLock { $0 } : AudioBlockAddresses.touched.withLock { $0 } }
        AudioBlockAddresses.peeked.withLock { $0.removeAll() }
        AudioBlockAddresses.touched.withLock { $0.removeAll() }
        let pipeline = Pipeline(name: "audio-no-copy")
        let src = try Element.make("audiotestsrc")
        try src.set("num-buffers", Int32(20))
        let caps = try Element.make("capsfilter")
        try caps.set("caps", fromString: "audio/x-raw,format=F32LE,rate=48000,channels=2,layout=interleaved")
        let element = try Element.make("sluice-\(filter)")
        let sink = try Element.make("fakesink")
        try pipeline.add([src, caps, element, sink])
        try Element.link([src, caps, element, sink])
        let held = Mutex<[Buffer]>([]), arriving = Mutex<[UInt]>([])
        try XCTUnwrap(element.staticPad("sink")).addProbe { (info: borrowing Pad.ProbeInfo) in
            guard let address = info.buffer?.withBytes({ UInt(bitPattern: $0.baseAddress) }) ?? nil,
                let kept = info.buffer?.retained()
            else { return .ok }
            arriving.withLock { $0.append(address) }
            held.withLock { $0.append(kept) }
            return .ok
        }
        XCTAssertTrue(pipeline.setState(.playing) != .failure)
        let end = pipeline.bus.pop(timeout: 10_000_000_000, of: [.eos, .error])
        pipeline.setState(.null)
        XCTAssertEqual(end?.kind, .eos, "the 20 buffers went through")
        held.withLock { $0.removeAll() }
        return (arriving.withLock { $0 }, seen())
    }
}
