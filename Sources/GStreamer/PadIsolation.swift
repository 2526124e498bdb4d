import CGStreamer
import CGStreamerShim
import Synchronization

/// The result of pushing data (GstFlowReturn).
public struct FlowReturn: Sendable, Equatable, CustomStringConvertible {
    /// The raw `GstFlowReturn` value: zero or more for success, negative for a reason data stopped.
    public let raw: Int32
    /// `GST_FLOW_OK`: the data was taken.
    public static let ok = FlowReturn(raw: GST_FLOW_OK.rawValue)
    /// `GST_FLOW_NOT_LINKED`: the pad has no peer.
    public static let notLinked = FlowReturn(raw: GST_FLOW_NOT_LINKED.rawValue)
    /// `GST_FLOW_FLUSHING`: the pad is flushing or inactive (a branch being shut down).
    public static let flushing = FlowReturn(raw: GST_FLOW_FLUSHING.rawValue)
    /// `GST_FLOW_EOS`: the pad has had its end of stream.
    public static let eos = FlowReturn(raw: GST_FLOW_EOS.rawValue)
    /// Whatever the push returned: OK, or a reason data stopped (`not-linked`, `eos`, `error`…).
    public var isOK: Bool { raw >= 0 }
    /// The C name (`gst_flow_get_name`), e.g. `ok`, `not-linked`, `flushing`.
    public var description: String { String(cString: gst_flow_get_name(GstFlowReturn(rawValue: raw))) }
}

extension Pad {
    /// Makes what is downstream of this source pad unable to stop whoever pushes into it.
    ///
    /// While this pad is linked, each buffer and downstream event pushed on it is handed to
    /// `target` (the peer it is or will be linked to) directly, and the pusher is told OK
    /// whatever `target` made of it. The first failure (a flow that is not OK, or a sticky
    /// event such as caps refused) goes to `onFailure`, and from then on everything but EOS is
    /// dropped here. Install it before linking: a sticky event the branch refuses fails the
    /// push of the buffer it comes with.
    ///
    /// A `tee` returns the first error any of its branches returns and stops pushing that
    /// buffer to the branches after it, so one branch that fails (a WebRTC viewer whose
    /// transport failed or that refuses the caps, a branch being torn down) would stop the
    /// shared encoder, or a lane's thread, for every branch; with this, it stops only itself.
    @discardableResult
    public func isolate(into target: Pad, onFailure: @escaping @Sendable (FlowReturn) -> Void) -> UInt {
        let box = Unmanaged.passRetained(IsolationBox(target: target, onFailure: onFailure)).toOpaque()
        let kind = GstPadProbeType(rawValue: GST_PAD_PROBE_TYPE_BUFFER.rawValue | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM.rawValue)
        return UInt(gst_pad_add_probe(pad, kind, isolationTrampoline, box, isolationDestroy))
    }
}

extension Pad {
    /// Keeps RECONFIGURE events that reach this source pad from going further upstream;
    /// returns the probe's id.
    ///
    /// Linking a pad sends one upstream (`gst_pad_link_full`), and an element that gets it
    /// negotiates again on its next buffer: a caps query and an allocation query downstream.
    /// Through a `tee`, both ask every branch (`gst_pad_proxy_query_caps`), so with N viewers
    /// on one tee each new viewer costs work in N branches. A branch fed an encoded stream
    /// takes the caps the tee already has (it hands its sticky events to every new pad), so
    /// nothing upstream needs to negotiate when it joins.
    @discardableResult
    public func dropReconfigure() -> UInt {
        addProbe(.eventUpstream) { (info: borrowing ProbeInfo) in info.event == .reconfigure ? .drop : .ok }
    }
}

/// `@unchecked Sendable`: `failed` is atomic; `target` is an immutable reference to a
/// GstPad, which is MT-safe; `onFailure` is Sendable.
private final class IsolationBox: @unchecked Sendable {
    let target: UnsafeMutablePointer<GstPad>
    let targetRef: Pad
    let onFailure: @Sendable (FlowReturn) -> Void
    let failed = Atomic<Bool>(false)
    init(target: Pad, onFailure: @escaping @Sendable (FlowReturn) -> Void) {
        self.targetRef = target
        self.target = target.pointer.assumingMemoryBound(to: GstPad.self)
        self.onFailure = onFailure
    }
}

private let isolationTrampoline: GstPadProbeCallback = { pad, info, data in
    guard let pad, let info, let data, gst_pad_is_linked(pad) != 0 else { return GST_PAD_PROBE_OK }
    let box = Unmanaged<IsolationBox>.fromOpaque(data).takeUnretainedValue()
    if box.failed.load(ordering: .relaxed) { return isolationAfterFailure(info, target: box.target) }
    // HANDLED: the probe owns the buffer or event; gst_pad_chain and gst_pad_send_event take
    // it (transfer full) and the push returns OK.
    let result: FlowReturn
    let kind = info.pointee.type.rawValue
    if kind & GST_PAD_PROBE_TYPE_BUFFER.rawValue != 0, let buffer = sluice_pad_probe_info_buffer(info) {
        result = FlowReturn(raw: gst_pad_chain(box.target, buffer).rawValue)
    } else if kind & GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM.rawValue != 0, let event = sluice_pad_probe_info_event(info) {
        let type = event.pointee.type
        let sticky = type.rawValue & GST_EVENT_TYPE_STICKY.rawValue != 0
        let taken = gst_pad_send_event(box.target, event) != 0
        // Only a refused sticky event stops the branch (it cannot take data without it).
        let refused = type == GST_EVENT_CAPS ? GST_FLOW_NOT_NEGOTIATED : GST_FLOW_ERROR
        result = FlowReturn(raw: taken || !sticky ? GST_FLOW_OK.rawValue : refused.rawValue)
    } else {
        return GST_PAD_PROBE_OK
    }
    if !result.isOK, box.failed.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged {
        box.onFailure(result)
    }
    return GST_PAD_PROBE_HANDLED
}

/// A failed branch gets nothing more but the end of the stream: without it, its sink would
/// never be at EOS and neither would the pipeline.
private func isolationAfterFailure(_ info: UnsafeMutablePointer<GstPadProbeInfo>, target: UnsafeMutablePointer<GstPad>) -> GstPadProbeReturn {
    guard info.pointee.type.rawValue & GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM.rawValue != 0,
        let event = sluice_pad_probe_info_event(info), event.pointee.type == GST_EVENT_EOS
    else { return GST_PAD_PROBE_DROP }
    _ = gst_pad_send_event(target, event)
    return GST_PAD_PROBE_HANDLED
}

private let isolationDestroy: GDestroyNotify = { data in
    guard let data else { return }
    Unmanaged<IsolationBox>.fromOpaque(data).release()
}
