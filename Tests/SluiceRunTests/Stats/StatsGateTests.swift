import Dispatch
import Synchronization
import XCTest
@testable import SluiceRun

/// `StatsGate`: a webrtcbin's teardown never runs while one of its statistics reads is inside,
/// runs exactly once, and no read starts after it was asked for.
final class StatsGateTests: XCTestCase {
    private final class Count: Sendable {
        let n = Atomic<Int>(0)
        func add() { n.add(1, ordering: .sequentiallyConsistent) }
        var value: Int { n.load(ordering: .sequentiallyConsistent) }
    }

    func testWithNoReadInsideTheTeardownRunsAtOnceAndOnlyOnce() {
        let gate = StatsGate(), runs = Count()
        gate.close { runs.add() }
        XCTAssertEqual(runs.value, 1)
        gate.close { runs.add() }
        XCTAssertEqual(runs.value, 1, "a second close does not tear down again")
        XCTAssertFalse(gate.enter(), "no read starts on a closed gate")
    }

    func testTheTeardownWaitsForTheLastReadInside() {
        let gate = StatsGate(), runs = Count()
        XCTAssertTrue(gate.enter())
        XCTAssertTrue(gate.enter())
        gate.close { runs.add() }
        XCTAssertEqual(runs.value, 0, "two reads are inside")
        XCTAssertFalse(gate.enter(), "no new read starts once the teardown is asked for")
        gate.leave()
        XCTAssertEqual(runs.value, 0, "one read is still inside")
        gate.leave()
        XCTAssertEqual(runs.value, 1, "the last read out runs it")
    }

    /// Readers and a closer racing on 8 threads, 2,000 times: the teardown runs exactly once,
    /// and never while a reader that entered has not left.
    func testRacingReadersNeverOverlapTheTeardown() {
        for _ in 0..<2_000 {
            let gate = StatsGate(), runs = Count(), overlaps = Count()
            let active = Count()
            DispatchQueue.concurrentPerform(iterations: 8) { i in
                if i == 3 {
                    gate.close {
                        if active.value != 0 { overlaps.add() }
                        runs.add()
                    }
                    return
                }
                for _ in 0..<3 where gate.enter() {
                    active.add()
                    active.n.subtract(1, ordering: .sequentiallyConsistent)
                    gate.leave()
                }
            }
            XCTAssertEqual(runs.value, 1)
            XCTAssertEqual(overlaps.value, 0)
        }
    }
}
