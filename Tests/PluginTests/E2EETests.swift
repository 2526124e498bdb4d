import Foundation
import SluiceE2EE
import SluiceFilterKit
import Synchronization
import XCTest

final class E2EETests: XCTestCase {
    private func pass(
        _ filter: E2EE, _ bytes: [UInt8], codec: EncodedCodec = .vp8, keyframe: Bool = true, direction: EncodedDirection,
        context: FilterContext = .discarding
    ) throws -> EncodedVerdict {
        try bytes.withUnsafeBytes { b in
            try filter.process(
                EncodedFrame(codec: codec, direction: direction, isKeyframe: keyframe, pts: 33_333_333, bytes: b), context: context)
        }
    }

    private func bytes(of verdict: EncodedVerdict) -> [UInt8]? {
        if case .replace(let b) = verdict { return b }
        return nil
    }

    func testWhatOneEncryptsTheOtherDecryptsForEachCodec() throws {
        let sender = try E2EE(material: FrameKeyMaterial(raw: Array(0..<32)), keyIndex: 3)
        let receiver = try E2EE(material: FrameKeyMaterial(raw: Array(0..<32)), keyIndex: 3)
        let frame: [UInt8] = (0..<200).map { UInt8(truncatingIfNeeded: $0 * 7) }
        for (codec, keyframe, clear) in [(EncodedCodec.vp8, true, 10), (.vp8, false, 3), (.vp9, true, 0), (.opus, true, 1)] {
            let sealed = try XCTUnwrap(bytes(of: try pass(sender, frame, codec: codec, keyframe: keyframe, direction: .send)))
            XCTAssertEqual(sealed.count, frame.count + 16 + 12 + 2)
            XCTAssertEqual(Array(sealed.prefix(clear)), Array(frame.prefix(clear)), "\(codec): the clear header stays")
            XCTAssertNotEqual(Array(sealed[clear..<(clear + 16)]), Array(frame[clear..<(clear + 16)]), "\(codec): the rest is not")
            XCTAssertEqual(Array(sealed.suffix(2)), [12, 3])
            let opened = try pass(receiver, sealed, codec: codec, keyframe: keyframe, direction: .receive)
            XCTAssertEqual(bytes(of: opened), frame, "\(codec)")
        }
    }

    func testTheWrongKeyDropsEveryFrameAndSaysSoOnceASecond() throws {
        let sender = try E2EE(material: FrameKeyMaterial(raw: Array(0..<16)))
        let receiver = try E2EE(material: FrameKeyMaterial(raw: Array(1..<17)), ratchetWindow: 2)
        let events = Mutex<[Double]>([])
        let context = FilterContext { name, fields in if name == "decrypt-failed" { events.withLock { $0.append(fields["frames"] ?? 0) } } }
        for _ in 0..<50 {
            let sealed = try XCTUnwrap(bytes(of: try pass(sender, Array(repeating: 9, count: 64), direction: .send)))
            XCTAssertEqual(try pass(receiver, sealed, direction: .receive, context: context), .drop)
        }
        XCTAssertEqual(events.withLock { $0 }, [1], "one event for the first failure; the rest wait for the next second")
        // A frame in the clear, an empty one, another key index.
        XCTAssertEqual(try pass(receiver, Array(repeating: 1, count: 40), direction: .receive), .drop)
        XCTAssertEqual(try pass(receiver, [], direction: .receive), .keep)
        let otherIndex = try E2EE(material: FrameKeyMaterial(raw: Array(1..<17)), keyIndex: 5)
        let sealed = try XCTUnwrap(bytes(of: try pass(otherIndex, Array(repeating: 9, count: 64), direction: .send)))
        XCTAssertEqual(try pass(receiver, sealed, direction: .receive), .drop)
    }

    func testAReceiverFollowsASenderThatRatcheted() throws {
        let base = FrameKeyMaterial(raw: Array(0..<32))
        let sender = try E2EE(material: base.ratcheted().ratcheted())
        let receiver = try E2EE(material: base, ratchetWindow: 4)
        for _ in 0..<3 {
            let sealed = try XCTUnwrap(bytes(of: try pass(sender, Array(repeating: 5, count: 50), direction: .send)))
            XCTAssertEqual(bytes(of: try pass(receiver, sealed, direction: .receive)), Array(repeating: 5, count: 50))
        }
        let beyond = try E2EE(material: FrameKeyMaterial(raw: Array(0..<32)), ratchetWindow: 1)
        let sealed = try XCTUnwrap(bytes(of: try pass(sender, Array(repeating: 5, count: 50), direction: .send)))
        XCTAssertEqual(try pass(beyond, sealed, direction: .receive), .drop, "two steps ahead is beyond a window of one")
    }

    func testSettingsNeedExactlyOneKey() throws {
        let both = try FilterConfiguration(["passphrase": .string("a"), "key": .string("00112233445566778899aabbccddeeff")], parameters: E2EE.parameters)
        XCTAssertThrowsError(try E2EE(configuration: both)) { XCTAssertTrue("\($0)".contains("exactly one"), "\($0)") }
        let neither = try FilterConfiguration([:], parameters: E2EE.parameters)
        XCTAssertThrowsError(try E2EE(configuration: neither))
        let short = try FilterConfiguration(["key": .string("0011")], parameters: E2EE.parameters)
        XCTAssertThrowsError(try E2EE(configuration: short)) { XCTAssertTrue("\($0)".contains("16 to 64 bytes"), "\($0)") }
        let notHex = try FilterConfiguration(["key": .string(String(repeating: "zz", count: 16))], parameters: E2EE.parameters)
        XCTAssertThrowsError(try E2EE(configuration: notHex))
        XCTAssertTrue(E2EE.parameters.filter { ["passphrase", "key"].contains($0.name) }.allSatisfy(\.secret))
    }
}
