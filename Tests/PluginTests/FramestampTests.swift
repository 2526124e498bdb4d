import SluiceFilterKit
import SluiceFramestamp
import XCTest

final class FramestampTests: XCTestCase {
    func testCRC16CCITTFalseCheckValue() {
        XCTAssertEqual(Framestamp.crc16(Array("123456789".utf8)), 0x29B1)
        XCTAssertEqual(Framestamp.crc16([UInt8]()), 0xFFFF)
    }

    func testCodeRoundTripAndEverySingleBitFlipIsRejected() {
        for (number, timestamp) in [(UInt32(0), UInt64(0)), (1, 1), (.max, Framestamp.timestampMask), (123_456, 0xABCD_EF12_3456)] {
            let words = Framestamp.encode(number: number, timestamp: timestamp)
            let decoded = Framestamp.decode(words)
            XCTAssertEqual(decoded?.number, number)
            XCTAssertEqual(decoded?.timestamp, timestamp)
            for bit in 0..<96 {
                var w = [words.0, words.1, words.2]
                w[bit / 32] ^= 1 << UInt32(bit % 32)
                XCTAssertNil(Framestamp.decode((w[0], w[1], w[2])), "bit \(bit) of \(number)")
            }
        }
        // The timestamp is truncated to 48 bits.
        XCTAssertEqual(Framestamp.decode(Framestamp.encode(number: 5, timestamp: 0xFFFF_0000_0000_0042))?.timestamp, 0x42)
    }

    func testLayoutShrinksBlocksToFit() {
        XCTAssertEqual(Framestamp.layout(width: 1280, height: 720, x: 0, y: 0, block: 16)?.block, 16)
        XCTAssertEqual(Framestamp.layout(width: 320, height: 240, x: 0, y: 0, block: 16)?.block, 10)
        XCTAssertEqual(Framestamp.layout(width: 1280, height: 30, x: 0, y: 0, block: 16)?.block, 10)
        XCTAssertEqual(Framestamp.layout(width: 100, height: 100, x: 30, y: 0, block: 16)?.block, 2)
        XCTAssertNil(Framestamp.layout(width: 100, height: 100, x: 40, y: 0, block: 16))
        XCTAssertNil(Framestamp.layout(width: 63, height: 100, x: 0, y: 0, block: 16))
        XCTAssertNil(Framestamp.layout(width: 100, height: 5, x: 0, y: 0, block: 16))
        XCTAssertNil(Framestamp.layout(width: 100, height: 100, x: 16384, y: 16384, block: 16))
    }

    /// Sizes (with offsets and block sizes) the round trip runs on.
    let roundTripCases: [(w: Int, h: Int, block: Int, x: Int, y: Int)] = [
        (1280, 720, 16, 0, 0), (640, 480, 16, 5, 3), (101, 37, 16, 0, 0), (64, 6, 4, 0, 0),
        (333, 97, 8, 7, 11), (97, 60, 64, 1, 1)
    ]

    func testWriteReadRoundTripEveryFormat() throws {
        for format in FramestampWriter.formats {
            for c in roundTripCases {
                for padding in testPaddings {
                    let frame = randomFrame(format, c.w, c.h, padding: padding)
                    let stamp: UInt64 = 0x7777_ABCD_EF12_3456 // truncated to 48 bits by the writer
                    let writer = FramestampWriter(block: c.block, x: c.x, y: c.y) { stamp }
                    let reader = FramestampReader(block: c.block, x: c.x, y: c.y) { (stamp & Framestamp.timestampMask) + 1234 }
                    let log = EventLog()
                    let number: UInt64 = 0x1_0000_0000 + 4_000_000_017 // truncated to 32 bits
                    try writer.run(frame, number: number, context: log.context)
                    let what = "\(format.name) \(c) padding \(padding)"
                    XCTAssertEqual(log.events, [], what)
                    XCTAssertTrue(frame.paddingIsIntact(sentinel), what)
                    let written = allBytes(frame)
                    try reader.run(frame, number: 99, context: log.context)
                    assertSame(allBytes(frame), written, "the reader never writes: \(what)")
                    XCTAssertEqual(
                        log.events,
                        [
                            Event(
                                name: "framestamp",
                                fields: [
                                    "number": 4_000_000_017, "captured_us": Double(0xABCD_EF12_3456), "latency_us": 1234
                                ])
                        ], what)
                    XCTAssertEqual(reader.statistics.read, 1)
                    XCTAssertEqual(writer.lastStamp?.number, 4_000_000_017)
                }
            }
        }
    }

    func testRoundTripWithTheMonotonicClock() throws {
        let frame = randomFrame(.i420, 640, 360)
        let writer = FramestampWriter(), reader = FramestampReader()
        let log = EventLog()
        try writer.run(frame, number: 42, context: log.context)
        try reader.run(frame, context: log.context)
        let event = try XCTUnwrap(log.named("framestamp").first)
        XCTAssertEqual(event.fields["number"], 42)
        XCTAssertEqual(event.fields["captured_us"], writer.lastStamp.map { Double($0.timestamp) })
        let latency = try XCTUnwrap(event.fields["latency_us"])
        XCTAssertGreaterThanOrEqual(latency, 0)
        XCTAssertLessThan(latency, 5_000_000)
    }

