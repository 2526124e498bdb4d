import Foundation
import GStreamer
import Synchronization
import XCTest
@testable import SluiceRun

/// `sluice-vp8pay`: VP8 into RTP without parsing, read back by GStreamer's own depayloader.
final class VP8PayloaderTests: XCTestCase {
    func testTheDescriptorSaysStartAndPictureID() {
        XCTAssertEqual(VP8Payloader.descriptor(start: true, pictureID: 0x1234), [0x90, 0x80, 0x92, 0x34])
        XCTAssertEqual(VP8Payloader.descriptor(start: false, pictureID: 0x7FFF), [0x80, 0x80, 0xFF, 0xFF])
    }

    /// 60 frames at 320×240 through packets of at most 300 bytes: `rtpvp8depay` puts every
    /// frame back together and `vp8dec` decodes all of them; the packets respect the MTU and
    /// only each frame's last has the marker bit.
    func testGStreamersDepayloaderRebuildsEveryFrame() throws {
        XCTAssertTrue(VP8Payloader.registered)
        let pipeline = try Bin.parse(
            "videotestsrc num-buffers=60 pattern=snow ! video/x-raw,width=320,height=240,framerate=30/1 ! vp8enc deadline=1 target-bitrate=2000000"
                + " ! sluice-vp8pay name=pay mtu=300 ! rtpvp8depay wait-for-keyframe=true ! vp8dec name=dec ! fakesink sync=false")
        let wrapper = Pipeline(name: "vp8pay")
        try wrapper.add(pipeline)
        let packets = Mutex((count: 0, marked: 0, largest: 0))
        let decoded = Atomic<Int>(0)
        let pay = try XCTUnwrap(pipeline.children.first { $0.name == "pay" })
        pay.staticPad("src")?.addProbe([.buffer, .bufferList]) { (info: borrowing Pad.ProbeInfo) in
            info.forEachBuffer { b in
                let size = b.size
                let marked = b.withBytes { $0.count > 1 && $0[1] & 0x80 != 0 } ?? false
                packets.withLock {
                    $0.count += 1; $0.marked += marked ? 1 : 0; $0.largest = max($0.largest, size)
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
        let end = wrapper.bus.pop(timeout: 20_000_000_000, of: [.eos, .error])
        wrapper.setState(.null)
        XCTAssertEqual(end?.kind, .eos, "\(end.map { "\($0.kind)" } ?? "timeout")")
        XCTAssertEqual(decoded.load(ordering: .relaxed), 60)
        let p = packets.withLock { $0 }
        XCTAssertEqual(p.marked, 60, "one marked packet per frame")
        XCTAssertGreaterThan(p.count, 120, "frames were split")
        XCTAssertLessThanOrEqual(p.largest, 300)
    }
}
