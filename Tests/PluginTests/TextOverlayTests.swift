import SluiceFilterKit
import SluiceText
import XCTest

final class TextOverlayTests: XCTestCase {
    /// The letter H, as a reader sees it: two posts and a bar across the middle (row 3).
    private let hRows = ["#...#", "#...#", "#...#", "#####", "#...#", "#...#", "#...#"]

    func testLayoutPutsTheBoxInTheCornerTheCentreOrTheEdgeAsAsked() {
        // "HI": 2 cells of 6 units plus a unit of border = 13 × 8 units (one line + border 9).
        func box(_ position: String) -> TextOverlay.Layout? {
            TextOverlay(text: "HI", position: position, size: 4).layout(width: 640, height: 360)
        }
        let w = 13 * 4, h = 9 * 4
        XCTAssertEqual(box("top-left"), .init(unit: 4, x: 8, y: 8, width: w, height: h))
        XCTAssertEqual(box("bottom-right"), .init(unit: 4, x: 640 - w - 8, y: 360 - h - 8, width: w, height: h))
        XCTAssertEqual(box("center"), .init(unit: 4, x: (640 - w) / 2, y: (360 - h) / 2, width: w, height: h))
        XCTAssertEqual(box("bottom"), .init(unit: 4, x: (640 - w) / 2, y: 360 - h - 8, width: w, height: h))
        XCTAssertEqual(TextOverlay(text: "HI").layout(width: 1280, height: 720)?.unit, 8, "auto size: height / 90")
        XCTAssertEqual(TextOverlay(text: "HI").layout(width: 16, height: 8)?.unit, 1, "never below one pixel")
        XCTAssertNil(TextOverlay(text: "").layout(width: 640, height: 360), "nothing to write")
    }

    func testTheLetterIsWrittenWhiteOnABlackBoxAndNothingElseChanges() throws {
        let filter = TextOverlay(text: "H", position: "top-left", size: 2)
        let layout = try XCTUnwrap(filter.layout(width: 64, height: 48))
        let frame = randomFrame(.i420, 64, 48)
        let before = planes(frame)
        try filter.run(frame)
        let after = planes(frame)
        let ink = layout.x + layout.unit, top = layout.y + layout.unit
        for y in 0..<48 {
            for x in 0..<64 {
                let inBox = (layout.x..<layout.x + layout.width).contains(x) && (layout.y..<layout.y + layout.height).contains(y)
                let gx = (x - ink) / 2, gy = (y - top) / 2
                let inked = x >= ink && y >= top && gx < 5 && gy < 7 && Array(hRows[gy])[gx] == "#"
                let expected = inked ? 235 : inBox ? 16 : before[0][y][x]
                XCTAssertEqual(after[0][y][x], expected, "luma at (\(x), \(y))")
            }
        }
        for p in 1...2 {
            for y in 0..<24 {
                for x in 0..<32 {
                    let inBox = (layout.x / 2..<(layout.x + layout.width) / 2).contains(x) && (layout.y / 2..<(layout.y + layout.height) / 2).contains(y)
                    XCTAssertEqual(after[p][y][x], inBox ? 128 : before[p][y][x], "chroma plane \(p) at (\(x), \(y))")
                }
            }
        }
        assertPaddingUntouched(frame, "i420 64x48")
    }

    func testWithoutABoxOnlyTheInkChanges() throws {
        let frame = randomFrame(.nv12, 64, 48)
        let before = planes(frame)
        try TextOverlay(text: "-", position: "top-left", size: 1, box: false).run(frame)
        let after = planes(frame)
        // "-" is row 3 of its glyph, all five columns: (3...7, 5) with the box at (2, 2).
        for y in 0..<48 {
            for x in 0..<64 {
                let inked = y == 2 + 1 + 3 && (3...7).contains(x)
                XCTAssertEqual(after[0][y][x], inked ? 235 : before[0][y][x], "luma at (\(x), \(y))")
            }
        }
        XCTAssertEqual(after[1][3][2 * 2], 128, "the chroma under the ink is neutral")
        XCTAssertEqual(after[1][10], before[1][10], "chroma away from the ink is untouched")
    }

    func testPackedFormatsGetWhiteInkAndOpaqueRGBA() throws {
        for format in [PixelFormat.rgba, .bgrx] {
            let frame = randomFrame(format, 32, 24)
            let before = planes(frame)
            try TextOverlay(text: "H", position: "top-left", size: 1).run(frame)
            let after = planes(frame)
            // (x 3, y 3) is the H's top-left ink; (x 4, y 3) the box between its posts.
            XCTAssertEqual(Array(after[0][3][12..<15]), [255, 255, 255], "\(format.name) ink")
            XCTAssertEqual(Array(after[0][3][16..<19]), [0, 0, 0], "\(format.name) box")
            XCTAssertEqual(after[0][3][15], format == .rgba ? 255 : before[0][3][15], "\(format.name): alpha opaque, x byte kept")
            XCTAssertEqual(after[0][20], before[0][20], "\(format.name): rows under the box are untouched")
        }
    }

    func testLinesBreakAtNewlinesAndAtBackslashN() {
        let filter = TextOverlay(text: "CAMERA 3\\nOFFLINE\nSINCE 10:02")
        XCTAssertEqual(filter.lines.map { String($0) }, ["CAMERA 3", "OFFLINE", "SINCE 10:02"])
        XCTAssertEqual(TextOverlay(text: "AB", size: 1).layout(width: 100, height: 100)?.height, 10, "one line: 8 units and a border")
        XCTAssertEqual(TextOverlay(text: "A\\nB", size: 1).layout(width: 100, height: 100)?.height, 18, "two lines")
    }

    func testAnySizeAndPlaceIsClippedWithoutTouchingPadding() throws {
        for format in TextOverlay.formats {
            for size in testSizes {
                for position in TextOverlay.positions {
                    let frame = randomFrame(format, size.width, size.height)
                    try TextOverlay(text: "Offline: lower case and é", position: position, size: 3).run(frame)
                    assertPaddingUntouched(frame, "\(format.name) \(size) \(position)")
                }
            }
        }
    }

    func testLowerCaseIsDrawnAsCapitalsAndUnknownCharactersAsAQuestionMark() throws {
        func pixels(_ text: String) throws -> [[[UInt8]]] {
            let frame = OwnedFrame(format: .i420, width: 32, height: 16, rowPadding: 0, fill: 100)
            try TextOverlay(text: text, position: "top-left", size: 1).run(frame)
            return planes(frame)
        }
        XCTAssertEqual(try pixels("h"), try pixels("H"))
        XCTAssertEqual(try pixels("é"), try pixels("?"))
        XCTAssertNotEqual(try pixels("H"), try pixels("?"))
    }

    /// Every byte past a row's pixels still holds `sentinel`.
    private func assertPaddingUntouched(_ frame: OwnedFrame, _ message: String, line: UInt = #line) {
        frame.withFrame { f in
            for p in 0..<frame.format.planeCount {
                let plane = f.plane(p)
                for y in 0..<frame.rows(p) {
                    for x in frame.rowBytes(p)..<frame.strides[p] where plane.row(y)[x] != sentinel {
                        return XCTFail("\(message): padding byte \(x) of row \(y), plane \(p) was written", line: line)
                    }
                }
            }
        }
    }
}
