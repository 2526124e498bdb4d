import GStreamer
import Synchronization

/// `sluice-vp8pay`: VP8 into RTP without reading the frame (RFC 7741 §4.2 lets a payloader
/// put partition boundaries anywhere when it says nothing of them). GStreamer 1.22's
/// `rtpvp8pay` parses each frame's first partition to split at partitions, which fails on
/// frames an encoded filter changed (encrypted, for one). Each packet carries a 4-byte payload
/// descriptor: X and S (first packet of the frame), partition index 0, and a 15-bit picture
/// ID that grows by one per frame; the frame's last packet has the marker bit.
package final class VP8Payloader: PayloaderState {
    /// The element's factory name.
    package static let factory = "sluice-vp8pay"
    /// The descriptor's length: byte 0 (X, S, PID), byte 1 (I), the 15-bit picture ID.
    static let descriptorLength = 4

    /// Registers the element once per process.
    package static let registered: Bool = SwiftElements.registerPayloader(
        PayloaderDescription(
            factory: factory, longname: "Sluice VP8 payloader (no frame parsing)",
            description: "Packetizes VP8 into RTP (RFC 7741) without parsing the frame, for frames encoded filters changed",
            sinkCaps: "video/x-vp8", media: "video", encodingName: "VP8", clockRate: 90_000)
    ) { _ in VP8Payloader() }

    private var pictureID = UInt16.random(in: 0...0x7FFF)

    /// The payload descriptor of one packet.
    static func descriptor(start: Bool, pictureID: UInt16) -> [UInt8] {
        [start ? 0x90 : 0x80, 0x80, 0x80 | UInt8(pictureID >> 8 & 0x7F), UInt8(pictureID & 0xFF)]
    }

    package func handle(_ frame: borrowing BufferRef, into output: borrowing RTPPacketOutput) {
        let id = pictureID
        pictureID = (pictureID + 1) & 0x7FFF
        output.appendFragments(of: frame, descriptorLength: Self.descriptorLength) { first, _ in
            Self.descriptor(start: first, pictureID: id)
        }
    }
}
