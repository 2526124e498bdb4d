import GStreamer
import Synchronization
import SluiceTestSupport
import XCTest
@testable import SluiceRun

/// Data channels declared in a pipeline file, over a loopback run: lines fed to the channel
/// that takes standard input arrive at the other end, in order, and are counted.
final class DataChannelTests: XCTestCase {
    func testDeclaredChannelCarriesLinesInOrder() async throws {
        try requireLoopbackOnlyNetwork()
        let spec = try PipelineLoader(environment: [:]).load(
            yaml: """
                name: chat
                transport:
                  ice: { addresses: [127.0.0.1] }
                  data_channels:
                    - { label: chat, stdin: true }
                    - { label: quiet, print: false, ordered: false, max_retransmits: 0 }
                send:
                  video:
                    capture: { kind: test, width: 160, height: 120, fps: 15 }
                """, file: "chat.yaml")
        let lines = ["first", "second line", "ünïcödé ✓", String(repeating: "x", count: 4000)]
        let (input, feed) = AsyncStream<String>.makeStream()
        for l in lines { feed.yield(l) }
        feed.finish()
        let got = Mutex<[String]>([])
        let stop = StopFlag()
        var options = RunOptions(duration: 15)
        options.dataInput = input
        options.onDataMessage = { label, text in
            let n = got.withLock {
                $0.append("\(label):\(text)"); return $0.count
            }
            if n == lines.count { stop.set() }
        }
        let summary = try await PipelineRun(spec: spec).run(options: options, stop: stop)
        XCTAssertEqual(got.withLock { $0 }, lines.map { "chat:\($0)" }, "every line, in order, on its channel")
        XCTAssertLessThan(summary.duration_s, 14, "the run stopped when the last line arrived")
        let chat = try XCTUnwrap(summary.data_channels.first { $0.label == "chat" })
        XCTAssertTrue(chat.opened)
        XCTAssertEqual(chat.sent, lines.count)
        XCTAssertEqual(chat.received, lines.count, "the receiving end counts what arrived")
        let quiet = try XCTUnwrap(summary.data_channels.first { $0.label == "quiet" })
        XCTAssertTrue(quiet.opened, "the second channel opens too")
        XCTAssertEqual(quiet.received, 0)
    }
}
