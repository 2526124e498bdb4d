import GStreamer

/// `sluice-vp9pay`: VP9 into RTP without reading the frame, for frames encoded filters changed
/// (an encrypted frame is all ciphertext: GStreamer 1.22's `rtpvp9pay` parses each frame's
/// uncompressed header for the descriptor and its scalability structure, which ciphertext
/// breaks).
///
/// The descriptor is the flexible mode of RFC 9628, which a receiver reads without a
/// scalability structure: I with a 15-bit picture ID that grows by one per frame, F, B on a
/// frame's first packet and E on its last, and on inter frames P with one reference, the
/// frame before (P_DIFF 1: what libvpx's realtime single layer refers to). libwebrtc's
/// receiver drops non-flexible frames that lack TL0PICIDX and keyframes that lack the
/// structure; in flexible mode it takes each frame's references from its P_DIFFs. Whether a
/// frame is a keyframe comes from its buffer (no `DELTA_UNIT` flag), never from its bytes.
package final class VP9Payloader: PayloaderState {
    /// The element's factory name.
    package static let factory = "sluice-vp9pay"

    /// Registers the element once per process.
    package static let registered: Bool = SwiftElements.registerPayloader(
        PayloaderDescription(
            factory: factory, longname: "Sluice VP9 payloader (no frame parsing)",
            description: "Packetizes VP9 into RTP (RFC 9628, flexible mode) without parsing the frame, for frames encoded filters changed",
            sinkCaps: "video/x-vp9", media: "video", encodingName: "VP9", clockRate: 90_000)
    ) { _ in VP9Payloader() }

    private var pictureID = UInt16.random(in: 0...0x7FFF)

    /// The payload descriptor of one packet: `I|P|L|F|B|E|V|Z`, the picture ID (M set, 15
    /// bits) and, on an inter frame, `P_DIFF = 1, N = 0`.
    static func descriptor(first: Bool, last: Bool, inter: Bool, pictureID: UInt16) -> [UInt8] {
        var byte0: UInt8 = 0x80 | 0x10 // I, F
        if inter { byte0 |= 0x40 }
        if first { byte0 |= 0x08 }
        if last { byte0 |= 0x04 }
        let id = [0x80 | UInt8(pictureID >> 8 & 0x7F), UInt8(pictureID & 0xFF)]
        return [byte0] + id + (inter ? [1 << 1] : [])
    }

    package func handle(_ frame: borrowing BufferRef, into output: borrowing RTPPacketOutput) {
        let id = pictureID, inter = frame.isDeltaUnit
        pictureID = (pictureID + 1) & 0x7FFF
        let length = Self.descriptor(first: true, last: true, inter: inter, pictureID: id).count
        output.appendFragments(of: frame, descriptorLength: length) { first, last in
            Self.descriptor(first: first, last: last, inter: inter, pictureID: id)
        }
    }
}

/// The payloader for frames encoded filters may have changed (`opaque`): Sluice's own for VP8
/// and VP9, which do not parse the frame, GStreamer's for the other codecs (H.264's reads
/// only the NAL unit headers a filter keeps in the clear, Opus's nothing).
package enum OpaquePayloaders {
    /// The payloader's factory name for `codec`.
    package static func factory(for codec: Codec, opaque: Bool) -> String {
        guard opaque else { return DefaultElements.payloader(for: codec) }
        switch codec {
        case .vp8 where VP8Payloader.registered: return VP8Payloader.factory
        case .vp9 where VP9Payloader.registered: return VP9Payloader.factory
        default: return DefaultElements.payloader(for: codec)
        }
    }
}
