import Foundation
import GStreamer
import SluiceTestSupport
import SluiceRunTestSupport
import XCTest
@testable import SluiceRun

/// A parsed source in process (memcheck runs this: parsebin's and urisourcebin's signal
/// handlers, the router's weak references, the pads it links and the fakesink it adds): an
/// MPEG-TS file with H.264 video and AAC audio, read by `kind: uri`, its video passed through
/// over loopback WebRTC and its AAC decoded and sent as Opus.
final class ParsedSourceTests: XCTestCase {
    private var clip: URL!

    override func setUpWithError() throws {
        _ = TestFilters.registered
        clip = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-parsed-\(UUID().uuidString).ts")
        // Made in this process (no child process: memcheck's preloaded tracer would follow it).
        let maker = Pipeline(name: "clip-maker")
        try maker.add(
            try Bin.parse(
                "videotestsrc pattern=white num-buffers=120 ! video/x-raw,width=320,height=240,framerate=30/1 ! "
                    + "x264enc tune=zerolatency key-int-max=30 ! h264parse ! mpegtsmux name=mux ! filesink location=\(clip.path) "
                    + "audiotestsrc num-buffers=200 ! avenc_aac ! aacparse ! mux."))
        XCTAssertNotEqual(maker.setState(.playing), .failure)
        let done = DispatchSemaphore(value: 0)
        let watch = Task.detached {
            for await m in maker.bus.messages() where m.kind == .eos || m.kind == .error { break }
            done.signal()
        }
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success, "the clip was made within 30 s")
        watch.cancel()
        maker.setState(.null)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: clip) }

    func testATransportStreamsH264PassesThroughAndItsAACIsEncodedAsOpus() async throws {
        try requireLoopbackOnlyNetwork()
        let capture = "{ kind: uri, url: '\(clip.absoluteString)' }"
        let yaml = """
            transport: { ice: { addresses: [127.0.0.1] } }
            send:
              video: { capture: \(capture), encode: none }
              audio: { capture: \(capture), encode: { codec: opus } }
            receive:
              video:
                filters: [ { filter: test-luma-probe } ]
            """
        let spec = try XCTUnwrap(specLoadValid(yaml))
        LumaProbe.lastMean = nil
        let summary = try await PipelineRun(spec: spec).run(options: RunOptions(duration: 2.5))
        XCTAssertEqual(summary.send.video?.passthrough, true)
        XCTAssertGreaterThan(summary.receive.video?.frames ?? 0, 40, "about 30 fps for 2 s from a paced file")
        XCTAssertEqual(summary.receive.video?.width, 320, "the clip's own size")
        XCTAssertEqual(try XCTUnwrap(LumaProbe.lastMean), 235, accuracy: 8, "the clip's white picture")
        XCTAssertGreaterThan(summary.receive.audio?.buffers ?? 0, 50, "the AAC arrived as Opus")
    }

    /// An SRT sender in this process (srtsink, caller) stops 2.5 s after it starts and a new
    /// one calls 1.5 s later: Sluice's listener counts one outage, makes its srtsrc again,
    /// and media flows on in the same run (memcheck runs this: the supervisor's restart).
    func testAnSRTSenderThatStopsAndComesBackIsReconnected() async throws {
        try requireLoopbackOnlyNetwork()
        let yaml = """
            transport: { ice: { addresses: [127.0.0.1] } }
            send:
              video: { capture: { kind: srt, url: 'srt://:18611' }, encode: none }
            """
        let spec = try XCTUnwrap(specLoadValid(yaml))
        let run = Task { try await PipelineRun(spec: spec).run(options: RunOptions(duration: 9)) }
        try await Task.sleep(for: .seconds(1))
        let first = try Self.sender()
        try await Task.sleep(for: .milliseconds(2500))
        first.setState(.null)
        try await Task.sleep(for: .milliseconds(1500))
        let second = try Self.sender()
        let summary = try await run.value
        second.setState(.null)
        let source = try XCTUnwrap(summary.sources.first, "one source had an outage: \(summary.text)")
        XCTAssertEqual(source.source, "srt listener srt://:18611")
        XCTAssertEqual(source.outages, 1, summary.text)
        XCTAssertTrue(source.back, summary.text)
        XCTAssertGreaterThan(source.away_s, 1, summary.text)
        XCTAssertGreaterThan(summary.receive.video?.frames ?? 0, 100, "frames before and after: \(summary.text)")
    }

    /// The same outage with `fallback: {pattern: black, after: 0.5}`: the slate (H.264, in the
    /// source's caps) goes on air half a second into the outage and off when the sender is
    /// back, over the same session, so frames keep arriving through the outage.
    func testAnSRTSourceWithAFallbackKeepsFramesComingThroughAnOutage() async throws {
        try requireLoopbackOnlyNetwork()
        let yaml = """
            transport: { ice: { addresses: [127.0.0.1] } }
            send:
              video: { capture: { kind: srt, url: 'srt://:18612', fallback: { pattern: black, after: 0.5 } }, encode: none }
            """
        let spec = try XCTUnwrap(specLoadValid(yaml))
        let run = Task { try await PipelineRun(spec: spec).run(options: RunOptions(duration: 9)) }
        try await Task.sleep(for: .seconds(1))
        let first = try Self.sender(port: 18612)
        try await Task.sleep(for: .milliseconds(2500))
        first.setState(.null)
        try await Task.sleep(for: .milliseconds(2500))
        let second = try Self.sender(port: 18612)
        let summary = try await run.value
        second.setState(.null)
        let source = try XCTUnwrap(summary.sources.first, summary.text)
        XCTAssertEqual(source.outages, 1, summary.text)
        XCTAssertEqual(source.fallback_shown, 1, "the slate went on air once: \(summary.text)")
        XCTAssertGreaterThan(source.fallback_s ?? 0, 1, "for most of the 2.5 s outage: \(summary.text)")
        XCTAssertTrue(source.back, summary.text)
        // About 7.5 s of frames at 30 fps with the slate filling the outage; without it the
        // outage (2.5 s and the reconnect) would cost some 90 of them.
        XCTAssertGreaterThan(summary.receive.video?.frames ?? 0, 190, summary.text)
        print("SRT with a fallback: \(summary.receive.video?.frames ?? 0) frames received, slate on air \(source.fallback_s ?? 0) s")
    }

    /// A live H.264 test picture sent as MPEG-TS over SRT to 127.0.0.1:`port`, playing.
    private static func sender(port: Int = 18611) throws -> Pipeline {
        let pipeline = Pipeline(name: "srt-sender")
        try pipeline.add(
            try Bin.parse(
                "videotestsrc is-live=true ! video/x-raw,width=320,height=240,framerate=30/1 ! "
                    + "x264enc tune=zerolatency key-int-max=15 ! mpegtsmux ! srtsink uri=srt://127.0.0.1:\(port) mode=caller"))
        XCTAssertNotEqual(pipeline.setState(.playing), .failure)
        return pipeline
    }
}
