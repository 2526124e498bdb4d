import GStreamer

/// Keeps sending from waiting, in a pipeline that both sends and receives.
///
/// webrtcbin 1.22 puts a `clocksync` (sync=true) in its own send path, before the FEC
/// encoder. A clocksync holds each buffer until its running time plus the latency of what
/// feeds it, and it learns that latency from the first latency query that passes through
/// it: a live capture's frame (33 ms at 30 fps) plus the encoder's. A pipeline answers
/// queries only when its latency is (re)calculated: when it goes to PLAYING, webrtcbin's
/// transports do not exist yet and no query reaches the clocksync, so it waits for nothing
/// (what plain C webrtcbin and Sluice's served streams get). But the runner recalculates
/// the latency whenever a jitter buffer posts a `latency` message, so that the receive
/// sinks learn that it now waits longer for retransmissions (`RetransmissionLatency`; each
/// buffer also starts at 5 ms and gets the file's latency back after its first packet, which
/// posts one). GStreamer's recalculation queries every sink, webrtcbin's `nicesink`s too;
/// from then on every frame sent waited for its capture's frame time at the clocksync.
/// Measured (`sluice measure Benchmarks/loopback-h264-video.yaml`): held 25 ms at the median,
/// glass-to-glass p50 37 ms against 7 ms with the same file in two processes.
///
/// So latency is distributed by domain instead:
/// - sinks that hold a `webrtcbin` (its transports' `nicesink`s, which do not sync) are
///   neither queried nor configured: nothing in a send path needs a latency, and a query
///   would arm the clocksync. A file capture (not live) is still paced at its running time.
/// - every other sink (what receive branches render, record or count) gets the largest
///   latency among them, as GStreamer would give it, so they stay in sync with each other and
///   a jitter buffer that waits longer for repairs delays the display, not what is sent.
public enum SendLatency {
    /// A new pipeline that distributes its latency by domain: every pipeline that holds a
    /// webrtcbin is made with it.
    public static func pipeline(named name: String) -> Pipeline {
        let pipeline = Pipeline(name: name)
        install(on: pipeline)
        return pipeline
    }

    /// Makes `pipeline` distribute its latency by domain (see the type's documentation).
    /// Call it once, before the pipeline goes to PLAYING.
    public static func install(on pipeline: Pipeline) {
        pipeline.distributeLatency { bin in distribute(in: bin) }
    }

    /// The sinks of a bin sorted into the two domains.
    package struct Domains {
        /// Sinks that send (a `webrtcbin`): left alone.
        package var senders: [Element] = []
        /// Every other sink, configured together.
        package var others: [Element] = []
    }

    /// Whether a sink sends: a `webrtcbin`.
    package static func isWebRTCBin(_ element: Element) -> Bool { element.factoryName == "webrtcbin" }

    /// Sorts `bin`'s sinks: a sender sends; a bin holding senders among other sinks is
    /// looked into; anything else is an other.
    package static func domains(of bin: Bin, isSender: (Element) -> Bool = isWebRTCBin) -> Domains {
        var domains = Domains()
        for child in bin.children where child.isSink {
            if isSender(child) {
                domains.senders.append(child)
            } else if let inner = child.cast(to: Bin.self), inner.descendants.contains(where: isSender) {
                let nested = Self.domains(of: inner, isSender: isSender)
                domains.senders += nested.senders
                domains.others += nested.others
            } else {
                domains.others.append(child)
            }
        }
        return domains
    }

    /// Configures the receiving domain's latency; what `do-latency` runs instead of
    /// GStreamer's default. Returns false if a sink refused it.
    package static func distribute(in bin: Bin, isSender: (Element) -> Bool = isWebRTCBin) -> Bool {
        let others = domains(of: bin, isSender: isSender).others
        let answers = others.compactMap { $0.queryLatency() }
        guard !answers.isEmpty else { return true }
        // As GStreamer combines the sinks of a bin: the largest least latency of the live ones.
        let latency = answers.filter(\.live).map(\.min).max() ?? 0
        return others.reduce(true) { ok, sink in sink.configureLatency(latency) && ok }
    }
}
