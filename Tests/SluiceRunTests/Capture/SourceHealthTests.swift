import XCTest
@testable import SluiceRun

/// A source's outages and the reconnect backoff: 1 s doubling to 30 s, jittered by ±20%.
final class SourceHealthTests: XCTestCase {
    func testTheBackoffDoublesToThirtySecondsWithinItsJitter() {
        let steady = (1...8).map { SourceHealth.backoff(attempt: $0, jitter: 0) }
        XCTAssertEqual(steady, [1, 2, 4, 8, 16, 30, 30, 30].map { Duration.seconds($0) })
        XCTAssertEqual(SourceHealth.backoff(attempt: 1, jitter: 1), .milliseconds(1200))
        XCTAssertEqual(SourceHealth.backoff(attempt: 6, jitter: -1), .seconds(24))
        XCTAssertEqual(SourceHealth.backoff(attempt: 3, jitter: 7), .milliseconds(4800), "jitter is clamped to ±20%")
    }

    func testASourceThatNeverDeliveredHasNoOutageToWaitOut() {
        let health = SourceHealth(label: "srt caller srt://enc:9000")
        XCTAssertNil(health.lost("Connection timeout"), "never came up: a mistake to report")
        XCTAssertTrue(health.history.isEmpty)
        XCTAssertNil(health.silence())
    }

    func testAnOutageCountsItsAttemptsAndEndsWithTheFirstBuffer() {
        let health = SourceHealth(label: "rtsp capture rtsp://cam/s")
        let t0 = ContinuousClock.now
        XCTAssertNil(health.delivered(at: t0), "no outage to end")
        XCTAssertEqual(health.lost("Could not read from resource.", at: t0 + .seconds(1)), 1)
        XCTAssertEqual(health.lost("Failed to connect.", at: t0 + .seconds(2)), 2, "the same outage, a second attempt")
        let ended = health.delivered(at: t0 + .seconds(4))
        XCTAssertEqual(ended?.reason, "Could not read from resource.")
        XCTAssertEqual(ended?.attempts, 2)
        XCTAssertEqual(ended.map { ($0.end ?? $0.start) - $0.start }, .seconds(3))
        XCTAssertNil(health.delivered(at: t0 + .seconds(5)), "already back")
        XCTAssertEqual(health.lost("the source ended its stream", at: t0 + .seconds(6)), 1, "a new outage")
        XCTAssertEqual(health.history.count, 2)
        XCTAssertNil(health.history.last?.end)
    }

    func testSilenceCountsFromTheLatestBufferOrReconnect() {
        let health = SourceHealth(label: "rtmp capture rtmp://s/live/x")
        let t0 = ContinuousClock.now
        health.delivered(at: t0)
        XCTAssertEqual(health.silence(at: t0 + .seconds(6)), .seconds(6))
        health.restarted(at: t0 + .seconds(7))
        XCTAssertEqual(health.silence(at: t0 + .seconds(8)), .seconds(1), "a reconnect restarts the count")
    }
}
