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
    /// Bytes sent (or, for a receive-only run, received).
    package var bytes = 0
    package var encodedBytes = 0

    package init() {}

    package init(_ counters: RunCounters, bytes: Int) {
        sendFrames = counters.sendVideoFrames.load(ordering: .relaxed)
        receiveFrames = counters.receiveVideoFrames.load(ordering: .relaxed)
        audioBuffers = counters.receiveAudioBuffers.load(ordering: .relaxed)
        self.bytes = bytes
        encodedBytes = counters.sendVideoBytes.load(ordering: .relaxed)
    }

    /// Rates from `earlier` to these totals, over `seconds`.
    package func liveStats(since earlier: TickTotals, seconds dt: Double, elapsed: Double) -> LiveStats {
        var live = LiveStats(
            elapsed: elapsed, sendFps: Double(sendFrames - earlier.sendFrames) / dt,
            receiveFps: Double(receiveFrames - earlier.receiveFrames) / dt,
            receiveAudioPerSecond: Double(audioBuffers - earlier.audioBuffers) / dt,
            bitrateKbps: Double(max(0, bytes - earlier.bytes)) * 8 / 1000 / dt,
            roundTripMs: nil, iceState: "none")
        live.encodedVideoKbps = Double(encodedBytes - earlier.encodedBytes) * 8 / 1000 / dt
        return live
    }
}

/// What the statistics ticks remember from one to the next.
package struct LiveTicker {
    package var lastTick = ContinuousClock.now
    package var last = TickTotals()
    package var lastLevel = (squares: 0, samples: 0)
    package var lastStats = WebRTCStats()
    package var warnedNoFeedback = false
    package var iceState: String
}
