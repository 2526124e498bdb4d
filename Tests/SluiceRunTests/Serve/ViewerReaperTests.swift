import XCTest
@testable import SluiceRun

/// When a served viewer counts as dead, and why (the reasons `/streams.json` counts).
final class ViewerReaperTests: XCTestCase {
    let limits = ViewerLimits()

    func states(_ ice: String) -> PeerStates { var s = PeerStates(); s.iceConnection = ice; return s }

    func testANewViewerHasTimeToConnect() {
        let h = ViewerHealth()
        XCTAssertNil(ViewerReaper.verdict(health: h, states: states("checking"), now: h.created + .seconds(5), limits: limits))
        XCTAssertEqual(
            ViewerReaper.verdict(health: h, states: states("checking"), now: h.created + .seconds(9), limits: limits),
            "never-connected")
    }

    func testAConnectedViewerMustKeepReporting() {
        let h = ViewerHealth()
        let t0 = h.created + .seconds(1)
        XCTAssertNil(ViewerReaper.verdict(health: h, states: states("connected"), now: t0, limits: limits))
        // No RTCP at all since connecting: silent after the timeout, counted from connection.
        XCTAssertNil(ViewerReaper.verdict(health: h, states: states("connected"), now: t0 + .seconds(5), limits: limits))
        XCTAssertEqual(ViewerReaper.verdict(health: h, states: states("connected"), now: t0 + .seconds(7), limits: limits), "silent")
        // Reports keep it alive.
        h.heard()
        XCTAssertNil(ViewerReaper.verdict(health: h, states: states("completed"), now: .now + .seconds(3), limits: limits))
        XCTAssertEqual(ViewerReaper.verdict(health: h, states: states("completed"), now: .now + .seconds(7), limits: limits), "silent")
    }

    func testFailuresAreImmediate() {
        let h = ViewerHealth()
        XCTAssertEqual(ViewerReaper.verdict(health: h, states: states("failed"), now: h.created, limits: limits), "ice-failed")
        h.fail("its branch stopped (error)")
        XCTAssertEqual(ViewerReaper.verdict(health: h, states: states("connected"), now: h.created, limits: limits), "failed")
        XCTAssertEqual(h.failed, "its branch stopped (error)")
    }

    /// The worst case stays within 10 s: timeout plus one check interval.
    func testDetectionIsWithinTenSeconds() {
        XCTAssertLessThanOrEqual(max(limits.connectTimeout, limits.silenceTimeout) + limits.checkInterval, 10)
    }
}
