import XCTest

@testable import SluiceRun

final class RTPPacketReadingTests: XCTestCase {
    /// An RTP header (version 2, X set, `csrcs` CSRCs) with `extensionBytes` after the profile word.
    private func packet(profile: UInt16 = 0xBEDE, csrcs: Int = 0, _ extensionBytes: [UInt8]) -> [UInt8] {
        var p: [UInt8] = [0x90 | UInt8(csrcs), 96, 0, 1, 0, 0, 0, 1, 0, 0, 0, 42]
        p += Array(repeating: 7, count: 4 * csrcs)
        var ext = extensionBytes
        while ext.count % 4 != 0 { ext.append(0) }
        p += [UInt8(profile >> 8), UInt8(profile & 0xFF), 0, UInt8(ext.count / 4)] + ext + [0xAA, 0xBB]
        return p
    }

    private func rid(_ id: Int, in bytes: [UInt8]) -> String? {
        bytes.withUnsafeBytes { RTPPacketReading.streamID(id, in: $0) }
    }

    func testOneByteElementsAreFoundPastOthersAndPadding() {
        // mid "1" (id 9), padding, rid "hi" (id 10).
        let p = packet([0x90, 0x31, 0x00, 0xA1, 0x68, 0x69])
        XCTAssertEqual(rid(10, in: p), "hi")
        XCTAssertEqual(p.withUnsafeBytes { RTPPacketReading.headerExtension(9, in: $0) }, [0x31])
        XCTAssertNil(rid(11, in: p))
    }

    func testCSRCsAndTheTwoByteFormAreRead() {
        XCTAssertEqual(rid(10, in: packet(csrcs: 2, [0xA0, 0x6C])), "l")
        XCTAssertEqual(rid(10, in: packet(profile: 0x1000, [10, 1, 0x6D])), "m")
    }

    func testMalformedPacketsGiveNothing() {
        XCTAssertNil(rid(10, in: []))
        XCTAssertNil(rid(10, in: [0x80, 96, 0, 1, 0, 0, 0, 1, 0, 0, 0, 42]), "no extension bit")
        var truncated = packet([0xA1, 0x68, 0x69])
        truncated.removeLast(6)
        XCTAssertNil(rid(10, in: truncated), "the extension runs past the packet")
        XCTAssertNil(rid(10, in: packet([0xA7, 0x68])), "the element runs past the extension")
        XCTAssertNil(rid(10, in: packet(profile: 0x1234, [0xA0, 0x68])), "an unknown profile")
        XCTAssertNil(rid(10, in: packet([0xF0, 0xA0, 0x68])), "id 15 ends the one-byte form")
        // Every prefix of a good packet is safe to read.
        let good = packet([0xA1, 0x68, 0x69])
        for n in 0..<good.count { _ = rid(10, in: Array(good.prefix(n))) }
    }

    func testVP8KeyframeSizeIsReadAndInterframesHaveNone() {
        let key: [UInt8] = [0x50, 0x42, 0x00, 0x9D, 0x01, 0x2A, 0x80, 0x02, 0x68, 0x01] // 640x360
        XCTAssertEqual(key.withUnsafeBytes { RTPPacketReading.vp8KeyframeSize($0) }.map { [$0.width, $0.height] }, [640, 360])
        var inter = key
        inter[0] |= 1
        XCTAssertNil(inter.withUnsafeBytes { RTPPacketReading.vp8KeyframeSize($0) })
        XCTAssertNil(Array(key.prefix(9)).withUnsafeBytes { RTPPacketReading.vp8KeyframeSize($0) })
    }
}
