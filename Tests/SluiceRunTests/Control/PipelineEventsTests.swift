import Foundation
import XCTest
@testable import SluiceRun

final class PipelineEventsTests: XCTestCase {
    func testKeepsTheMostRecentEventsNumberedFromOne() {
        let events = PipelineEvents(capacity: 3)
        for i in 0..<5 { events.post("stats", ["i": .number(Double(i))]) }
        XCTAssertEqual(events.recent.map(\.seq), [3, 4, 5])
        XCTAssertEqual(events.recent.last?.fields["i"], .number(4))
    }

    func testASubscriberGetsWhatItMissedThenLiveEventsAndTheEnd() async {
        let events = PipelineEvents()
        events.post("state", ["state": .text("playing")])
        events.post("stats")
        let stream = events.subscribe(after: 1)
        events.post("track", ["enabled": .flag(false)])
        events.finish()
        events.post("ignored") // after the end: dropped
        var seen: [String] = []
        for await e in stream { seen.append("\(e.seq):\(e.type)") }
        XCTAssertEqual(seen, ["2:stats", "3:track"])
        XCTAssertEqual(events.subscriberCount, 0)
    }

    func testASlowSubscriberLosesItsOldestEventsNotThePipelinesTime() async {
        let events = PipelineEvents()
        let stream = events.subscribe(buffer: 4)
        let start = ContinuousClock.now
        for _ in 0..<10_000 { events.post("stats") }
        XCTAssertLessThan(ContinuousClock.now - start, .seconds(2), "posting never waits for a reader")
        events.finish()
        var seqs: [Int] = []
        for await e in stream { seqs.append(e.seq) }
        XCTAssertEqual(seqs, [9997, 9998, 9999, 10000])
    }

    func testEventsEncodeAsPlainJSON() throws {
        let events = PipelineEvents()
        events.post("filter", ["filter": .text("motion"), "score": .number(0.5), "first": .flag(true)])
        let data = try JSONEncoder().encode(events.recent[0])
        let o = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let fields = try XCTUnwrap(o["fields"] as? [String: Any])
        XCTAssertEqual(fields["filter"] as? String, "motion")
        XCTAssertEqual(fields["score"] as? Double, 0.5)
        XCTAssertEqual(fields["first"] as? Bool, true)
        XCTAssertEqual(o["type"] as? String, "filter")
        XCTAssertEqual(try JSONDecoder().decode(PipelineEvent.self, from: data), events.recent[0])
    }
}