    func testWrittenLevels() throws {
        let frame = randomFrame(.nv12, 64, 8, padding: 13)
        try FramestampWriter(block: 2, x: 0, y: 0) { 0 }.run(frame, number: 0x8000_0001)
        let luma = planes(frame)[0]
        // Word 0 = 0x80000001: first and last squares 1, the rest 0.
        XCTAssertEqual(luma[0][0], 235); XCTAssertEqual(luma[1][1], 235)
        XCTAssertEqual(luma[0][2], 16); XCTAssertEqual(luma[1][61], 16)
        XCTAssertEqual(luma[0][62], 235); XCTAssertEqual(luma[1][63], 235)
        // Chroma under the pattern (rows 0-5 → chroma rows 0-2) is neutral; below it untouched.
        let before = planes(randomFrame(.nv12, 64, 8, padding: 13))
        let chroma = planes(frame)[1]
        XCTAssertEqual(chroma[0...2].flatMap { $0 }, Array(repeating: 128, count: 3 * 64))
        XCTAssertEqual(chroma[3], before[1][3])
        XCTAssertEqual(luma[6], before[0][6])
        XCTAssertTrue(frame.paddingIsIntact(sentinel))

        let rgba = randomFrame(.rgba, 64, 6)
        try FramestampWriter(block: 4) { 0 }.run(rgba, number: 0x8000_0000)
        XCTAssertEqual(Array(planes(rgba)[0][0][0..<8]), [255, 255, 255, 255, 255, 255, 255, 255])
        XCTAssertEqual(Array(planes(rgba)[0][0][8..<16]), [0, 0, 0, 255, 0, 0, 0, 255])
    }

    /// ±20 on every luma sample (every colour channel for packed formats), then a 3×3 box
    /// blur, over the top `rows` rows (where the pattern is).
    func degrade(_ frame: OwnedFrame, rows: Int) {
        var rng = TestRandom(99)
        let bps = frame.format.isYUV ? 1 : 4
        let channels = frame.format.isYUV ? 1 : 3
        let w = frame.width, h = min(rows, frame.height)
        var noisy = planes(frame)[0]
        for y in 0..<h {
            for x in 0..<w {
                for c in 0..<channels {
                    let v = Int(noisy[y][x * bps + c]) + (rng.next() & 1 == 0 ? 20 : -20)
                    noisy[y][x * bps + c] = UInt8(min(max(v, 0), 255))
                }
            }
        }
        for y in 0..<h {
            for x in 0..<w {
                for c in 0..<channels {
                    var sum = 0, n = 0
                    for yy in max(0, y - 1)...min(h - 1, y + 1) {
                        for xx in max(0, x - 1)...min(w - 1, x + 1) { sum += Int(noisy[yy][xx * bps + c]); n += 1 }
                    }
                    frame[0, x * bps + c, y] = UInt8((sum + n / 2) / n)
                }
            }
        }
    }

    /// A sender that halves (or quarters) its resolution under congestion scales the stamp
    /// with the picture: the reader still reads it, at the writer's settings.
    func testReadsAPictureScaledDownAfterTheWriter() throws {
        for factor in [2, 4] {
            let full = randomFrame(.i420, 1280, 720)
            try FramestampWriter(block: 16) { 0xBEEF_0000_0002 }.run(full, number: 4242)
            let small = randomFrame(.i420, 1280 / factor, 720 / factor)
            // Box filter, as videoscale's bilinear downscale is near enough for squares.
            fill(small, plane: 0) { x, y in
                var sum = 0
                for dy in 0..<factor { for dx in 0..<factor { sum += Int(full[0, x * factor + dx, y * factor + dy]) } }
                return UInt8(sum / (factor * factor))
            }
            let log = EventLog()
            try FramestampReader(block: 16) { 0xBEEF_0000_0002 }.run(small, context: log.context)
            XCTAssertEqual(log.named("framestamp").first?.fields["number"], 4242, "1/\(factor) size: \(log.events)")
        }
    }

    func testReadSurvivesNoiseAndBlur() throws {
        for format in FramestampWriter.formats {
            for (w, h, block) in [(640, 360, 16), (1280, 720, 16), (200, 50, 6), (160, 40, 4)] {
                let frame = randomFrame(format, w, h)
                try FramestampWriter(block: block) { 0xBEEF_0000_0001 }.run(frame, number: 31337)
                degrade(frame, rows: 4 * block)
                let log = EventLog()
                try FramestampReader(block: block) { 0xBEEF_0000_0001 }.run(frame, context: log.context)
                XCTAssertEqual(
                    log.events,
                    [
                        Event(
                            name: "framestamp",
                            fields: [
                                "number": 31337, "captured_us": Double(0xBEEF_0000_0001), "latency_us": 0
                            ])
                    ], "\(format.name) \(w)x\(h) block \(block)")
            }
        }
    }

