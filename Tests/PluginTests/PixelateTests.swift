import SluiceFilterKit
import SluicePixelate
import XCTest

final class PixelateTests: XCTestCase {
    func testARegionOutsideThePictureIsWarnedAboutAndTheDefaultIsNot() throws {
        func warnings(_ region: [Int]?) throws -> [String] {
            let given: [String: FilterValue] = region.map { ["region": .integers($0)] } ?? [:]
            return Pixelate.warnings(try FilterConfiguration(given, parameters: Pixelate.parameters), width: 640, height: 360)
        }
        XCTAssertEqual(try warnings(nil), [])
        XCTAssertEqual(try warnings([0, 0, 640, 360]), [])
        XCTAssertEqual(try warnings([600, 0, 100, 10]), ["region [600, 0, 100, 10] reaches outside the 640×360 picture: only [600, 0, 40, 10] is pixelated"])
        XCTAssertEqual(
            try warnings([0, 360, 10, 10]), ["region [0, 360, 10, 10] reaches outside the 640×360 picture: nothing is pixelated; move it inside the picture"])
    }

    /// A straightforward model of the filter: for every sample of the clipped region, the rounded
    /// mean of the original samples of its block (same channel).
    func reference(
        _ original: [[[UInt8]]], format: PixelFormat, width: Int, height: Int,
        region: (Int, Int, Int, Int), block: Int
    ) -> [[[UInt8]]] {
        var out = original
        // No intersection with the frame: nothing changes, chroma included.
        guard region.0 < width, region.1 < height, region.2 > 0, region.3 > 0 else { return out }
        for p in 0..<format.planeCount {
            let chroma = format.isYUV && p > 0
            let bps = format == .nv12 && p == 1 ? 2 : (format.isYUV ? 1 : 4)
            let channels = format == .bgrx ? 3 : bps
            let size = format.planeSize(p, width: width, height: height)
            let (rx0, ry0) = chroma ? (region.0 / 2, region.1 / 2) : (region.0, region.1)
            let (rx1, ry1) =
                chroma
                ? ((region.0 + region.2 + 1) / 2, (region.1 + region.3 + 1) / 2)
                : (region.0 + region.2, region.1 + region.3)
            let b = chroma ? max(1, block / 2) : block
            let x1 = min(rx1, size.width), y1 = min(ry1, size.height)
            guard rx0 < x1, ry0 < y1 else { continue }
            for sy in ry0..<y1 {
                for sx in rx0..<x1 {
                    let bx = rx0 + (sx - rx0) / b * b, by = ry0 + (sy - ry0) / b * b
                    let ex = min(bx + b, x1), ey = min(by + b, y1)
                    for c in 0..<channels {
                        var sum = 0
                        for yy in by..<ey { for xx in bx..<ex { sum += Int(original[p][yy][xx * bps + c]) } }
                        let n = (ex - bx) * (ey - by)
                        out[p][sy][sx * bps + c] = UInt8((sum + n / 2) / n)
                    }
                }
            }
        }
        return out
    }

    func testMatchesModelForEveryFormatSizeRegionAndBlock() throws {
        let regions: [(Int, Int, Int, Int)] = [
            (0, 0, 16384, 16384), // whole frame
            (3, 1, 20, 9), // inside, odd origin
            (20, 10, 100, 100), // clipped at the right and bottom edges
            (1, 0, 5, 16384),
            (0, 0, 1, 1)
        ]
        for format in Pixelate.formats {
            for (w, h) in testSizes {
                for padding in testPaddings {
                    for region in regions {
                        for block in [2, 3, 5, 16] {
                            let frame = randomFrame(format, w, h, padding: padding, seed: UInt64(block))
                            let before = planes(frame)
                            try Pixelate(x: region.0, y: region.1, width: region.2, height: region.3, block: block).run(frame)
                            let what = "\(format.name) \(w)x\(h) padding \(padding) region \(region) block \(block)"
                            XCTAssertTrue(frame.paddingIsIntact(sentinel), what)
                            assertSame(
                                planes(frame),
                                reference(
                                    before, format: format, width: w, height: h,
                                    region: region, block: block), what)
                        }
                    }
                }
            }
        }
    }

