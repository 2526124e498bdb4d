import SluiceFilterKit
import XCTest

/// H.264 NAL units in both forms encoded filters see, and emulation prevention.
final class H264UnitsTests: XCTestCase {
    private let annexB: [UInt8] = [0, 0, 0, 1, 0x09, 0xF0, 0, 0, 1, 0x67, 0x42, 0, 0, 0, 1, 0x65, 0x88, 0x84]

    func testAnnexBAndAVCGiveTheSameUnits() {
        let units = H264Units.annexBUnits(annexB)
        XCTAssertEqual(units.map { annexB[$0] }, [[0x09, 0xF0], [0x67, 0x42], [0x65, 0x88, 0x84]])
        let avc: [UInt8] = [0, 0, 0, 2, 0x09, 0xF0, 0, 0, 0, 2, 0x67, 0x42, 0, 0, 0, 3, 0x65, 0x88, 0x84]
        XCTAssertEqual(H264Units.avcUnits(avc).map { Array(avc[$0]) }, units.map { Array(annexB[$0]) })
        XCTAssertEqual(H264Units.units(avc).count, 3, "AVC when it does not start with a start code")
        XCTAssertEqual(H264Units.avcUnits(Array(avc.prefix(17))).count, 2, "a cut frame keeps its whole units")
        XCTAssertEqual(H264Units.avcUnits([0xFF, 0xFF, 0xFF, 0xFF, 1]), [], "a length that lies gives nothing")
    }

    func testAUnitIsInsertedBeforeTheFirstSliceOnly() throws {
        let out = try XCTUnwrap(H264Units.insertingBeforeFirstSlice([0x06, 0x05, 0x01, 0x80], into: annexB))
        XCTAssertEqual(H264Units.annexBUnits(out).map { out[$0.lowerBound] & 0x1F }, [9, 7, 6, 5])
        XCTAssertNil(H264Units.insertingBeforeFirstSlice([0x06], into: Array(annexB.prefix(12))), "no slice")
    }

    func testEmulationPreventionRoundTrips() {
        let data: [UInt8] = [0, 0, 0, 0, 3, 0, 0, 1, 0, 0, 2, 0, 0]
        let escaped = H264Units.escape(data)
        for i in 0..<(escaped.count - 2) { XCTAssertFalse(escaped[i] == 0 && escaped[i + 1] == 0 && escaped[i + 2] <= 2) }
        XCTAssertEqual(H264Units.unescape(escaped), data)
    }
}
