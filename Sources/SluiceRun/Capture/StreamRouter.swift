import GStreamer
import Synchronization

/// Where the streams of a source shared by a run's branches go: each new pad goes to the
/// branch that asked for its medium, if the codec it carries is the one that branch declared
/// (passthrough) or the branch decodes anything. A stream no branch takes ends in a fakesink,
/// so a demuxer or `rtspsrc` never stops for an unlinked pad.
package final class StreamRouter: Sendable {
    /// Where one medium's stream goes, and the codec it must carry (passthrough).
    package struct Route: Sendable {
        /// The first element's sink pad of the branch's chain.
        package var entrance: Pad
        /// The codec passthrough expects (nil: the branch decodes whatever comes).
        package var codec: Codec?
        /// Reports a stream that cannot go this way (the codec differs).
        package var refuse: @Sendable (RunError) -> Void
    }

    /// What arrived on a new pad, as the source describes it.
    package struct Stream {
        /// The pad's medium (nil: neither audio nor video).
        package var media: MediaKind?
        /// The codec as the source names it (`H264`, `AAC`), for messages.
        package var encoding: String
        /// The codec it is, if Sluice can pass it through.
        package var codec: Codec?
    }

    /// The source as the user knows it (its URL without the password), for messages.
    package let label: String
    /// Whether it delivers, and its outages (counted by a probe on each stream it links).
    package let health: SourceHealth
    private let pipeline: Pipeline
    private let routes = Mutex<[MediaKind: Route]>([:])
    private struct Handlers {
        var lost: (@Sendable (String) -> Bool)?
        var back: (@Sendable (SourceHealth.Outage) -> Void)?
    }
    private let handlers = Mutex(Handlers())
    /// How far the running time of the latest buffer trailed the pipeline's, in nanoseconds
    /// (-1: no buffer yet): what a reconnected stream's first buffer is put back to.
    private let lag = Atomic<Int>(-1)

    package init(label: String, pipeline: Pipeline) {
        self.label = label
        self.pipeline = pipeline
        health = SourceHealth(label: label)
    }

    /// Calls `handler` when a stream ends (EOS) after media flowed; if it returns true (an
    /// outage it handles) the end goes no further, so the branches wait for the reconnect.
    package func onLost(_ handler: @escaping @Sendable (String) -> Bool) { handlers.withLock { $0.lost = handler } }

    /// Calls `handler` when media comes back after an outage.
    package func onBack(_ handler: @escaping @Sendable (SourceHealth.Outage) -> Void) { handlers.withLock { $0.back = handler } }

    /// Sends `media`'s stream to `route` when its pad appears.
    package func route(_ media: MediaKind, _ route: Route) {
        routes.withLock { $0[media] = route }
    }

    /// A new stream: to its branch if one asked for it and the codec fits, else to a fakesink.
    package func place(_ pad: Pad, carrying stream: Stream) {
        let route = routes.withLock { routes -> Route? in
            guard let media = stream.media, let route = routes[media], !route.entrance.isLinked else { return nil }
            return route
        }
        if let route, let codec = route.codec, stream.codec != codec {
            route.refuse(
                RunError(
                    "\(label) sends \(stream.media?.rawValue ?? "") as \(stream.encoding), and passthrough was declared for "
                        + "\(codec.rawValue); set encode.codec to what the source sends, or remove passthrough to transcode"))
        } else if let route {
            do { try pad.link(route.entrance) } catch {
                route.refuse(RunError("cannot link \(label)'s \(stream.encoding) stream: \(error.message)"))
            }
            watch(pad)
            return
        }
        discard(pad)
    }

    /// Counts `pad`'s buffers into `health`, keeps its timeline going on after a reconnect,
    /// and holds back its end-of-stream when the supervisor takes it as an outage.
    private func watch(_ pad: Pad) {
        let timeline = ReconnectTimeline(lag: lag.load(ordering: .relaxed))
        pad.addProbe(.buffer) { [weak self] (info: borrowing Pad.ProbeInfo) in
            guard let self else { return .ok }
            if timeline.due(), let running = info.bufferRunningTime, let clock = self.pipeline.runningTime {
                let shift = timeline.shift(running: running, clock: clock)
                if let shift { info.padReference.offset = shift }
                self.lag.store(timeline.lag(running: running, clock: clock), ordering: .relaxed)
            }
            guard let outage = self.health.delivered() else { return .ok }
            self.handlers.withLock { $0.back }?(outage)
            return .ok
        }
        pad.addProbe(.eventDownstream) { [weak self] (info: borrowing Pad.ProbeInfo) in
            guard info.event == .eos, let self, let lost = self.handlers.withLock({ $0.lost }) else { return .ok }
            return lost("the source ended its stream") ? .drop : .ok
        }
    }

    /// Ends a stream nobody takes in a fakesink.
    private func discard(_ pad: Pad) {
        guard let sink = try? Element.make("fakesink") else { return }
        try? sink.set("sync", false)
        try? sink.set("async", false)
        guard (try? pipeline.add(sink)) != nil, let entrance = sink.staticPad("sink") else { return }
        _ = sink.syncStateWithParent()
        try? pad.link(entrance)
    }
}

/// One stream's timeline across a reconnect. A source made again in a running pipeline
/// (`SourceSupervisor`) starts its timestamps from zero, as at the run's start: its running
/// time would be the seconds since it was made, far behind the pipeline's, and what follows
/// (an encoder, the payloader's RTP timestamps, a receiver's jitter buffer) would see time
/// go back by the length of the run so far. The first buffer of such a stream shifts the
/// pad's running time (its offset, which applies from that buffer on) so that it trails the
/// pipeline's clock by as much as the stream before the outage did.
package final class ReconnectTimeline: Sendable {
    /// How far the previous stream trailed the clock (-1: this is the first stream).
    private let previousLag: Int
    /// The offset set on the pad, in nanoseconds (Int.min: the first buffer has not passed).
    private let offset = Atomic<Int>(Int.min)

    /// Buffers seen so far.
    private let buffers = Atomic<Int>(0)
    /// The lag is read from one buffer in this many: it only needs to be recent when the
    /// stream drops, and each reading costs a segment lookup and a clock query.
    package static let sampleEvery = 8

    package init(lag previousLag: Int) { self.previousLag = previousLag }

    /// Whether the passing buffer's times are to be read: the first buffer's (it may need the
    /// shift), then one in `sampleEvery`.
    package func due() -> Bool { buffers.add(1, ordering: .relaxed).oldValue % Self.sampleEvery == 0 }

    /// At the stream's first buffer after a reconnect, the offset to set on its pad if its
    /// running time `running` is more than 250 ms behind where the previous stream's would
    /// be at `clock`; nil otherwise (and for every later buffer).
    package func shift(running: ClockTime, clock: ClockTime) -> Int64? {
        guard offset.load(ordering: .relaxed) == Int.min else { return nil }
        let behind = Int(clock) - previousLag - Int(running)
        let shift = previousLag >= 0 && behind > 250_000_000 ? behind : 0
        offset.store(shift, ordering: .relaxed)
        return shift > 0 ? Int64(shift) : nil
    }

    /// How far this buffer (at `running` before the pad's offset) trails `clock`.
    package func lag(running: ClockTime, clock: ClockTime) -> Int {
        Int(clock) - Int(running) - max(0, offset.load(ordering: .relaxed))
    }
}
