import CGStreamer
import CGStreamerShim

/// What a latency query answered (`GST_QUERY_LATENCY`): whether the path is live, and the
/// least and most latency it adds, in nanoseconds.
public struct LatencyAnswer: Sendable, Equatable {
    /// Whether a live source feeds the path.
    public var live: Bool
    /// The latency the path needs at least: what its sinks must wait to stay in time.
    public var min: ClockTime
    /// The most it can buffer; nil when unbounded.
    public var max: ClockTime?

    /// An answer with these values (`max` nil for unbounded, as GStreamer's GST_CLOCK_TIME_NONE).
    public init(live: Bool, min: ClockTime, max: ClockTime?) {
        self.live = live; self.min = min; self.max = max
    }
}

extension Element {
    /// Asks the element (a sink, or a bin for all its sinks) how much latency the path that
    /// feeds it has (`gst_element_query` with a latency query); nil if nothing answered.
    public func queryLatency() -> LatencyAnswer? {
        LatencyAnswer.asking { gst_element_query(element, $0) != 0 }
    }

    /// Configures `nanoseconds` of latency on the element's sinks (a latency event, which each
    /// sink also passes upstream to the elements that sync on the clock before it).
    @discardableResult
    public func configureLatency(_ nanoseconds: ClockTime) -> Bool {
        sendEvent(Event.latency(nanoseconds))
    }

    /// Whether the element is a sink, or a bin that holds one (`GST_ELEMENT_FLAG_SINK`).
    public var isSink: Bool {
        withObjectLock {
            pointer.assumingMemoryBound(to: GstObject.self).pointee.flags & GST_ELEMENT_FLAG_SINK.rawValue != 0
        }
    }
}

extension Pad {
    /// Asks this pad how much latency the path that feeds it has (`gst_pad_query` with a
    /// latency query: the pad's own query function answers, so an element that syncs on the
    /// clock, such as `clocksync`, learns its upstream latency from it); nil if nothing answered.
    public func queryLatency() -> LatencyAnswer? {
        LatencyAnswer.asking { gst_pad_query(pad, $0) != 0 }
    }
}

extension LatencyAnswer {
    /// A latency query made, passed to `ask` (an element's or a pad's query: true if it was
    /// answered) and parsed; nil if it was not answered.
    static func asking(_ ask: (UnsafeMutablePointer<GstQuery>) -> Bool) -> LatencyAnswer? {
        guard let query = gst_query_new_latency() else { return nil }
        defer { gst_query_unref(query) }
        guard ask(query) else { return nil }
        var live: gboolean = 0
        var min: GstClockTime = 0, max: GstClockTime = 0
        gst_query_parse_latency(query, &live, &min, &max)
        return LatencyAnswer(live: live != 0, min: min, max: max == ClockTime.none ? nil : max)
    }
}

extension Message {
    /// Posts a `latency` message from `source` (`gst_message_new_latency`): the pipeline's
    /// owner should recalculate the latency, as when an element's own latency changed.
    @discardableResult
    public static func postLatency(from source: Element) -> Bool {
        let msg = gst_message_new_latency(source.pointer.assumingMemoryBound(to: GstObject.self))
        return gst_element_post_message(source.element, msg) != 0
    }
}

extension Event {
    /// A latency event: the latency, in nanoseconds, a sink and the elements before it that
    /// sync on the clock must add.
    public static func latency(_ nanoseconds: ClockTime) -> Event {
        Gst.initialize()
        return Event(full: gst_event_new_latency(nanoseconds))
    }
}

extension Bin {
    /// Takes over how this top-level bin configures latency.
    ///
    /// GStreamer's default (`do-latency`, emitted when a pipeline goes to PLAYING and on
    /// `recalculateLatency()`) asks the whole bin once and gives every sink the largest
    /// latency any of them needs, so one slow path delays all the others. `handler` runs
    /// instead (on the thread changing state or recalculating) and can give different sinks
    /// different latencies with `queryLatency()` and `configureLatency(_:)`; it returns
    /// whether the latency could be configured. The handler gets the bin as its argument:
    /// capturing the bin itself would keep it alive forever.
    public func distributeLatency(with handler: @escaping @Sendable (Bin) -> Bool) {
        connect("do-latency") { (args: borrowing SignalArguments) -> Value? in
            guard let bin = args.object(0, as: Bin.self) else { return Value(false) }
            return Value(handler(bin))
        }
    }
}
