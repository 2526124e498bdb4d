import CGStreamer
import CGStreamerShim

/// Where a payloader written in Swift puts its RTP packets: valid only during the `handle`
/// call that hands it out. Packets are made by the base class (its payload type, SSRC,
/// sequence numbers, header extensions and RTP timestamps from the PTS), filled here, and
/// pushed together at the end of the call.
public struct RTPPacketOutput: ~Copyable {
    let payloader: UnsafeMutablePointer<GstRTPBasePayload>
    let list: OpaquePointer

    /// The payloader's MTU (its `mtu` property): whole RTP packets, header included.
    public var mtu: Int { Int(payloader.pointee.mtu) }

    /// The most payload bytes an RTP packet of the MTU carries (no CSRCs, no padding).
    public var maxPayload: Int { Int(gst_rtp_buffer_calc_payload_len(guint(mtu), 0, 0)) }

    /// Adds a packet of `count` payload bytes, written by `fill`, with the frame's `pts` and
    /// the marker bit `marker`. Returns false if no packet could be made.
    @discardableResult
    public func append(count: Int, pts: ClockTime?, marker: Bool, _ fill: (UnsafeMutableRawBufferPointer) -> Void) -> Bool {
        guard let packet = gst_rtp_base_payload_allocate_output_buffer(payloader, guint(count), 0, 0) else { return false }
        var rtp = GstRTPBuffer()
        guard gst_rtp_buffer_map(packet, GST_MAP_WRITE, &rtp) != 0 else {
            gst_mini_object_unref(UnsafeMutableRawPointer(packet).assumingMemoryBound(to: GstMiniObject.self))
            return false
        }
        fill(UnsafeMutableRawBufferPointer(start: gst_rtp_buffer_get_payload(&rtp), count: count))
        gst_rtp_buffer_set_marker(&rtp, marker ? 1 : 0)
        gst_rtp_buffer_unmap(&rtp)
        packet.pointee.pts = pts ?? ClockTime.none
        gst_buffer_list_insert(list, -1, packet) // takes the packet
        return true
    }

    /// Splits `frame` into packets of at most the MTU, each a payload descriptor of
    /// `descriptorLength` bytes (`descriptor(first, last)`, for the packet's place in the
    /// frame) followed by the next piece of the frame; the last has the marker bit (as the
    /// VP8 and VP9 payload formats, RFC 7741 and RFC 9628, lay frames out).
    public func appendFragments(
        of frame: borrowing BufferRef, descriptorLength: Int, descriptor: (_ first: Bool, _ last: Bool) -> [UInt8]
    ) {
        let room = max(1, maxPayload - descriptorLength), pts = frame.pts
        _ = frame.withBytes { bytes in
            var offset = 0
            repeat {
                let n = min(room, bytes.count - offset)
                let last = offset + n == bytes.count
                let head = descriptor(offset == 0, last)
                let chunk = UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + n)])
                append(count: descriptorLength + n, pts: pts, marker: last) { out in
                    out.copyBytes(from: head.prefix(descriptorLength))
                    UnsafeMutableRawBufferPointer(rebasing: out[descriptorLength...]).copyMemory(from: chunk)
                }
                offset += n
            } while offset < bytes.count
        }
    }
}

/// The Swift state of one payloader element: it splits each encoded frame into packets.
public protocol PayloaderState: AnyObject {
    /// Packetizes `frame` into `output` (called on the streaming thread, one frame at a time).
    func handle(_ frame: borrowing BufferRef, into output: borrowing RTPPacketOutput)
}

/// How a Swift payloader is described to GStreamer.
public struct PayloaderDescription: Sendable {
    /// The element factory name (`sluice-vp8pay`).
    public var factory: String
    /// Metadata: a long name and a description.
    public var longname: String, description: String
    /// The sink pad's caps (`video/x-vp8`).
    public var sinkCaps: String
    /// The RTP media, encoding name and clock rate (`video`, `VP8`, 90000).
    public var media: String, encodingName: String, clockRate: Int

    /// A description from its parts.
    public init(factory: String, longname: String, description: String, sinkCaps: String, media: String, encodingName: String, clockRate: Int) {
        self.factory = factory; self.longname = longname; self.description = description
        self.sinkCaps = sinkCaps; self.media = media; self.encodingName = encodingName; self.clockRate = clockRate
    }
}

extension SwiftElements {
    /// Registers an RTP payloader (a GstRTPBasePayload subclass) whose frames `make`'s
    /// states packetize. Returns false if the name is taken.
    @discardableResult
    public static func registerPayloader(_ d: PayloaderDescription, make: @escaping @Sendable (ElementHandle) -> any PayloaderState) -> Bool {
        Gst.initialize()
        guard !Registry.hasElement(d.factory) else { return false }
        let data = UnsafeMutablePointer<SluicePayloaderClassData>.allocate(capacity: 1) // lives for the process
        let context = Unmanaged.passRetained(PayloaderRegistration(make)).toOpaque()
        let src = "application/x-rtp, media=(string)\(d.media), clock-rate=(int)\(d.clockRate), encoding-name=(string)\(d.encodingName)"
        data.initialize(
            to: SluicePayloaderClassData(
                vtable: SluicePayloaderVTable(create: payloaderCreate, destroy: payloaderDestroy, handle: payloaderHandle),
                context: context, longname: strdup(d.longname), description: strdup(d.description), sink_caps: strdup(d.sinkCaps),
                src_caps: strdup(src), media: strdup(d.media), encoding_name: strdup(d.encodingName), clock_rate: guint(d.clockRate)))
        return sluice_payloader_register(typeName(d.factory), d.factory, data) != 0
    }
}

// MARK: - Trampolines

private final class PayloaderRegistration {
    let make: @Sendable (ElementHandle) -> any PayloaderState
    init(_ make: @escaping @Sendable (ElementHandle) -> any PayloaderState) { self.make = make }
}

private final class PayloaderBox {
    let state: any PayloaderState
    init(_ s: any PayloaderState) { state = s }
}

private let payloaderCreate: @convention(c) (gpointer?, gpointer?) -> gpointer? = { context, element in
    guard let context, let element else { return nil }
    let reg = Unmanaged<PayloaderRegistration>.fromOpaque(context).takeUnretainedValue()
    return Unmanaged.passRetained(PayloaderBox(reg.make(ElementHandle(pointer: element)))).toOpaque()
}

private let payloaderDestroy: @convention(c) (gpointer?) -> Void = { state in
    guard let state else { return }
    Unmanaged<PayloaderBox>.fromOpaque(state).release()
}

private let payloaderHandle: @convention(c) (gpointer?, gpointer?, UnsafeMutablePointer<GstBuffer>?) -> GstFlowReturn = {
    state, element, buffer in
    guard let state, let element, let buffer, let list = gst_buffer_list_new() else { return GST_FLOW_ERROR }
    let box = Unmanaged<PayloaderBox>.fromOpaque(state).takeUnretainedValue()
    let payloader = element.assumingMemoryBound(to: GstRTPBasePayload.self)
    box.state.handle(BufferRef(raw: buffer), into: RTPPacketOutput(payloader: payloader, list: list))
    return gst_rtp_base_payload_push_list(payloader, list) // takes the list
}
