import CGStreamer
import CGStreamerShim
import Synchronization

/// A GstPromise whose reply can be awaited from Swift concurrency without blocking a thread.
///
/// Pass it to an action signal (`create-offer`, `get-stats`, …), then `await reply()`.
/// `@unchecked Sendable`: the GstPromise is MT-safe by design (that is its purpose), and
/// the Swift-side state lives behind a Mutex.
public final class Promise: @unchecked Sendable {
    let raw: UnsafeMutablePointer<GstPromise>
    private let state: PromiseState

    /// The outcome of a promise.
    public enum Result: Sendable {
        /// Replied, with the reply structure (nil if the reply carried none).
        case replied(Structure?)
        /// Interrupted (`GST_PROMISE_RESULT_INTERRUPTED`), by `interrupt()` or by
        /// `reply(timeout:)` giving up; no reply will be read.
        case interrupted
        /// Expired (`GST_PROMISE_RESULT_EXPIRED`, `gst_promise_expire`): the producer gave up
        /// on it without replying.
        case expired
    }

    /// A new pending promise (`gst_promise_new_with_change_func`); the wrapper owns its only
    /// reference. Whichever thread replies, interrupts or expires it (an element's streaming or
    /// signal thread, usually) runs the change callback, which only resumes the task in `reply()`.
    public init() {
        Gst.initialize()
        let state = PromiseState()
        self.state = state
        let box = Unmanaged.passRetained(state).toOpaque()
        raw = gst_promise_new_with_change_func(promiseChanged, box, promiseDestroy)
    }

    deinit { gst_mini_object_unref(UnsafeMutableRawPointer(raw).assumingMemoryBound(to: GstMiniObject.self)) }

    /// Waits for the promise to be replied, interrupted or expired.
    public func reply() async -> Result {
        let r = await withCheckedContinuation { (c: CheckedContinuation<GstPromiseResult, Never>) in
            state.wait(c)
        }
        switch r {
        case GST_PROMISE_RESULT_REPLIED:
            let s = gst_promise_get_reply(raw).map { Structure(borrowed: UnsafeMutablePointer(mutating: $0), owner: self) }
            return .replied(s)
        case GST_PROMISE_RESULT_EXPIRED: return .expired
        default: return .interrupted
        }
    }

    /// Like `reply()`, but gives up after `timeout`, as `.interrupted`: an element that never
    /// answers (webrtcbin's `get-stats` on a session whose negotiation went wrong was seen to)
    /// cannot hang the caller. Only the Swift side gives up; a late reply is ignored.
    public func reply(timeout: Duration) async -> Result {
        let state = state
        let timer = Task {
            try? await Task.sleep(for: timeout)
            if !Task.isCancelled { state.complete(GST_PROMISE_RESULT_INTERRUPTED) }
        }
        defer { timer.cancel() }
        return await reply()
    }

    /// Replies as an element would (copies `structure`). For tests and Swift-side producers.
    public func replyForTesting(_ structure: Structure) {
        gst_promise_reply(raw, gst_structure_copy(structure.raw))
    }

    /// Interrupts a pending promise (e.g. on shutdown).
    public func interrupt() { gst_promise_interrupt(raw) }

    /// A GValue referencing this promise, for signal arguments.
    public func asValue() -> Value {
        let v = Value(type: sluice_type_promise())
        g_value_set_boxed(&v.raw, raw)
        return v
    }
}

extension Promise: SignalArgument {}

/// The Swift side of a promise: its result once known and a waiter, if any.
final class PromiseState: Sendable {
    private struct S {
        var result: GstPromiseResult?
        var waiter: CheckedContinuation<GstPromiseResult, Never>?
    }
    private let s = Mutex(S())

    func wait(_ c: CheckedContinuation<GstPromiseResult, Never>) {
        let ready: GstPromiseResult? = s.withLock { st in
            if let r = st.result { return r }
            st.waiter = c
            return nil
        }
        if let ready { c.resume(returning: ready) }
    }

    func complete(_ r: GstPromiseResult) {
        let w: CheckedContinuation<GstPromiseResult, Never>? = s.withLock { st in
            guard st.result == nil else { return nil }
            st.result = r
            defer { st.waiter = nil }
            return st.waiter
        }
        w?.resume(returning: r)
    }
}

private let promiseChanged: GstPromiseChangeFunc = { promise, data in
    guard let promise, let data else { return }
    let state = Unmanaged<PromiseState>.fromOpaque(data).takeUnretainedValue()
    state.complete(gst_promise_wait(promise)) // does not block: the promise has changed
}

private let promiseDestroy: GDestroyNotify = { data in
    guard let data else { return }
    Unmanaged<PromiseState>.fromOpaque(data).release()
}
