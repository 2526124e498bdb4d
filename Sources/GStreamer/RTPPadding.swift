import CGStreamer
import CGStreamerShim

/// The header fields of one RTP packet that a stream's next packets share or continue.
public struct RTPHeaderFields: Sendable, Equatable {
    /// The synchronisation source.
    public var ssrc: UInt32
    /// The payload type.
    public var payloadType: UInt8
    /// The sequence number.
    public var sequence: UInt16
    /// The RTP timestamp.
    public var timestamp: UInt32
    /// Whether the marker bit is set (for video: the last packet of a frame).
    public var marker: Bool
    /// The buffer's presentation timestamp, if it has one.
    public var pts: ClockTime?

    /// Fields from their values.
    public init(ssrc: UInt32, payloadType: UInt8, sequence: UInt16, timestamp: UInt32, marker: Bool, pts: ClockTime?) {
        self.ssrc = ssrc; self.payloadType = payloadType; self.sequence = sequence
        self.timestamp = timestamp; self.marker = marker; self.pts = pts
    }
}

/// Moving an RTP stream's sequence numbers on, so that packets can be added to it, and the
/// packets added: padding only (RFC 3550 §5.1: no payload, the padding bit set), which every
/// receiver drops after counting it, as senders probe a path's capacity with (libwebrtc's
/// padding, LiveKit's probes).
extension Pad.ProbeInfo {
    /// Adds `offset` to the sequence number of the passing RTP buffer, or of every buffer of a
    /// passing list (each made writable first; nothing is written when `offset` is 0), and
    /// returns the last packet's header as it leaves. Nil if nothing RTP passes.
    public func shiftRTPSequenceNumbers(by offset: UInt16) -> RTPHeaderFields? {
        let type = info.pointee.type.rawValue
        if type & GST_PAD_PROBE_TYPE_BUFFER.rawValue != 0, let buffer = rawBuffer {
            let target = offset == 0 ? buffer : Self.writable(buffer)
            info.pointee.data = UnsafeMutableRawPointer(target)
            return Self.shift(target, by: offset)
        }
        guard type & GST_PAD_PROBE_TYPE_BUFFER_LIST.rawValue != 0, let list = gst_pad_probe_info_get_buffer_list(info) else {
            return nil
        }
        var target = list
        if offset != 0 {
            // GstBufferList is opaque to Swift: made writable through its mini-object header.
            let made = gst_mini_object_make_writable(UnsafeMutableRawPointer(list).assumingMemoryBound(to: GstMiniObject.self))
            info.pointee.data = UnsafeMutableRawPointer(made)
            target = OpaquePointer(made!)
        }
        var last: RTPHeaderFields?
        for i in 0..<gst_buffer_list_length(target) {
            let buffer = offset == 0 ? gst_buffer_list_get(target, i) : gst_buffer_list_get_writable(target, i)
            if let buffer, let fields = Self.shift(buffer, by: offset) { last = fields }
        }
        return last
    }

    private static func writable(_ buffer: UnsafeMutablePointer<GstBuffer>) -> UnsafeMutablePointer<GstBuffer> {
        let raw = gst_mini_object_make_writable(UnsafeMutableRawPointer(buffer).assumingMemoryBound(to: GstMiniObject.self))
        return UnsafeMutableRawPointer(raw!).assumingMemoryBound(to: GstBuffer.self)
    }

    /// Reads one packet's header, moving its sequence number on by `offset` first (the buffer
    /// is writable when `offset` is not 0).
    private static func shift(_ buffer: UnsafeMutablePointer<GstBuffer>, by offset: UInt16) -> RTPHeaderFields? {
        var rtp = GstRTPBuffer()
        let flags = offset == 0 ? GST_MAP_READ : GstMapFlags(rawValue: GST_MAP_READ.rawValue | GST_MAP_WRITE.rawValue)
        guard gst_rtp_buffer_map(buffer, flags, &rtp) != 0 else { return nil }
        defer { gst_rtp_buffer_unmap(&rtp) }
        if offset != 0 { gst_rtp_buffer_set_seq(&rtp, gst_rtp_buffer_get_seq(&rtp) &+ offset) }
        let pts = buffer.pointee.pts
        return RTPHeaderFields(
            ssrc: gst_rtp_buffer_get_ssrc(&rtp), payloadType: gst_rtp_buffer_get_payload_type(&rtp),
            sequence: gst_rtp_buffer_get_seq(&rtp), timestamp: gst_rtp_buffer_get_timestamp(&rtp),
            marker: gst_rtp_buffer_get_marker(&rtp) != 0, pts: pts == ClockTime.none ? nil : ClockTime(pts))
    }
}

extension Pad {
    /// The most padding one RTP packet can carry (its last byte counts it).
    public static let maxRTPPadding = 255

    /// Pushes `count` padding-only RTP packets (`padding` bytes each, at most
    /// `maxRTPPadding`) out of this source pad, as the stream `like` continues: its SSRC,
    /// payload type, timestamp and buffer time, sequence numbers from `firstSequence` on,
    /// marker unset. With `extensionID`, each carries that one-byte header extension with two
    /// zero bytes: the slot rtpsession writes a transport-wide sequence number into (it does so
    /// only in packets that have it). Returns the first flow that was not `ok`, or `ok`.
    @discardableResult
    public func pushRTPPadding(
        count: Int, padding: Int, like header: RTPHeaderFields, firstSequence: UInt16, extensionID: UInt8? = nil
    ) -> FlowReturn {
        let size = guint8(clamping: min(max(padding, 1), Self.maxRTPPadding))
        for i in 0..<max(0, count) {
            guard let buffer = gst_rtp_buffer_new_allocate(0, size, 0) else { return FlowReturn(raw: GST_FLOW_ERROR.rawValue) }
            var rtp = GstRTPBuffer()
            if gst_rtp_buffer_map(buffer, GST_MAP_WRITE, &rtp) != 0 {
                gst_rtp_buffer_set_ssrc(&rtp, header.ssrc)
                gst_rtp_buffer_set_payload_type(&rtp, header.payloadType)
                gst_rtp_buffer_set_seq(&rtp, firstSequence &+ UInt16(truncatingIfNeeded: i))
                gst_rtp_buffer_set_timestamp(&rtp, header.timestamp)
                gst_rtp_buffer_set_marker(&rtp, 0)
                if let extensionID {
                    var slot: UInt16 = 0
                    _ = gst_rtp_buffer_add_extension_onebyte_header(&rtp, extensionID, &slot, 2)
                }
                gst_rtp_buffer_unmap(&rtp)
            }
            buffer.pointee.pts = GstClockTime(header.pts ?? ClockTime.none)
            let flow = FlowReturn(raw: gst_pad_push(pad, buffer).rawValue)
            guard flow == .ok else { return flow }
        }
        return .ok
    }
}
