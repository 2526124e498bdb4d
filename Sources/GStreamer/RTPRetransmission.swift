import CGStreamer
import CGStreamerShim

/// What a sender knows of one RTP packet it sent: enough to ask for it again.
public struct RTPPacketSummary: Sendable, Equatable {
    /// The synchronisation source.
    public var ssrc: UInt32
    /// The sequence number.
    public var sequence: UInt16
    /// Whether the marker bit is set (for video: the last packet of a frame).
    public var marker: Bool
    /// The whole packet, header included, in bytes.
    public var size: Int

    /// A summary from its values.
    public init(ssrc: UInt32, sequence: UInt16, marker: Bool, size: Int) {
        self.ssrc = ssrc; self.sequence = sequence; self.marker = marker; self.size = size
    }
}

extension Pad.ProbeInfo {
    /// The RTP packets passing: the buffer, or each buffer of a list, read without changing
    /// them (none when what passes is not RTP).
    public var rtpPackets: [RTPPacketSummary] {
        let type = info.pointee.type.rawValue
        if type & GST_PAD_PROBE_TYPE_BUFFER.rawValue != 0, let buffer = rawBuffer {
            return Self.summary(of: buffer).map { [$0] } ?? []
        }
        guard type & GST_PAD_PROBE_TYPE_BUFFER_LIST.rawValue != 0, let list = gst_pad_probe_info_get_buffer_list(info) else {
            return []
        }
        return (0..<gst_buffer_list_length(list)).compactMap { i in gst_buffer_list_get(list, i).flatMap(Self.summary) }
    }

    private static func summary(of buffer: UnsafeMutablePointer<GstBuffer>) -> RTPPacketSummary? {
        var rtp = GstRTPBuffer()
        guard gst_rtp_buffer_map(buffer, GST_MAP_READ, &rtp) != 0 else { return nil }
        defer { gst_rtp_buffer_unmap(&rtp) }
        return RTPPacketSummary(
            ssrc: gst_rtp_buffer_get_ssrc(&rtp), sequence: gst_rtp_buffer_get_seq(&rtp),
            marker: gst_rtp_buffer_get_marker(&rtp) != 0, size: Int(gst_buffer_get_size(buffer)))
    }
}

extension Event {
    /// The upstream event rtpsession sends `rtprtxsend` for each packet a NACK asks for
    /// (`GstRTPRetransmissionRequest`, with `ssrc` and `seqnum`): sent to an `rtprtxsend`'s
    /// source pad, it retransmits that packet on its RTX stream, if it still holds it.
    public static func retransmissionRequest(ssrc: UInt32, sequence: UInt16) -> Event {
        Gst.initialize()
        let s = Structure(name: "GstRTPRetransmissionRequest")
        s.set("ssrc", ssrc)
        s.set("seqnum", UInt32(sequence))
        return Event(full: gst_event_new_custom(GST_EVENT_CUSTOM_UPSTREAM, gst_structure_copy(s.raw)))
    }
}