    func testKnownBlockMeans() throws {
        // 4×4 I420 luma x + 10·y, 2×2 blocks: (0+1+10+11)/4 = 5.5 → 6, etc.
        let frame = OwnedFrame(format: .i420, width: 4, height: 4, rowPadding: 3, fill: sentinel)
        fill(frame, plane: 0) { x, y in UInt8(x + 10 * y) }
        fill(frame, plane: 1) { x, y in [[0, 100], [50, 51]][y][x] }
        fill(frame, plane: 2) { _, _ in 200 }
        try Pixelate(block: 2).run(frame)
        XCTAssertEqual(planes(frame)[0], [[6, 6, 8, 8], [6, 6, 8, 8], [26, 26, 28, 28], [26, 26, 28, 28]])
        // Chroma blocks are 1×1: unchanged.
        XCTAssertEqual(planes(frame)[1], [[0, 100], [50, 51]])

        // Block 4 → chroma block 2: (0 + 100 + 50 + 51)/4 = 50.25 → 50.
        try Pixelate(block: 4).run(frame)
        XCTAssertEqual(planes(frame)[0], Array(repeating: [17, 17, 17, 17], count: 4)) // (6·4+8·4+26·4+28·4)/16 = 17
        XCTAssertEqual(planes(frame)[1], [[50, 50], [50, 50]])
        XCTAssertEqual(planes(frame)[2], [[200, 200], [200, 200]])
        XCTAssertTrue(frame.paddingIsIntact(sentinel))
    }

    func testPackedChannelsAndAlpha() throws {
        // 2×1 RGBA, one block: per channel means, alpha too.
        let rgba = OwnedFrame(format: .rgba, width: 2, height: 1)
        fill(rgba, plane: 0) { x, _ in [10, 20, 30, 0, 11, 40, 31, 255][x] }
        try Pixelate(block: 2).run(rgba)
        XCTAssertEqual(planes(rgba)[0][0], [11, 30, 31, 128, 11, 30, 31, 128]) // 10.5 → 11, 127.5 → 128
        // BGRx: the x byte is untouched.
        let bgrx = OwnedFrame(format: .bgrx, width: 2, height: 1)
        fill(bgrx, plane: 0) { x, _ in [10, 20, 30, 1, 11, 40, 31, 2][x] }
        try Pixelate(block: 2).run(bgrx)
        XCTAssertEqual(planes(bgrx)[0][0], [11, 30, 31, 1, 11, 30, 31, 2])
    }

    func testRegionClippedAtEdges() throws {
        // Region starting inside and running past the bottom-right corner of a 7×3 frame.
        let frame = OwnedFrame(format: .i420, width: 7, height: 3, rowPadding: 13, fill: sentinel)
        fill(frame, plane: 0) { x, y in UInt8(x * 30 + y) }
        fill(frame, plane: 1) { _, _ in 1 }
        fill(frame, plane: 2) { _, _ in 2 }
        try Pixelate(x: 4, y: 1, width: 100, height: 100, block: 4).run(frame)
        let luma = planes(frame)[0]
        XCTAssertEqual(luma[0], [0, 30, 60, 90, 120, 150, 180]) // row 0 outside the region
        // Rows 1-2, columns 4-6: one block of 6 samples: (120+150+180)·2 + 1·3 + 2·3 = 909 → 151.5 → 152.
        XCTAssertEqual(luma[1], [1, 31, 61, 91, 152, 152, 152])
        XCTAssertEqual(luma[2], [2, 32, 62, 92, 152, 152, 152])
        XCTAssertTrue(frame.paddingIsIntact(sentinel))
    }

    func testEmptyRegionIsNoOp() throws {
        for format in Pixelate.formats {
            for region in [(33, 0, 10, 10), (0, 17, 10, 10), (5, 5, 0, 10), (5, 5, 10, 0), (16384, 16384, 16384, 16384)] {
                let frame = randomFrame(format, 33, 17)
                let before = allBytes(frame)
                try Pixelate(x: region.0, y: region.1, width: region.2, height: region.3, block: 4).run(frame)
                assertSame(allBytes(frame), before, "\(format.name) region \(region)")
            }
        }
    }

    func testConfiguration() throws {
        let config = try FilterConfiguration(
            ["region": .integers([1, 2, 3, 4]), "block": .integer(8)],
            parameters: Pixelate.parameters)
        let filter = try Pixelate(configuration: config)
        XCTAssertEqual([filter.x, filter.y, filter.w, filter.h, filter.block], [1, 2, 3, 4, 8])
        let defaults = try Pixelate(configuration: FilterConfiguration([:], parameters: Pixelate.parameters))
        XCTAssertEqual([defaults.x, defaults.y, defaults.w, defaults.h, defaults.block], [0, 0, 16384, 16384, 16])
        XCTAssertThrowsError(try FilterConfiguration(["block": .integer(1)], parameters: Pixelate.parameters))
        XCTAssertThrowsError(try FilterConfiguration(["region": .integers([1, 2, 3])], parameters: Pixelate.parameters))
    }
}
