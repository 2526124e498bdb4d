@testable import SluiceRun
import XCTest

final class RetransmissionLatencyTests: XCTestCase {
    func testLatencyCoversTheRepairAndOneMoreTry() {
        // 45 ms round trip: 3 × 45 + 30 = 165 → 170 ms.
        XCTAssertEqual(RetransmissionLatency.needed(rtxRoundTripMs: 45, currentMs: 50), 170)
        // Already long enough: unchanged, never lowered.
        XCTAssertEqual(RetransmissionLatency.needed(rtxRoundTripMs: 10, currentMs: 200), 200)
        XCTAssertEqual(RetransmissionLatency.needed(rtxRoundTripMs: 1, currentMs: 50), 50)
    }

    func testWithoutARoundTripItWaitsNoLongerAndNeverPassesTheCeiling() {
        // No retransmission has come back: no reason to wait longer.
        XCTAssertEqual(RetransmissionLatency.needed(rtxRoundTripMs: nil, currentMs: 50), 50)
        XCTAssertEqual(RetransmissionLatency.needed(rtxRoundTripMs: 0, currentMs: 50), 50)
        XCTAssertEqual(RetransmissionLatency.needed(rtxRoundTripMs: .infinity, currentMs: 50), 50)
        XCTAssertEqual(RetransmissionLatency.needed(rtxRoundTripMs: .nan, currentMs: 50), 50)
        // A hostile or broken round trip cannot push it past the ceiling.
        XCTAssertEqual(RetransmissionLatency.needed(rtxRoundTripMs: 1e12, currentMs: 50), RetransmissionLatency.ceilingMs)
        XCTAssertEqual(RetransmissionLatency.needed(rtxRoundTripMs: 200, currentMs: 50), RetransmissionLatency.ceilingMs)
        // A file that asks for more than the ceiling keeps its own.
        XCTAssertEqual(RetransmissionLatency.needed(rtxRoundTripMs: 45, currentMs: 1000), 1000)
    }
}
