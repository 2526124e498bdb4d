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

    /// An AVC frame whose first unit is 256–511 bytes long begins `00 00 01`, like Annex B:
    /// its lengths covering it exactly make it AVC; an Annex B frame stays Annex B.
    func testAnAVCFrameThatBeginsLikeAStartCodeIsStillAVC() throws {
        let slice: [UInt8] = [0x41, 0x9A] + Array(repeating: 0x55, count: 298)
        let avc = H264Units.avc([slice])
        XCTAssertEqual(Array(avc.prefix(3)), [0, 0, 1])
        XCTAssertFalse(H264Units.isAnnexB(avc))
        XCTAssertEqual(H264Units.units(avc).map { Array(avc[$0]) }, [slice])
        XCTAssertTrue(H264Units.isAnnexB(annexB))
        XCTAssertTrue(H264Units.isAnnexB(H264Units.annexB([slice])))
    }

    func testAUnitIsInsertedBeforeTheFirstSliceOfAnAVCFrameToo() throws {
        let avc = H264Units.avc([[0x67, 0x42], [0x68, 0xCE], [0x65, 0x88, 0x84]])
        let out = try XCTUnwrap(H264Units.insertingBeforeFirstSlice([0x06, 0x05, 0x01, 0x80], into: avc))
        XCTAssertEqual(H264Units.avcUnits(out).map { Array(out[$0]) }, [[0x67, 0x42], [0x68, 0xCE], [0x06, 0x05, 0x01, 0x80], [0x65, 0x88, 0x84]])
    }

    func testEmulationPreventionRoundTrips() {
        let data: [UInt8] = [0, 0, 0, 0, 3, 0, 0, 1, 0, 0, 2, 0, 0]
        let escaped = H264Units.escape(data)
        for i in 0..<(escaped.count - 2) { XCTAssertFalse(escaped[i] == 0 && escaped[i + 1] == 0 && escaped[i + 2] <= 2) }
        XCTAssertEqual(H264Units.unescape(escaped), data)
    }

    /// The scans that skip ahead with `memchr` give what a byte-by-byte reading of the rules
    /// gives, on random bytes rich in zeros, ones and threes (where start codes and escapes are).
    func testSkippingScansAgreeWithByteByByteOnes() {
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<10_000 {
            let count = Int.random(in: 0...64, using: &rng)
            let data = (0..<count).map { _ in [0, 0, 0, 1, 3, 2, 0xFF, UInt8.random(in: 0...255, using: &rng)].randomElement(using: &rng)! }
            XCTAssertEqual(H264Units.escape(data), Self.escapedByteByByte(data), "\(data)")
            XCTAssertEqual(H264Units.unescape(data), Self.unescapedByteByByte(data), "\(data)")
            XCTAssertEqual(H264Units.annexBUnits(data), Self.annexBUnitsByteByByte(data), "\(data)")
        }
    }

    private static func escapedByteByByte(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [], zeros = 0
        for byte in data {
            if byte <= 3, zeros >= 2 { out.append(3); zeros = 0 }
            out.append(byte)
            zeros = byte == 0 ? zeros + 1 : 0
        }
        return out
    }

    private static func unescapedByteByByte(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [], i = 0
        while i < data.count {
            if i + 2 < data.count, data[i] == 0, data[i + 1] == 0, data[i + 2] == 3 {
                out += [0, 0]
                i += 3
            } else {
                out.append(data[i])
                i += 1
            }
        }
        return out
    }

    private static func annexBUnitsByteByByte(_ b: [UInt8]) -> [Range<Int>] {
        var starts: [(code: Int, unit: Int)] = [], i = 0
        while i + 2 < b.count {
            if b[i] == 0, b[i + 1] == 0, b[i + 2] == 1 {
                starts.append((i > 0 && b[i - 1] == 0 ? i - 1 : i, i + 3))
                i += 3
            } else {
                i += 1
            }
        }
        return starts.indices.map { k in starts[k].unit..<(k + 1 < starts.count ? starts[k + 1].code : b.count) }
    }
}
