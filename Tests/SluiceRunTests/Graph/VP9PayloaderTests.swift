import Foundation
import GStreamer
import Synchronization
import XCTest
@testable import SluiceRun

/// `sluice-vp9pay`: VP9 into RTP in flexible mode without parsing, read back by GStreamer's own
/// depayloader.
final class VP9PayloaderTests: XCTestCase {
    func testTheDescriptorIsFlexibleWithAPictureIDAndOneReferenceOnInterFrames() {
        // I, F, B (and E): a keyframe in one packet, no reference.
        XCTAssertEqual(VP9Payloader.descriptor(first: true, last: true, inter: false, pictureID: 0x1234), [0x9C, 0x92, 0x34])
        // I, P, F, B: an inter frame's first packet, P_DIFF 1 with N 0.
        XCTAssertEqual(VP9Payloader.descriptor(first: true, last: false, inter: true, pictureID: 0x7FFF), [0xD8, 0xFF, 0xFF, 0x02])
        // I, P, F, E: its last.
        XCTAssertEqual(VP9Payloader.descriptor(first: false, last: true, inter: true, pictureID: 0), [0xD4, 0x80, 0x00, 0x02])
    }

    /// 60 frames at 320×240 through packets of at most 300 bytes: `rtpvp9depay` puts every
    /// frame back together, keyframes told apart by the descriptor alone, and `vp9dec` decodes
    /// all of them; the packets respect the MTU, only each frame's last has the marker bit, and
    /// the picture ID grows by one per frame.
    func testGStreamersDepayloaderRebuildsEveryFrame() throws {
        XCTAssertTrue(VP9Payloader.registered)
        let pipeline = try Bin.parse(
            "videotestsrc num-buffers=60 pattern=snow ! video/x-raw,width=320,height=240,framerate=30/1"
                + " ! vp9enc deadline=1 cpu-used=8 lag-in-frames=0 target-bitrate=2000000 keyframe-max-dist=20"
                + " ! sluice-vp9pay name=pay mtu=300 ! rtpvp9depay wait-for-keyframe=true ! vp9dec name=dec ! fakesink sync=false")
        let wrapper = Pipeline(name: "vp9pay")
        try wrapper.add(pipeline)
        struct Packets { var count = 0, marked = 0, largest = 0, keyframeStarts = 0, ids: [Int] = [] }
        let packets = Mutex(Packets())
        let decoded = Atomic<Int>(0)
        let pay = try XCTUnwrap(pipeline.children.first { $0.name == "pay" })
        pay.staticPad("src")?.addProbe([.buffer, .bufferList]) { (info: borrowing Pad.ProbeInfo) in
            info.forEachBuffer { b in
                let size = b.size
                // RTP header 12 bytes, then the descriptor.
                let seen = b.withBytes { p -> (marked: Bool, start: Bool, key: Bool, id: Int) in
                    (p[1] & 0x80 != 0, p[12] & 0x08 != 0, p[12] & 0x40 == 0, Int(p[13] & 0x7F) << 8 | Int(p[14]))
                }
                guard let seen else { return }
                packets.withLock {
                    $0.count += 1; $0.marked += seen.marked ? 1 : 0; $0.largest = max($0.largest, size)
                    if seen.start {
                        $0.ids.append(seen.id)
                        if seen.key { $0.keyframeStarts += 1 }
                    }
                }
            }
            return .ok
        }
        let dec = try XCTUnwrap(pipeline.children.first { $0.name == "dec" })
        dec.staticPad("src")?.addProbe { (_: borrowing Pad.ProbeInfo) in
            decoded.add(1, ordering: .relaxed)
            return .ok
        }
        wrapper.setState(.playing)
        let end = wrapper.bus.pop(timeout: 30_000_000_000, of: [.eos, .error])
        wrapper.setState(.null)
        XCTAssertEqual(end?.kind, .eos, "\(end.map { "\($0.kind)" } ?? "timeout")")
        XCTAssertEqual(decoded.load(ordering: .relaxed), 60)
        let p = packets.withLock { $0 }
        XCTAssertEqual(p.marked, 60, "one marked packet per frame")
        XCTAssertGreaterThan(p.count, 120, "frames were split")
        XCTAssertLessThanOrEqual(p.largest, 300)
        XCTAssertEqual(p.keyframeStarts, 3, "a keyframe every 20 frames, P clear on each")
        XCTAssertEqual(zip(p.ids, p.ids.dropFirst()).filter { ($0 + 1) & 0x7FFF != $1 }.count, 0, "picture IDs one apart: \(p.ids)")
    }
}
