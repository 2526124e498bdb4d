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
    /// Whatever the push returned: OK, or a reason data stopped (`not-linked`, `eos`, `error`…).
    public var isOK: Bool { raw >= 0 }
    /// The C name (`gst_flow_get_name`), e.g. `ok`, `not-linked`, `flushing`.
    public var description: String { String(cString: gst_flow_get_name(GstFlowReturn(rawValue: raw))) }
}

extension Pad {
    /// Makes what is downstream of this source pad unable to stop whoever pushes into it.
    ///
    /// Each buffer pushed on this pad is handed to the chain function of `target` (this
    /// pad's peer) directly, and the pusher is told OK whatever `target` returned. The first
    /// result that is not OK goes to `onFailure`, and from then on buffers are dropped here.
    /// Events still travel the link as usual.
    ///
    /// A `tee` returns the first error any of its branches returns, so one branch that
    /// fails (a WebRTC viewer whose transport failed, a branch being torn down) would stop
    /// the shared encoder for every branch; with this, it stops only itself.
    @discardableResult
    public func isolate(into target: Pad, onFailure: @escaping @Sendable (FlowReturn) -> Void) -> UInt {
        let box = Unmanaged.passRetained(IsolationBox(target: target, onFailure: onFailure)).toOpaque()
        let kind = GstPadProbeType(rawValue: GST_PAD_PROBE_TYPE_BUFFER.rawValue)
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

private let isolationTrampoline: GstPadProbeCallback = { _, info, data in
    guard let info, let data, let buffer = sluice_pad_probe_info_buffer(info) else { return GST_PAD_PROBE_OK }
    let box = Unmanaged<IsolationBox>.fromOpaque(data).takeUnretainedValue()
    if box.failed.load(ordering: .relaxed) { return GST_PAD_PROBE_DROP }
    // HANDLED: the probe owns the buffer; gst_pad_chain takes it (transfer full) and the
    // push returns OK.
    let result = FlowReturn(raw: gst_pad_chain(box.target, buffer).rawValue)
    if !result.isOK, box.failed.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged {
        box.onFailure(result)
    }
    return GST_PAD_PROBE_HANDLED
}

private let isolationDestroy: GDestroyNotify = { data in
    guard let data else { return }
    Unmanaged<IsolationBox>.fromOpaque(data).release()
}
