import SluiceBuiltInPlugins
import SluiceFilterKit
import SluiceGrayscale
import SluiceInvert
import XCTest

final class GrayscaleTests: XCTestCase {
    func testEveryFormatSizeAndStride() throws {
        let filter = Grayscale()
        for format in Grayscale.formats {
            for (w, h) in testSizes {
                for padding in testPaddings {
                    let frame = randomFrame(format, w, h, padding: padding)
                    let before = planes(frame)
                    XCTAssertEqual(try filter.run(frame), .keep)
                    let after = planes(frame)
                    let what = "\(format.name) \(w)x\(h) padding \(padding)"
                    XCTAssertTrue(frame.paddingIsIntact(sentinel), what)
                    switch format {
                    case .i420, .nv12:
                        XCTAssertEqual(after[0], before[0], "luma unchanged: \(what)")
                        for p in 1..<format.planeCount {
                            XCTAssertEqual(after[p], before[p].map { $0.map { _ in 128 } }, "chroma 128: \(what)")
                            XCTAssertEqual(after[p].count, (h + 1) / 2)
                        }
                    case .rgba, .bgrx:
                        let (r, b) = format == .rgba ? (0, 2) : (2, 0)
                        for y in 0..<h {
                            for x in 0..<w {
                                let px = Array(before[0][y][(4 * x)..<(4 * x + 4)])
                                let weighted: Int = 77 * Int(px[r]) + 150 * Int(px[1]) + 29 * Int(px[b])
                                let l = UInt8((weighted + 128) >> 8)
                                XCTAssertEqual(Array(after[0][y][(4 * x)..<(4 * x + 4)]), [l, l, l, px[3]], "\(what) at \(x),\(y)")
                            }
                        }
                    }
                }
            }
        }
    }

    func testKnownValues() throws {
        // Pure colours and extremes, RGBA and BGRx.
        let cases: [((UInt8, UInt8, UInt8), UInt8)] = [
            ((255, 255, 255), 255), ((0, 0, 0), 0), ((255, 0, 0), 77), ((0, 255, 0), 149), ((0, 0, 255), 29),
            ((10, 20, 30), 18)
        ]
        for ((r, g, b), expected) in cases {
            let rgba = OwnedFrame(format: .rgba, width: 1, height: 1)
            rgba[0, 0, 0] = r; rgba[0, 1, 0] = g; rgba[0, 2, 0] = b; rgba[0, 3, 0] = 77
            try Grayscale().run(rgba)
            XCTAssertEqual(planes(rgba)[0][0], [expected, expected, expected, 77])
            let bgrx = OwnedFrame(format: .bgrx, width: 1, height: 1)
            bgrx[0, 0, 0] = b; bgrx[0, 1, 0] = g; bgrx[0, 2, 0] = r; bgrx[0, 3, 0] = 9
            try Grayscale().run(bgrx)
            XCTAssertEqual(planes(bgrx)[0][0], [expected, expected, expected, 9])
        }
    }
}

final class InvertTests: XCTestCase {
    func testOnceExactTwiceIdentity() throws {
        let filter = Invert()
        for format in Invert.formats {
            for (w, h) in testSizes {
                for padding in testPaddings {
                    let frame = randomFrame(format, w, h, padding: padding, seed: 7)
                    let original = planes(frame)
                    let originalBytes = allBytes(frame)
                    try filter.run(frame)
                    let once = planes(frame)
                    let what = "\(format.name) \(w)x\(h) padding \(padding)"
                    XCTAssertTrue(frame.paddingIsIntact(sentinel), what)
                    for p in 0..<format.planeCount {
                        for y in 0..<original[p].count {
                            for x in 0..<original[p][y].count {
                                let keep = !format.isYUV && x % 4 == 3
                                let expected = keep ? original[p][y][x] : 255 - original[p][y][x]
                                XCTAssertEqual(once[p][y][x], expected, "\(what) plane \(p) byte \(x),\(y)")
                            }
                        }
                    }
                    try filter.run(frame)
                    assertSame(allBytes(frame), originalBytes, what)
                }
            }
        }
    }
}
