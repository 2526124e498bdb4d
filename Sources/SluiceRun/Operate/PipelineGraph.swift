import GStreamer
import Logging
import Synchronization

/// The graph a pipeline file builds, taken from the running pipeline (`sluice graph`):
/// receive branches exist only once media arrives, so the file is played until every
/// medium it receives (or, sending only, what it sends) flows, or `seconds` pass; the graph
/// is taken while it plays and the run is stopped.
public enum PipelineGraph {
    /// The graph as taken from the playing pipeline.
    public struct Picture: Sendable {
        /// GStreamer's own dot (`gst_debug_bin_to_dot_data`).
        public var dot: String
        /// The indented text tree (`GraphPicture.tree`).
        public var tree: String
        /// Whether every declared medium was flowing when the graph was taken.
        public var complete: Bool
    }

    private final class Latest: Sendable {
        let value = Mutex<Picture?>(nil)
    }

    /// Plays `spec` until every medium it receives (or, sending only, what it sends) flows, or for
    /// `seconds` (5 by default), and returns the graph last taken. Throws `RunError` if the run
    /// fails or stops before any graph could be taken.
    public static func capture(_ spec: PipelineSpec, seconds: Double = 5, logger: Logger) async throws(RunError) -> Picture {
        let run = PipelineRun(spec: spec, logger: logger)
        let stop = StopFlag(), latest = Latest()
        let video = spec.receive?.video != nil, audio = spec.receive?.audio != nil
        _ = try await run.run(options: RunOptions(duration: seconds, statsInterval: 0.25, drainTimeout: 1), stop: stop) { s in
            let flowing =
                (video || audio)
                ? (!video || s.receiveFps > 0) && (!audio || s.receiveAudioPerSecond > 0)
                : s.sendFps > 0
            if let snap = run.snapshot() { latest.value.withLock { $0 = Picture(dot: snap.dot, tree: snap.tree, complete: flowing) } }
            if flowing { stop.set() }
        }
        guard let picture = latest.value.withLock({ $0 }) else {
            throw RunError("the pipeline stopped before its graph could be taken (run it with `sluice run` to see why)")
        }
        return picture
    }
}
