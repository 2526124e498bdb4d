import Foundation
import GStreamer
import SluiceFilterKit
import SluiceTestSupport
import XCTest
@testable import SluiceRun

/// `audiostamp` through what a stamp must survive: Opus at 16 kbit/s with DTX off and on, 5%
/// random loss concealed by PLC and by in-band FEC; and a WebRTC loopback run end to end.
final class AudioStampPipelineTests: XCTestCase {
    override func setUp() { _ = TestFilters.registered }

    /// Stamps read and unreadable after `middle` (between the writer and the reader), for 30 s
    /// of `wave` (a 440 Hz sine, or silence) with a stamp every 500 ms (60 written), as fast as
    /// the CPU goes.
    private func survive(_ middle: String, wave: String = "sine") throws -> (read: Int, unreadable: Int) {
        let bin = try Bin.parse(
            "audiotestsrc num-buffers=1500 samplesperbuffer=960 volume=0.3 wave=\(wave) ! audio/x-raw,rate=48000,channels=1 "
                + "! sluice-audiostamp interval-ms=500 ! audioconvert ! \(middle) ! audioconvert "
                + "! sluice-audiostamp-read name=reader ! fakesink sync=false", ghostUnlinkedPads: false)
        let pipeline = Pipeline()
        try pipeline.add([bin])
        pipeline.setState(.playing)
        var done = false
        while let m = pipeline.bus.pop(timeout: 60_000_000_000) {
            if m.kind == .eos { done = true; break }
            if m.kind == .error { XCTFail("\(middle): \(m.parsedError?.message ?? "error")"); break }
        }
        let reader = bin.descendants.first { $0.name == "reader" }
        let events = reader.flatMap(FilterStatisticsDirectory.statistics(of:))?.events ?? [:]
        pipeline.setState(.null)
        XCTAssertTrue(done, "\(middle): reached the end")
        print("audiostamp through \(middle) over \(wave): \(events["audiostamp"] ?? 0) of 60 read, \(events["audiostamp-unreadable"] ?? 0) unreadable")
        return (events["audiostamp"] ?? 0, events["audiostamp-unreadable"] ?? 0)
    }

    func testStampsSurviveOpusAt16KbitsWithAndWithoutDTX() throws {
        // Over a tone, and over silence (where DTX stops sending between stamps).
        // Each stamp carries the capture time, so the tones differ from run to run. With DTX
        // over silence the encoder wakes on the sync tone and now and then garbles a symbol:
        // 56–59 of 60 read in the runs seen.
        for (dtx, wave, least) in [(false, "sine", 57), (false, "silence", 57), (true, "silence", 54)] {
            let result = try survive("opusenc bitrate=16000 dtx=\(dtx) ! opusdec", wave: wave)
            XCTAssertGreaterThanOrEqual(result.read, least, "dtx \(dtx) over \(wave): \(least) of 60 stamps read, got \(result)")
        }
    }

    func testStampsSurviveFivePercentLossWithPLCAndWithFEC() throws {
        let plc = try survive("opusenc bitrate=24000 ! identity drop-probability=0.05 ! opusdec plc=true")
        // A stamp spans 14 packets of 20 ms: 0.95^14 = 49% of stamps cross no loss at all, and
        // concealment saves some of the others (about 70% read in the runs seen).
        XCTAssertGreaterThanOrEqual(plc.read, 30, "PLC: half of 60 stamps read, got \(plc)")
        let fec = try survive(
            "opusenc bitrate=24000 inband-fec=true packet-loss-percentage=10 ! identity drop-probability=0.05 ! opusdec use-inband-fec=true plc=true")
        XCTAssertGreaterThanOrEqual(fec.read, 42, "FEC recovers most losses: 70% of 60 stamps read, got \(fec)")
    }

    /// Over WebRTC loopback in one process: stamps written before Opus are read after the
    /// jitter buffer and decoding, with a delay that is real (above zero) and bounded.
    func testMouthToEarIsReadOverWebRTC() async throws {
        try requireLoopbackOnlyNetwork()
        let spec = try PipelineLoader(environment: [:], filters: FilterRegistry.shared).load(
            yaml: """
                transport: { ice: { addresses: [127.0.0.1] } }
                send:
                  audio:
                    capture: { kind: test, wave: sine, frequency: 440 }
                    filters:
                      - filter: audiostamp
                        interval_ms: 500
                    encode: { codec: opus, bitrate: 32 }
                receive:
                  audio:
                    filters:
                      - filter: audiostamp-read
                """, file: "stamp.yaml")
        let summary = try await PipelineRun(spec: spec).run(options: RunOptions(duration: 4))
        let reader = try XCTUnwrap(summary.filters.first { $0.filter == "audiostamp-read" })
        XCTAssertGreaterThanOrEqual(reader.events["audiostamp"] ?? 0, 5, "\(reader)")
        let delay = try XCTUnwrap(reader.last_event_fields?["audiostamp"]?["delay_ms"])
        XCTAssertGreaterThan(delay, 1)
        XCTAssertLessThan(delay, 400)
    }
}
