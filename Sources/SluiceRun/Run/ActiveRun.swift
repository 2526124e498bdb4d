import GStreamer

/// When a run started, by the clock and by the process's CPU time.
package struct RunClock {
    package let started = ContinuousClock.now
    package let cpu = processCPUSeconds()
}

/// What one run holds while it goes on: its pipeline and graph, what the transport kind set
/// up, the data channels, and the tasks it started. `abandon()` undoes what is still held
/// when the run ends early (a failure); `PipelineRun.finish` ends a run that completes.
package final class ActiveRun {
    package let pipeline: Pipeline
    package let builder: GraphBuilder
    package let setup: TransportSetup
    package let channels: DataChannelHub?
    /// Reads the pipeline's bus (errors, warnings, latency, filters' events).
    package let bus: BusWatch
    /// Opens the send branches once the connection is up.
    package var gates: Task<Void, Never>?
    /// Sends standard input's lines on the data channel that takes it.
    package var inputTask: Task<Void, Never>?
    /// The pipeline went to NULL after draining.
    package var stopped = false
    private var sessionEnded = false

    package init(
        pipeline: Pipeline, builder: GraphBuilder, setup: TransportSetup, channels: DataChannelHub?,
        bus: BusWatch
    ) {
        self.pipeline = pipeline; self.builder = builder; self.setup = setup
        self.channels = channels; self.bus = bus
    }

    /// Ends the session (once).
    package func endSession() async {
        guard let session = setup.session, !sessionEnded else { return }
        sessionEnded = true
        await session.end()
    }

    /// Stops what is still running, in the reverse order it started. On a failure the session
    /// is still ended (best effort, in the background) so the other side does not keep it:
    /// the WHEP viewer, the camera stream, the room.
    package func abandon() {
        inputTask?.cancel()
        gates?.cancel()
        if !stopped { pipeline.setState(.null) }
        bus.stop()
        if let session = setup.session, !sessionEnded {
            sessionEnded = true
            Task.detached { await session.end() }
        }
    }
}

/// The run in progress as the control API and hot swap see it.
package struct LiveRun {
    package let builder: GraphBuilder
    /// The peer that sends (loopback: the sender), whose negotiation requests are counted.
    package let sender: WebRTCPeer?
    package let control: PipelineControl?
    package let session: (any RemoteSession)?
}

/// The counters a statistics line is computed from, as they were at one tick.
package struct TickTotals {
    package var sendFrames = 0
    package var receiveFrames = 0
    package var audioBuffers = 0
    package var encodedBytes = 0

    package init() {}

    package init(_ counters: RunCounters) {
        sendFrames = counters.sendVideoFrames.load(ordering: .relaxed)
        receiveFrames = counters.receiveVideoFrames.load(ordering: .relaxed)
        audioBuffers = counters.receiveAudioBuffers.load(ordering: .relaxed)
        encodedBytes = counters.sendVideoBytes.load(ordering: .relaxed)
    }

    /// Rates from `earlier` to these totals, over `seconds`; the wire's figures from `wire`.
    package func liveStats(since earlier: TickTotals, seconds dt: Double, elapsed: Double, wire: WireRead) -> LiveStats {
        var live = LiveStats(
            elapsed: elapsed, sendFps: Double(sendFrames - earlier.sendFrames) / dt,
            receiveFps: Double(receiveFrames - earlier.receiveFrames) / dt,
            receiveAudioPerSecond: Double(audioBuffers - earlier.audioBuffers) / dt,
            bitrateKbps: wire.bitrateKbps, roundTripMs: wire.sent.roundTripMs ?? wire.received.roundTripMs, iceState: "none")
        live.encodedVideoKbps = Double(encodedBytes - earlier.encodedBytes) * 8 / 1000 / dt
        return live
    }
}

/// The last read of webrtcbin's statistics (`RunOptions.webrtcStatsInterval`): the live
/// bitrate is the mean over the window between two reads, and repeats until the next.
package struct WireRead {
    /// When it was read (the run's start before the first read).
    package var at: ContinuousClock.Instant
    /// Bytes sent (or, for a receive-only run, received) at that read.
    package var bytes = 0
    /// The mean bitrate between the read before and this one, kbit/s.
    package var bitrateKbps = 0.0
    /// The sending and the receiving peer's figures (empty without such a peer).
    package var sent = WebRTCStats()
    package var received = WebRTCStats()

    /// The next read: `sent` and `received` at `now`, the bitrate over the window since this one.
    package func next(sent: WebRTCStats, received: WebRTCStats?, now: ContinuousClock.Instant) -> WireRead {
        let bytes = sent.bytesSent > 0 ? sent.bytesSent : (received?.bytesReceived ?? 0)
        let dt = max((now - at).seconds, 0.001)
        return WireRead(
            at: now, bytes: bytes, bitrateKbps: Double(max(0, bytes - self.bytes)) * 8 / 1000 / dt, sent: sent,
            received: received ?? WebRTCStats())
    }
}

/// What the statistics ticks remember from one to the next.
package struct LiveTicker {
    package var lastTick = ContinuousClock.now
    package var last = TickTotals()
    package var lastLevel = (squares: 0, samples: 0)
    /// The last read of webrtcbin's statistics; `wireRead` is false until the first.
    package var wire: WireRead
    package var wireRead = false
    package var warnedNoFeedback = false
    package var iceState: String

    package init(iceState: String, started: ContinuousClock.Instant) {
        self.iceState = iceState
        wire = WireRead(at: started)
    }
}