    func testFlippedSquareIsUnreadable() throws {
        for format in FramestampWriter.formats {
            for square in [0, 31, 40, 95] {
                let frame = randomFrame(format, 320, 100)
                try FramestampWriter(block: 8) { 777 }.run(frame, number: 12)
                // Invert one square (row square / 32, column square % 32).
                let bps = format.isYUV ? 1 : 4
                for y in (square / 32 * 8)..<(square / 32 * 8 + 8) {
                    for x in (square % 32 * 8)..<(square % 32 * 8 + 8) {
                        for c in 0..<(format.isYUV ? 1 : 3) {
                            let v = frame[0, x * bps + c, y]
                            frame[0, x * bps + c, y] = format.isYUV ? (v == 235 ? 16 : 235) : 255 - v
                        }
                    }
                }
                let log = EventLog()
                let reader = FramestampReader(block: 8)
                try reader.run(frame, context: log.context)
                XCTAssertEqual(log.events, [Event(name: "framestamp-unreadable", fields: [:])], "\(format.name) square \(square)")
                XCTAssertEqual(reader.statistics.unreadable, 1)
                XCTAssertEqual(reader.statistics.read, 0)
            }
        }
    }

    func testTooSmallIsSkippedAndUntouched() throws {
        for format in FramestampWriter.formats {
            for (w, h) in [(33, 17), (1, 1), (7, 3), (64, 5), (100, 100)] {
                let frame = randomFrame(format, w, h)
                let before = allBytes(frame)
                let log = EventLog()
                try FramestampWriter(x: w == 100 ? 50 : 0).run(frame, context: log.context)
                XCTAssertEqual(log.events, [Event(name: "framestamp-skipped", fields: [:])], "\(format.name) \(w)x\(h)")
                assertSame(allBytes(frame), before, "\(format.name) \(w)x\(h)")
                try FramestampReader(x: w == 100 ? 50 : 0).run(frame, context: log.context)
                XCTAssertEqual(log.events.last?.name, "framestamp-unreadable")
            }
        }
    }

    func testNoiseWithoutAStampIsUnreadable() throws {
        let reader = FramestampReader()
        let log = EventLog()
        for seed in 0..<20 as Range<UInt64> {
            try reader.run(randomFrame(.i420, 640, 64, seed: seed), context: log.context)
        }
        XCTAssertEqual(log.named("framestamp").count, 0)
        XCTAssertEqual(reader.statistics.unreadable, 20)
    }

    func testStatisticsCountGapsDuplicatesAndReordering() throws {
        let writer = FramestampWriter(block: 4) { 1000 }
        let reader = FramestampReader(block: 4) { 1500 }
        let log = EventLog()
        for n: UInt64 in [0, 1, 3, 3, 2, 7, 0x1_0000_0000 + 8] {
            let frame = randomFrame(.rgba, 200, 20)
            try writer.run(frame, number: n)
            try reader.run(frame, context: log.context)
        }
        var expected = FramestampReader.Statistics()
        expected.read = 7; expected.lastNumber = 8; expected.missing = 1 + 3; expected.duplicates = 1
        expected.outOfOrder = 1; expected.lastLatencyMicroseconds = 500
        XCTAssertEqual(reader.statistics, expected)
        XCTAssertEqual(log.named("framestamp").map { $0.fields["number"] }, [0, 1, 3, 3, 2, 7, 8])
        XCTAssertEqual(log.named("framestamp").map { $0.fields["latency_us"] }, Array(repeating: 500, count: 7))
    }

    func testLatencyAcrossClockWrapAndNegative() throws {
        let frame = randomFrame(.i420, 640, 64)
        try FramestampWriter { Framestamp.timestampMask - 9 }.run(frame) // 10 µs before the wrap
        let log = EventLog()
        try FramestampReader { 5 }.run(frame, context: log.context)
        XCTAssertEqual(log.events.first?.fields["latency_us"], 15)
        try FramestampReader { Framestamp.timestampMask - 19 }.run(frame, context: log.context)
        XCTAssertEqual(log.events.last?.fields["latency_us"], -10)
    }

    func testConfigurationMustMatch() throws {
        let params = FramestampWriter.parameters
        XCTAssertEqual(params, FramestampReader.parameters)
        let config = try FilterConfiguration(["block": .integer(8), "x": .integer(3), "y": .integer(4)], parameters: params)
        let writer = try FramestampWriter(configuration: config), reader = try FramestampReader(configuration: config)
        XCTAssertEqual([writer.block, writer.x, writer.y], [8, 3, 4])
        XCTAssertEqual([reader.block, reader.x, reader.y], [8, 3, 4])
        XCTAssertThrowsError(try FilterConfiguration(["block": .integer(3)], parameters: params))
        XCTAssertFalse(FramestampReader.modifiesPixels)
        XCTAssertTrue(FramestampWriter.modifiesPixels)
    }
}
