import Foundation
import SluiceFilterKit
import SluiceSEI
import Synchronization
import XCTest

/// `sei`: per-frame JSON in H.264 SEI user data, written before the first slice of an Annex B
/// access unit and read back from the AVC form the decoder takes.
final class SEITests: XCTestCase {
    private final class Events: Sendable {
        let list = Mutex<[(String, [String: Double])]>([])
        var context: FilterContext { FilterContext { name, fields in self.list.withLock { $0.append((name, fields)) } } }
        func named(_ name: String) -> [[String: Double]] { list.withLock { $0.filter { $0.0 == name }.map(\.1) } }
    }

    /// An access unit as x264enc makes a keyframe: AUD, SPS, PPS, x264's own SEI, an IDR slice.
    private let keyframe: [UInt8] =
        [0, 0, 0, 1, 0x09, 0xF0] + [0, 0, 0, 1, 0x67, 0x42, 0xC0, 0x1E, 0xDA] + [0, 0, 0, 1, 0x68, 0xCE, 0x3C, 0x80]
        + [0, 0, 1, 0x06, 0x05, 0x11] + Array(repeating: 0xAB, count: 17) + [0x80]
        + [0, 0, 0, 1, 0x65, 0x88, 0x84, 0x00, 0x00, 0x03, 0x01, 0x7F]

    /// Annex B to AVC (4-byte lengths), as h264parse gives the decoder.
    private func avc(_ annexB: [UInt8]) -> [UInt8] {
        H264Units.annexBUnits(annexB).flatMap { r -> [UInt8] in
            let n = r.count
            return [UInt8(n >> 24), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)] + annexB[r]
        }
    }

    private func run(_ filter: SEI, _ bytes: [UInt8], direction: EncodedDirection, number: UInt64 = 0, events: Events) throws -> EncodedVerdict {
        try bytes.withUnsafeBytes { raw in
            try filter.process(
                EncodedFrame(codec: .h264, direction: direction, isKeyframe: true, bytes: raw, number: number), context: events.context)
        }
    }

    func testAMessageWrittenBeforeTheSliceIsReadBackFromAVC() throws {
        var now: UInt64 = 5_000_000
        let writer = SEI(value: 42.5, clock: { now })
        let reader = SEI(clock: { now + 12_000 })
        let events = Events()
        guard case .replace(let written) = try run(writer, keyframe, direction: .send, number: 7, events: events) else {
            return XCTFail("the writer replaces the frame")
        }
        let units = H264Units.annexBUnits(written).map { written[$0.lowerBound] & 0x1F }
        XCTAssertEqual(units, [9, 7, 8, 6, 6, 5], "ours after the parameter sets and x264's SEI, before the slice")
        XCTAssertEqual(Array(written.suffix(12)), Array(keyframe.suffix(12)), "the slice is untouched")
        now += 1
        XCTAssertEqual(try run(reader, avc(written), direction: .receive, events: events), .keep)
        let read = events.named("sei")
        XCTAssertEqual(read.count, 1, "x264's SEI (another UUID) is not ours")
        XCTAssertEqual(read.first?["frame"], 7)
        XCTAssertEqual(read.first?["value"], 42.5)
        XCTAssertEqual(read.first?["delay_ms"] ?? 0, 12.001, accuracy: 0.0001)
    }

    func testEveryNthFrameAndFramesWithoutASliceAreLeftAlone() throws {
        let writer = SEI(every: 3)
        let events = Events()
        let verdicts = try (0..<6).map { try run(writer, keyframe, direction: .send, number: UInt64($0), events: events) }
        XCTAssertEqual(verdicts.map { $0 == .keep }, [false, true, true, false, true, true])
        XCTAssertEqual(try run(writer, Array(keyframe.prefix(20)), direction: .send, events: events), .keep, "no slice: nothing to put it before")
    }

    func testEmulationPreventionRoundTripsAndLongMessagesCodeTheirSize() {
        let data: [UInt8] = [0, 0, 1, 0, 0, 0, 0, 3, 0, 0, 2] + Array(repeating: 0x41, count: 300)
        let nal = SEIMessage.nalUnit(carrying: data)
        for i in 1..<(nal.count - 2) { XCTAssertFalse(nal[i] == 0 && nal[i + 1] == 0 && nal[i + 2] <= 2, "no start code inside at \(i)") }
        XCTAssertEqual(SEIMessage.data(inNALUnit: nal[...]), [data])
        XCTAssertNil(SEIMessage.data(inNALUnit: [0x65, 1, 2][...]), "a slice is not SEI")
    }

    /// 10 000 mutations of a written frame (flipped bytes, cuts, a first length that lies)
    /// read back: nothing traps, no frame yields more than its one message, and every frame
    /// whose message bytes the mutation left intact reads exactly what was written. (A flip
    /// inside the JSON can still read as other JSON: SEI has no checksum, SRTP guards it.)
    func testTenThousandMutatedFramesNeverCrashTheReader() throws {
        let writer = SEI(value: 1)
        let events = Events()
        guard case .replace(let written) = try run(writer, keyframe, direction: .send, number: 3, events: events) else {
            return XCTFail("the writer replaces the frame")
        }
        let clean = avc(written)
        let ours = try XCTUnwrap(H264Units.avcUnits(clean).filter { clean[$0.lowerBound] == 6 }.last, "our SEI unit")
        let message = (ours.lowerBound - 4)..<ours.upperBound // with its length
        var random = SplitMix64(seed: 46)
        let reader = SEI()
        var intact = 0, intactRead = 0, reads = 0
        for _ in 0..<10_000 {
            var frame = clean
            var untouched = true
            switch random.next() % 3 {
            case 0:
                for _ in 0..<(1 + random.next() % 4) {
                    let at = Int(random.next() % UInt64(frame.count))
                    frame[at] ^= UInt8(1 + random.next() % 255)
                    untouched = untouched && at >= message.upperBound // the lengths before it steer the reading
                }
            case 1:
                let cut = Int(random.next() % UInt64(frame.count))
                frame = Array(frame.prefix(cut))
                untouched = cut >= message.upperBound
            default:
                frame[Int(random.next() % 4)] = UInt8(random.next() % 256)
                untouched = false
            }
            let before = events.list.withLock { $0.count }
            _ = try run(reader, frame, direction: .receive, events: events)
            let got = events.list.withLock { $0.count } - before
            XCTAssertLessThanOrEqual(got, 1, "one message per frame at most")
            reads += got
            if untouched {
                intact += 1
                if let last = events.list.withLock({ $0.last }), got == 1, last.0 == "sei", last.1["frame"] == 3, last.1["value"] == 1 {
                    intactRead += 1
                }
            }
        }
        XCTAssertGreaterThan(intact, 300, "enough frames kept their message")
        XCTAssertEqual(intactRead, intact, "every intact message reads as written")
        XCTAssertGreaterThanOrEqual(reads, intact)
    }
}
