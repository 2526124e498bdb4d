@testable import SluiceMeasure
@testable import SluiceRun
import XCTest

final class StartUpStepTests: XCTestCase {
    func testStepsKeepTheirFirstTimeAndComeInOrder() {
        let start = ContinuousClock.now
        let counters = RunCounters(start: start)
        counters.mark(StartUpStep.connected, at: start + .milliseconds(70))
        counters.mark(StartUpStep.playing, at: start + .milliseconds(20))
        counters.mark(StartUpStep.connected, at: start + .milliseconds(90)) // a second time: ignored
        counters.mark(StartUpStep.dtlsKey, at: start - .milliseconds(5)) // before the run: not listed
        XCTAssertEqual(counters.startUpSteps.map(\.step), [StartUpStep.playing, StartUpStep.connected])
        XCTAssertEqual(counters.startUpSteps.map(\.at_ms), [20, 70])
        counters.markFirstFrame()
        let first = counters.startUpSteps.first { $0.step == StartUpStep.firstFrame }
        XCTAssertNotNil(first, "the first frame is a step too")
        XCTAssertEqual(first?.at_ms ?? -1, Double(counters.firstFrameNanos.load(ordering: .relaxed)) / 1e6, accuracy: 0.01)
    }

    func testTheMeasureReportListsTheSteps() {
        let steps = [StartUpStep(step: StartUpStep.playing, at_ms: 25), StartUpStep(step: StartUpStep.firstFrame, at_ms: 140)]
        let s = MeasureReport.StartUp(samples: [], timeToFirstFrameMs: 140, steps: steps)
        XCTAssertEqual(s.steps, steps)
    }

    /// The summary says how much of the first frame's wait was GStreamer's DTLS key.
    func testTheDTLSKeysShareOfTheFirstFrameIsNamed() {
        let waited = [
            StartUpStep(step: StartUpStep.playing, at_ms: 30), StartUpStep(step: StartUpStep.dtlsKey, at_ms: 410),
            StartUpStep(step: StartUpStep.firstFrame, at_ms: 480)
        ]
        XCTAssertEqual(waited.dtlsKeyWaitMs, 380)
        XCTAssertTrue(waited.dtlsKeyWaitNote.contains("380 ms waiting for GStreamer's one-time DTLS key"), waited.dtlsKeyWaitNote)
        let ready = [StartUpStep(step: StartUpStep.dtlsKey, at_ms: 10), StartUpStep(step: StartUpStep.playing, at_ms: 30)]
        XCTAssertNil(ready.dtlsKeyWaitMs, "a key made before PLAYING kept nothing waiting")
        XCTAssertEqual(ready.dtlsKeyWaitNote, "")
        XCTAssertNil([StartUpStep(step: StartUpStep.playing, at_ms: 30)].dtlsKeyWaitMs, "made in an earlier run: not listed")
    }
}
