import SluiceFilterKit
import SluiceMotion
import XCTest

final class MotionTests: XCTestCase {
    /// A frame whose (computed) luma is `luma(x, y)` everywhere; chroma / alpha random.
    func frame(_ format: PixelFormat, _ w: Int, _ h: Int, padding: Int = 13, luma: (Int, Int) -> UInt8) -> OwnedFrame {
        let f = randomFrame(format, w, h, padding: padding)
        switch format {
        case .i420, .nv12:
            fill(f, plane: 0) { x, y in luma(x, y) }
        case .rgba, .bgrx:
            // Grey pixels: (77 + 150 + 29)·v >> 8 = v.
            fill(f, plane: 0) { x, y in x % 4 == 3 ? 99 : luma(x / 4, y) }
        }
        return f
    }

    func testNoEventOnIdenticalFrames() throws {
        for format in MotionDetector.formats {
            for (w, h) in testSizes {
                let log = EventLog()
                let filter = MotionDetector(threshold: 0.0001, step: 1)
                let f = randomFrame(format, w, h)
                for n in 0..<3 { try filter.run(f, number: UInt64(n), context: log.context) }
                XCTAssertEqual(log.events, [], "\(format.name) \(w)x\(h)")
                XCTAssertEqual(filter.lastScore, 0)
            }
        }
    }

    func testKnownChangeGivesExpectedScore() throws {
        for format in MotionDetector.formats {
            for step in [1, 4] {
                let log = EventLog()
                let filter = MotionDetector(threshold: 0.02, step: step)
                let a = frame(format, 33, 17) { _, _ in 100 }
                let b = frame(format, 33, 17) { _, _ in 151 }
                try filter.run(a, number: 0, context: log.context)
                XCTAssertEqual(log.events, [], "first frame: nothing to compare with")
                try filter.run(b, number: 1, context: log.context)
                XCTAssertEqual(
                    log.events, [Event(name: "motion", fields: ["score": 51.0 / 255, "frame": 1])],
                    "\(format.name) step \(step)")
                try filter.run(b, number: 2, context: log.context)
                XCTAssertEqual(log.events.count, 1, "no change, no event")
                try filter.run(a, number: 3, context: log.context)
                XCTAssertEqual(log.named("motion").last?.fields["frame"], 3)
            }
        }
    }

    func testPartialChangeAndThreshold() throws {
        // 10×10, step 1: 10 pixels from 0 to 255 → score 10·255 / 100 / 255 = 0.1.
        let a = frame(.i420, 10, 10) { _, _ in 0 }
        let b = frame(.i420, 10, 10) { x, y in y == 4 ? 255 : 0 }
        let log = EventLog()
        let below = MotionDetector(threshold: 0.11, step: 1)
        try below.run(a, context: log.context)
        try below.run(b, number: 1, context: log.context)
        XCTAssertEqual(log.events, [])
        XCTAssertEqual(below.lastScore ?? -1, 0.1, accuracy: 1e-12)
        let at = MotionDetector(threshold: 0.1, step: 1)
        try at.run(a, context: log.context)
        try at.run(b, number: 1, context: log.context)
        XCTAssertEqual(log.events.count, 1)
        XCTAssertEqual(log.events.first?.fields["score"] ?? -1, 0.1, accuracy: 1e-12)

        // Step 2 samples rows 0, 2, 4, …: row 4 is sampled → 5 of 25 samples changed → 0.2.
        let stepped = MotionDetector(threshold: 0, step: 2)
        try stepped.run(a)
        try stepped.run(b)
        XCTAssertEqual(stepped.lastScore ?? -1, 0.2, accuracy: 1e-12)
        // Step 3 samples rows 0, 3, 6, 9: row 4 is not → 0.
        let skipping = MotionDetector(threshold: 0, step: 3)
        try skipping.run(a)
        try skipping.run(b)
        XCTAssertEqual(skipping.lastScore, 0)
    }

    func testNeverWrites() throws {
        for format in MotionDetector.formats {
            for (w, h) in testSizes {
                let filter = MotionDetector(threshold: 0, step: 1)
                for n in 0..<3 {
                    let f = randomFrame(format, w, h, seed: UInt64(n))
                    let before = allBytes(f)
                    try filter.run(f, number: UInt64(n))
                    assertSame(allBytes(f), before, "\(format.name) \(w)x\(h)")
                }
            }
        }
        XCTAssertFalse(MotionDetector.modifiesPixels)
    }

    func testSizeOrFormatChangeResets() throws {
        let log = EventLog()
        let filter = MotionDetector(threshold: 0, step: 2)
        try filter.run(frame(.i420, 16, 8) { _, _ in 0 }, number: 0, context: log.context)
        try filter.run(frame(.i420, 17, 8) { _, _ in 255 }, number: 1, context: log.context)
        try filter.run(frame(.nv12, 17, 8) { _, _ in 0 }, number: 2, context: log.context)
        XCTAssertEqual(log.events, [], "a new size or format starts over")
        try filter.run(frame(.nv12, 17, 8) { _, _ in 255 }, number: 3, context: log.context)
        XCTAssertEqual(log.events, [Event(name: "motion", fields: ["score": 1, "frame": 3])])
    }

    func testConfiguration() throws {
        let defaults = try MotionDetector(configuration: FilterConfiguration([:], parameters: MotionDetector.parameters))
        XCTAssertEqual(defaults.threshold, 0.02)
        XCTAssertEqual(defaults.step, 4)
        let given = try MotionDetector(
            configuration: FilterConfiguration(
                ["threshold": .integer(1), "step": .integer(64)],
                parameters: MotionDetector.parameters))
        XCTAssertEqual(given.threshold, 1)
        XCTAssertEqual(given.step, 64)
    }
}
