import XCTest
@testable import SluiceRun

/// What a user reads at the end of a run and every second during it.
final class RunSummaryTextTests: XCTestCase {
    private func summary(send: RunSummary.Send, receive: RunSummary.Receive) -> RunSummary {
        RunSummary(
            pipeline: "p.yaml", duration_s: 3, send: send, receive: receive, time_to_first_frame_ms: nil, ice_state: "completed",
            network: .init(
                bytes_sent: 0, packets_sent: 0, bytes_received: 0, packets_received: 0,
                packets_lost: 0, rtt_ms: nil, jitter_ms: nil, bitrate_kbps: 0),
            cpu_seconds: 1, gstreamer_version: "1.22")
    }

    func testFilterNamesAreNeverCut() {
        var s = summary(send: .init(), receive: .init())
        s.filters = [
            .init(filter: "framestamp", element: "e0", frames: 90, dropped: 0, errors: 0, events: [:]),
            .init(filter: "invert", element: "e1", frames: 90, dropped: 0, errors: 0, events: [:])
        ]
        s.data_channels = [.init(label: "a-long-channel-label", opened: true, sent: 1, received: 2)]
        XCTAssertTrue(s.text.contains("  filter framestamp 90 frames"), s.text)
        XCTAssertTrue(s.text.contains("  filter invert   90 frames"), "short names keep their column: \(s.text)")
        XCTAssertTrue(s.text.contains("  data a-long-channel-label open"), s.text)
    }

    func testASendOnlyRunWaitsForNoFirstFrame() {
        let sendOnly = summary(
            send: .init(video: .init(captured: 90, filtered: 90, frames: 90, codec: "vp8", bytes: 1000)), receive: .init())
        XCTAssertFalse(sendOnly.text.contains("first frame"), sendOnly.text)
        let receiving = summary(send: .init(), receive: .init(video: .init(frames: 0, width: 0, height: 0, fps: 0)))
        XCTAssertTrue(receiving.text.contains("  first frame    never"), "a receiver that got nothing says so: \(receiving.text)")

        var live = LiveStats(
            elapsed: 3, sendFps: 30, receiveFps: 0, receiveAudioPerSecond: 0, bitrateKbps: 2000, roundTripMs: nil, iceState: "connected")
        live.receivesVideo = false
        XCTAssertTrue(live.line.contains("send  30.0 fps") && !live.line.contains("recv"), live.line)
        live.receivesVideo = true
        live.sendsVideo = false
        XCTAssertTrue(live.line.contains("recv   0.0 fps") && !live.line.contains("send"), live.line)
    }
}
