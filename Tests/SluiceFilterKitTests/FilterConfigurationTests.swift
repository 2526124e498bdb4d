import SluiceFilterKit
import XCTest

final class FilterConfigurationTests: XCTestCase {
    let parameters = [
        FilterParameter("block", .integer(min: 2, max: 256), default: .integer(16)),
        FilterParameter("threshold", .number(min: 0, max: 1), default: .number(0.5)),
        FilterParameter("on", .boolean, default: .boolean(true)),
        FilterParameter("mode", .string(choices: ["a", "b"]), default: .string("a")),
        FilterParameter("region", .integers(count: 4, min: 0, max: 100), default: .integers([0, 0, 100, 100]))
    ]

    func testDefaultsAndAccessors() throws {
        let c = try FilterConfiguration([:], parameters: parameters)
        XCTAssertEqual(c.integer("block"), 16)
        XCTAssertEqual(c.number("threshold"), 0.5)
        XCTAssertEqual(c.boolean("on"), true)
        XCTAssertEqual(c.string("mode"), "a")
        XCTAssertEqual(c.integers("region"), [0, 0, 100, 100])
        // Absent or mistyped names read as zero values.
        XCTAssertEqual(c.integer("nope"), 0)
        XCTAssertEqual(c.integers("block"), [])
    }

    func testIntegerForNumberIsStoredAsNumber() throws {
        let c = try FilterConfiguration(["threshold": .integer(1)], parameters: parameters)
        XCTAssertEqual(c.values["threshold"], .number(1))
        XCTAssertEqual(c.number("threshold"), 1)
    }

    func testErrorsNameTheSetting() {
        func key(_ given: [String: FilterValue]) -> String? {
            do { _ = try FilterConfiguration(given, parameters: parameters); return nil } catch { return error.key }
        }
        XCTAssertEqual(key(["blok": .integer(3)]), "blok")
        XCTAssertEqual(key(["block": .integer(1)]), "block")
        XCTAssertEqual(key(["block": .number(3)]), "block")
        XCTAssertEqual(key(["threshold": .number(1.5)]), "threshold")
        XCTAssertEqual(key(["mode": .string("c")]), "mode")
        XCTAssertEqual(key(["region": .integers([1, 2, 3])]), "region")
        XCTAssertEqual(key(["region": .integers([1, 2, 3, 101])]), "region")
        XCTAssertNil(key(["region": .integers([1, 2, 3, 100]), "on": .boolean(false)]))
        let required = [FilterParameter("x", .integer(min: 0, max: 1))]
        XCTAssertThrowsError(try FilterConfiguration([:], parameters: required))
    }
}

final class OwnedFrameTests: XCTestCase {
    func testPlaneGeometryAndPadding() {
        let f = OwnedFrame(format: .nv12, width: 7, height: 3, rowPadding: 13, fill: 0xA5)
        XCTAssertEqual(f.rowBytes(0), 7)
        XCTAssertEqual(f.rowBytes(1), 8) // 4 UV pairs
        XCTAssertEqual(f.rows(1), 2)
        XCTAssertEqual(f.strides, [20, 21])
        XCTAssertTrue(f.paddingIsIntact(0xA5))
        f[1, 7, 1] = 1 // last used byte
        XCTAssertTrue(f.paddingIsIntact(0xA5))
        f[1, 8, 1] = 1 // first padding byte
        XCTAssertFalse(f.paddingIsIntact(0xA5))
        f.withFrame(number: 4) { frame in
            XCTAssertEqual(frame.frameNumber, 4)
            XCTAssertEqual(frame.plane(1).width, 4)
            XCTAssertEqual(frame.plane(1).stride, 21)
            XCTAssertEqual(frame.plane(1).row(1)[7], 1)
        }
    }

    func testI420AndPackedGeometry() {
        let i420 = OwnedFrame(format: .i420, width: 33, height: 17)
        XCTAssertEqual([i420.rowBytes(0), i420.rowBytes(1), i420.rowBytes(2)], [33, 17, 17])
        XCTAssertEqual([i420.rows(0), i420.rows(1), i420.rows(2)], [17, 9, 9])
        let rgba = OwnedFrame(format: .bgrx, width: 3, height: 2, rowPadding: 1)
        XCTAssertEqual(rgba.rowBytes(0), 12)
        XCTAssertEqual(rgba.strides, [13])
    }
}
