/// Reads what a relay needs from packets and frames it forwards without decoding: the value
/// of an RTP header extension (RFC 8285, one- and two-byte forms) and a keyframe's picture
/// size. Plain byte parsing, bounded by the buffer: a malformed packet yields nil.
package enum RTPPacketReading {
    /// The bytes of header extension `id` in an RTP packet, or nil when it has none.
    package static func headerExtension(_ id: Int, in packet: UnsafeRawBufferPointer) -> [UInt8]? {
        guard packet.count >= 12, packet[0] >> 6 == 2, packet[0] & 0x10 != 0 else { return nil }
        let csrcs = Int(packet[0] & 0x0F)
        var at = 12 + 4 * csrcs
        guard packet.count >= at + 4 else { return nil }
        let profile = UInt16(packet[at]) << 8 | UInt16(packet[at + 1])
        let words = Int(packet[at + 2]) << 8 | Int(packet[at + 3])
        at += 4
        let end = at + 4 * words
        guard packet.count >= end else { return nil }
        let twoByte = profile & 0xFFF0 == 0x1000
        guard profile == 0xBEDE || twoByte else { return nil }
        while at < end {
            if packet[at] == 0 { at += 1; continue } // padding
            let (elementID, length, header): (Int, Int, Int)
            if twoByte {
                guard at + 1 < end else { return nil }
                (elementID, length, header) = (Int(packet[at]), Int(packet[at + 1]), 2)
            } else {
                (elementID, length, header) = (Int(packet[at] >> 4), Int(packet[at] & 0x0F) + 1, 1)
                if elementID == 15 { return nil } // the one-byte form stops here
            }
            let value = at + header
            guard value + length <= end else { return nil }
            if elementID == id { return Array(packet[value..<(value + length)]) }
            at = value + length
        }
        return nil
    }

    /// The RTP stream id (RFC 8852) extension `id` carries, if it is a valid one.
    package static func streamID(_ id: Int, in packet: UnsafeRawBufferPointer) -> String? {
        guard let bytes = headerExtension(id, in: packet), !bytes.isEmpty, bytes.count <= 16 else { return nil }
        let text = String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        return text.isEmpty ? nil : text
    }

    /// A VP8 keyframe's picture size (RFC 6386 9.1: the frame tag, the start code 9d 01 2a,
    /// then 14-bit width and height), or nil for an interframe or anything else.
    package static func vp8KeyframeSize(_ frame: UnsafeRawBufferPointer) -> (width: Int, height: Int)? {
        guard frame.count >= 10, frame[0] & 0x01 == 0, frame[3] == 0x9D, frame[4] == 0x01, frame[5] == 0x2A else { return nil }
        let width = (Int(frame[6]) | Int(frame[7]) << 8) & 0x3FFF
        let height = (Int(frame[8]) | Int(frame[9]) << 8) & 0x3FFF
        return width > 0 && height > 0 ? (width, height) : nil
    }
}
